import Foundation
import Logging
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport

/// A daemon killed at every step of a deliverable set's commit, its job record then intact,
/// cut short or gone: the next `dropcut watch --once` publishes all of the set or none of
/// it — here all, since every file was rendered —, exactly once (no `-1` copy), with no
/// temporary file left, the original archived once. On a share, and where PostgreSQL
/// decides the claims (`coordinator:`): the same kills, the same outcome.
///
/// The state a kill leaves is made by the daemon's own parts, in-process: the coordination
/// the daemon makes from the same config (`ClaimCoordinations.make`: a `LeaseKeeper`, or
/// `DatabaseLeases` on the test's PostgreSQL) as this host, the clip claimed as the daemon
/// claims it (`JobRunner.claim`, with the coordinator's ticket where one assigns it), the
/// record moved by the job's state machine to `committing`, the fence taken as before
/// every commit, and the set commit (`SetCommit`, never replacing, durable, as
/// `JobRunner.publishSet` runs it) recording each step as the daemon does
/// (`JobRunner.recordCommitStep`: the record, then its durable copy — the lease, or the
/// claim's row) — cut off after step `k` as a kill would cut it (a durable commit leaves
/// each step on disk before the next). Recovery is the real `dropcut watch` on those
/// files, this host again (another process), with the same coordinator.
@Suite(.tags(.slow), .sharedPostgresServer) struct SetCommitKillMatrixTests {
    enum RecordLeft: String, CaseIterable { case intact, truncated, missing }
    /// Who decides the claims: the share itself, or PostgreSQL (`coordinator:`).
    enum Backend: String, CaseIterable { case share, postgres }
    struct Killed: Error {}

    static let names = ["clip.vertical.mp4", "clip.wide.mp4", "clip.poster.png", "clip.dropcut.json"]
    /// The commit's steps for three files and a manifest: the suffix chosen, the manifest
    /// written, each file published. (The manifest's own publication ends the commit.)
    static let steps = 5

    @Test(arguments: 0...steps, RecordLeft.allCases)
    func aKillAtAnyStepLeavesAllOfTheSetOrNoneExactlyOnce(killedAfter step: Int, record left: RecordLeft) async throws {
        try await Self.killAndRecover(killedAfter: step, record: left, coordinator: nil)
    }

    /// The claims decided by PostgreSQL: no lease file, the copy of each step's record is
    /// in the claim's row, stored before the next step (`DatabaseLeases.store`), and a
    /// record cut short or gone is resumed from it. One server for every case (each keeps
    /// to its own folder's rows).
    @Test(arguments: 0...steps, RecordLeft.allCases)
    func onPostgreSQLAKillAtAnyStepLeavesAllOfTheSetOrNoneExactlyOnce(killedAfter step: Int, record left: RecordLeft) async throws {
        try await Self.killAndRecover(killedAfter: step, record: left, coordinator: try await SharedPostgresServer.server())
    }

    /// The kill after `step` steps, the record left as `left`, and the recovery; `server`
    /// decides the claims when given.
    static func killAndRecover(killedAfter step: Int, record left: RecordLeft, coordinator server: PostgresServer?) async throws {
        let h = try DaemonHarness(extraSettings: server.map { "coordinator: \($0.url)" } ?? "")
        guard let killed = try Self.killCommit(after: step, in: h, as: try HostIdentity.current()) else { return }
        switch left {
        case .intact: break
        case .truncated:
            let path = killed.store.path(of: killed.id)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        case .missing:
            killed.store.remove(killed.id)
        }

        let result = try await h.runOnce()

        let on = server == nil ? "a share" : "PostgreSQL"
        let why = "on \(on), killed after step \(step) (\(killed.visible) name(s) visible), record \(left.rawValue): \(result.stderr)"
        #expect(result.status == 0, "\(why)")
        try Self.expectAllOfTheSetOnce(h, why: why)
        #expect(killed.store.all().filter { $0.id == killed.id }.map(\.state) == [.done], "\(why)")
        if left != .intact {
            let source = server == nil ? "the copy in its claim's lease" : "the copy the coordinator holds"
            #expect(result.stderr.contains("resumed from \(source)"), "\(why)")
        }
        if let server {
            // The farm's row of the job ended done, as its holder (this host) said.
            #expect(try Self.rows(server, folder: killed.folder.name) == [["done", killed.id]], "\(why)")
        }
    }

    /// A holder killed at every step of a set's commit, taken over by another host once its
    /// lease ran out (a running daemon: `--once` takes nothing over), on a share and where
    /// PostgreSQL decides: the taker resumes from the holder's record of the step the kill
    /// left (its lease, or the claim's row), takes the holder's temporary files as its own
    /// — its published manifest too —, publishes all of the set once, and leaves no
    /// temporary file behind, the holder's included.
    @Test(arguments: Backend.allCases, 0...steps)
    func aTakeoverOfAKilledCommitLeavesAllOfTheSetOnceAndNoTemporaryFile(on backend: Backend, killedAfter step: Int) async throws {
        let server = backend == .postgres ? try await SharedPostgresServer.server() : nil
        let settings = (server.map { "coordinator: \($0.url)\n" } ?? "") + "lease_timeout: 1"
        let h = try DaemonHarness(extraSettings: settings)
        let holder = HostIdentity(host: "matrix-holder", machineID: "unknown", bootID: "unknown", pid: getpid())
        guard let killed = try Self.killCommit(after: step, in: h, as: holder) else { return }
        let temporary = h.files(h.outbox, hidden: true).filter { $0.contains(".partial-\(killed.id)") }
        // The manifest's own is there until it is published, which only the last step is before.
        #expect(step == Self.steps || !temporary.isEmpty, "the holder's temporary files, before the takeover")

        // The taker: another host, with a state folder of its own.
        let config = h.dir.file("taker.yaml")
        try h.writeConfig(state: "taker-state", extraSettings: settings, to: config)
        let daemon = try h.startDaemon(environment: ["DROPCUT_HOSTNAME": "matrix-taker"], config: config)
        let finished = await DaemonHarness.waitUntil(.seconds(30)) { h.daemonLog.contains("done clip.mp4") }
        daemon.signal(SIGTERM)
        let status = await daemon.wait()

        let log = h.daemonLog
        let why = "on \(backend), the holder killed after step \(step) (\(killed.visible) name(s) visible, temporary \(temporary)): \(log)"
        #expect(finished && status == 0, "\(why)")
        #expect(log.contains("took over clip.mp4 from matrix-holder"), "\(why)")
        try Self.expectAllOfTheSetOnce(h, why: why)
        let taken = JobStore(stateDirectory: h.dir.file("taker-state")).all()
        #expect(taken.map(\.state) == [JobRecord.State.done] && taken.first?.previousJobs == [killed.id], "\(taken): \(why)")
        if let server {
            #expect(try Self.rows(server, folder: killed.folder.name) == [["done", taken.first?.id ?? "?"]], "\(why)")
        }
    }

    /// What a kill mid-commit left: the folder, the holder's state folder and job, and how
    /// many of the set's names were visible.
    struct KilledCommit {
        var folder: FolderConfig
        var store: JobStore
        var id: String
        var visible: Int
    }

    /// A set's commit in `h`, claimed by `owner`, killed after `step` steps; nil (an issue
    /// recorded) when the coordinator assigned nothing.
    static func killCommit(after step: Int, in h: DaemonHarness, as owner: HostIdentity) throws -> KilledCommit? {
        let config = try ConfigLoader.load(h.configPath)
        let folder = try #require(config.folders.first)
        for path in [folder.claimedDirectory, folder.outbox] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let store = JobStore(stateDirectory: config.stateDirectory)
        try store.prepare()
        let made = ClaimCoordinations.make(config, owner: owner, logger: Logger(label: "matrix"))
        try made.assignment?.prepare()
        let runner = JobRunner(store: store, logger: Logger(label: "matrix"), keeper: made.keeper,
                               metrics: DaemonMetrics(version: "test", workers: 1))

        // The claim, as the daemon makes it: the clip settled in the inbox, assigned to this
        // host where a coordinator decides, renamed into its claim folder, record and copy written.
        let dropped = try h.write("clip.mp4", Self.clip)
        var info = stat()
        try #require(stat(dropped, &info) == 0)
        let settled = SettledClip(name: "clip.mp4", sidecars: [], modified: Date(), size: Int64(info.st_size),
                                  modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        var ticket = ClaimTicket()
        if let assignment = made.assignment {
            let offers = try assignment.pick(folder, listed: [settled], slots: 1, takeOver: false)
            guard case let .claim(_, assigned)? = offers.first else {
                Issue.record("the coordinator assigned nothing: \(offers)")
                return nil
            }
            ticket = assigned
        }
        var record = try #require(try runner.claim(settled, folder: folder, ticket: ticket))
        let id = record.id
        for event in [JobStateMachine.Event.attemptStarted, .workerStarted] {
            try runner.advance(&record, event, folder: folder)
        }
        // The worker's set, rendered under this job's temporary names and fsynced.
        record.deliverables = try Self.names.enumerated().map { index, name in
            let temporary = PartialOutput(directory: folder.outbox, filename: name, tag: id).path
            var entry = DeliverableRecord(name: name, kind: index == 3 ? SetEntry.manifestKind : "video", temporary: temporary)
            guard index < 3 else { return entry }
            let text = "rendered \(name)"
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            var info = stat()
            stat(temporary, &info)
            entry.inode = UInt64(info.st_ino)
            entry.file = Deliverables.File(name: name, kind: "video", bytes: Int64(text.utf8.count), width: 2, height: 2,
                                           sha256: String(repeating: "0", count: 64))
            return entry
        }
        try runner.advance(&record, .rendered, folder: folder)
        // The fence every commit comes after (`JobRunner.resume`).
        try runner.fence(&record, folder: folder, before: .publish)

        // The commit, killed after `step` steps.
        var state = SetCommit.State(entries: record.deliverables ?? [])
        var taken = 0
        #expect(throws: Killed.self) {
            try SetCommit(directory: folder.outbox, policy: .neverReplace, durability: .durable, tag: id,
                          manifestPermissions: .init(mode: folder.outputMode, group: folder.outputGroup))
                .publish(&state,
                         reserve: { name in try runner.keeper.reserve(output: name, in: folder.outbox, for: record) },
                         manifest: { files, names in try JobRunner.manifest(of: files, names: names, input: "clip.mp4") },
                         step: { state in
                             guard taken < step else { throw Killed() }
                             taken += 1
                             try runner.recordCommitStep(state, in: &record)
                         })
            // The manifest's publication ends the commit: the daemon dies before it says so.
            throw Killed()
        }
        return KilledCommit(folder: folder, store: store, id: id, visible: h.files(h.outbox).count)
    }

    /// The clip's bytes (never rendered: its set is made by the test).
    static let clip = "the clip"

    /// All of the set in the outbox, once (no `-1`), nothing temporary; the original
    /// archived once; nothing left in the inbox, failed/ or `.dropcut/claimed/`.
    static func expectAllOfTheSetOnce(_ h: DaemonHarness, why: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(h.files(h.outbox, hidden: true) == Self.names.sorted(), "all of the set, once, nothing temporary: \(why)",
                sourceLocation: sourceLocation)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: (h.outbox as NSString).appendingPathComponent("clip.dropcut.json")))
        struct Manifest: Decodable { var files: [Deliverables.File] }
        #expect(try JSONDecoder().decode(Manifest.self, from: manifest).files.map(\.name) == Array(Self.names.prefix(3)), "\(why)",
                sourceLocation: sourceLocation)
        for name in Self.names.prefix(3) {
            #expect(try String(contentsOfFile: (h.outbox as NSString).appendingPathComponent(name), encoding: .utf8) == "rendered \(name)",
                    sourceLocation: sourceLocation)
        }
        #expect(h.files(h.archive, hidden: true) == ["clip.mp4"] && h.files(h.failed) == [] && h.files(h.inbox) == [], "\(why)",
                sourceLocation: sourceLocation)
        #expect(FileManager.default.contents(atPath: (h.archive as NSString).appendingPathComponent("clip.mp4")) == Data(Self.clip.utf8),
                sourceLocation: sourceLocation)
        #expect(h.claimedLeftovers() == [], "\(why)", sourceLocation: sourceLocation)
    }

    /// The state and claim of each row of `folder`'s jobs, read by the test's own connection.
    static func rows(_ server: PostgresServer, folder: String) throws -> [[String]] {
        try PostgresConnection(conninfo: server.conninfo, target: "test")
            .query("SELECT state, claim FROM dropcut_jobs WHERE folder = $1 ORDER BY id", [folder])
            .map { $0.compactMap { $0 } }
    }

    /// Start-up removes what jobs that are over left in the outbox — this host's done and
    /// failed jobs, one it lost to a taker more than a lease ago, the holder of one it took
    /// over — and nothing of a job it does not know (another host's render in progress on a
    /// shared outbox).
    @Test func startUpSweepsTheTemporaryFilesOfJobsThatAreOverAndNoOneElses() async throws {
        let h = try DaemonHarness(extraSettings: "lease_timeout: 1")
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        let ids = JobRecord.newIDs(6)
        let (done, failed, abandoned, taker, holder, stranger) = (ids[0], ids[1], ids[2], ids[3], ids[4], ids[5])
        for (id, state) in [(done, JobRecord.State.done), (failed, .failed), (abandoned, .abandoned), (taker, .done)] {
            var record = JobRecord(id: id, folder: h.folderName, input: "\(id).mp4", sidecars: [], state: .claimed,
                                   now: Date().addingTimeInterval(-10))
            record.store(in: state)
            if id == taker { record.previousJobs = [holder] }
            try store.save(&record)
        }
        let temporary = { (tag: String, name: String) in PartialOutput(directory: h.outbox, filename: name, tag: tag).path }
        let over = [temporary(done, "a.mp4"), temporary(failed, "b.dropcut.json"), temporary(abandoned, "c.mp4"), temporary(holder, "d.mp4")]
        let kept = [temporary(stranger, "e.mp4"), (h.outbox as NSString).appendingPathComponent("f.mp4")]
        for path in over + kept { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        // A ladder's temporary folder goes whole.
        let ladder = temporary(done, "clip")
        try FileManager.default.createDirectory(atPath: ladder + "/240p", withIntermediateDirectories: true)
        // The abandoned job lost its claim more than a lease ago.
        DaemonHarness.sleepBlocking(1.2)

        let result = try await h.runOnce()

        #expect(result.status == 0, "\(result.stderr)")
        for path in over + [ladder] { #expect(!FileManager.default.fileExists(atPath: path), "\(path) left: \(result.stderr)") }
        for path in kept { #expect(FileManager.default.fileExists(atPath: path), "\(path) removed") }
        #expect(result.stderr.contains("removed 5 temporary file(s) of jobs that are over"), "\(result.stderr)")
    }
}
