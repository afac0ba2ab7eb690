import Foundation
import Logging
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport

/// A claim taken over from a holder in each state it can leave one in, on a real
/// filesystem: the taker resumes from the lease's record as crash recovery does (never
/// rendering a finished output again), and the holder, fenced, publishes and moves nothing.
@Suite struct TakeoverTests {
    /// One inbox with its folders, and a daemon's parts (record store, leases, runner).
    struct Host {
        let runner: JobRunner
        let store: JobStore
        init(_ name: String, in dir: TemporaryDirectory) throws {
            store = JobStore(stateDirectory: dir.file("state-\(name)"))
            try store.prepare()
            let owner = HostIdentity(host: name, machineID: String(repeating: "c", count: 32),
                                     bootID: String(repeating: "d", count: 32), pid: getpid())
            runner = JobRunner(store: store, logger: Logger(label: name), keeper: LeaseKeeper(owner: owner), metrics: DaemonMetrics(version: "test", workers: 1))
        }
    }

    let dir: TemporaryDirectory
    let folder: FolderConfig
    let a: Host, b: Host
    let aID = "20261123T114124Z-aaaaaaaaaaaa", bID = "20261123T114130Z-bbbbbbbbbbbb"

    init() throws {
        dir = try TemporaryDirectory()
        folder = FolderConfig(name: "social", inbox: dir.file("inbox"), outbox: dir.file("outbox"), failed: dir.file("failed"),
                              archive: dir.file("archive"))
        for path in [folder.claimedDirectory, folder.outbox, folder.failed, dir.file("archive")] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        a = try Host("host-a", in: dir)
        b = try Host("host-b", in: dir)
    }

    /// Host A's job on `clip.mov`, in `state`, its claim folder made and its lease held
    /// (`fences` fences passed); with `rendered`, a finished temporary output in the outbox.
    func holderJob(_ state: JobRecord.State, fences: Int = 0, rendered: Bool = false) throws -> JobRecord {
        var record = JobRecord(id: aID, folder: folder.name, input: "clip.mov", sidecars: [], state: state)
        record.attempts = 1
        if fences > 0 { record.claimName = ClaimName(job: aID, fences: fences).description }
        let claim = (folder.claimedDirectory as NSString).appendingPathComponent(record.claim.description)
        try FileManager.default.createDirectory(atPath: claim, withIntermediateDirectories: true)
        try "the clip".write(toFile: (claim as NSString).appendingPathComponent("clip.mov"), atomically: true, encoding: .utf8)
        if rendered {
            let temporary = PartialOutput(directory: folder.outbox, filename: "clip.dropcut.mp4", tag: aID).path
            try "the render".write(toFile: temporary, atomically: true, encoding: .utf8)
            var info = stat()
            stat(temporary, &info)
            record.recordSingleOutput("clip.dropcut.mp4", temporary: temporary, inode: UInt64(info.st_ino))
        }
        try a.store.save(&record)
        #expect(try a.runner.keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .renamed)
        return record
    }

    /// A's claim as another host sees it (its lease read; expired or not is the caller's word).
    func sighting() throws -> ClaimObserver.Sighting {
        var observer = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: .seconds(60))
        return try #require(observer.observe().first)
    }

    func visible(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func aHolderWhoseClaimWasTakenPublishesArchivesAndFailsNothing() async throws {
        var record = try holderJob(.committing, rendered: true)
        #expect(try ClaimTakeover.attempt(try sighting(), in: folder.claimedDirectory, as: bID))

        // Its output is complete, but the fence before publishing fails.
        await #expect(throws: JobFailure.self) {
            try await a.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        }
        #expect(visible(folder.outbox) == [], "nothing published")
        // Nor does it move the clip to failed/, which another host now holds.
        #expect(throws: JobFailure.self) { try a.runner.fail(&record, folder: folder, failure: .permanent("bad", errno: nil)) }
        #expect(visible(folder.failed) == [] && visible(dir.file("archive")) == [])
        #expect(visible((folder.claimedDirectory as NSString).appendingPathComponent(bID)) == ["clip.mov"])

        // A committed holder (its output out) does not archive the taker's clip either.
        var committed = record
        committed.store(in: .committed)
        await #expect(throws: JobFailure.self) {
            try await a.runner.resume(&committed, folder: folder, limits: WorkerLimits()) { _ in }
        }
        #expect(visible(dir.file("archive")) == [])
    }

    /// The holder fenced and then stalled with its output finished: the taker takes that
    /// file (renamed to its own name first, so a holder still about to link it finds it
    /// gone) and publishes it once — nothing is rendered again.
    @Test func aTakerPublishesACommittingHoldersOutputOnce() async throws {
        let holder = try holderJob(.committing, fences: 1, rendered: true)
        let outcome = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder)
        guard case var .resume(record) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(record.state == .committing && record.previousJobs == [aID])
        #expect(record.deliverables?.first?.temporary == PartialOutput(directory: folder.outbox, filename: "clip.dropcut.mp4", tag: record.id).path)
        let theirs = try #require(holder.deliverables?.first?.temporary)
        #expect(link(theirs, (folder.outbox as NSString).appendingPathComponent("late.mp4")) == -1 && errno == ENOENT,
                "the holder's late link finds its file gone")

        try await b.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(record.state == .done)
        #expect(visible(folder.outbox) == ["clip.dropcut.mp4"])
        #expect(try String(contentsOfFile: (folder.outbox as NSString).appendingPathComponent("clip.dropcut.mp4"), encoding: .utf8)
                == "the render")
        #expect(visible(dir.file("archive")) == ["clip.mov"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.outbox).count == 1, "no temporary file left")
    }

    /// The holder wrote its output through another view of the share (its own mount point,
    /// where inodes read differently): the taker finds it by its name, which carries the
    /// holder's job id, and publishes it once.
    @Test func aTakerFindsTheHoldersOutputThroughAnotherViewOfTheShare() async throws {
        var holder = try holderJob(.committing, fences: 1, rendered: true)
        let name = (try #require(holder.deliverables?.first?.temporary) as NSString).lastPathComponent
        holder.recordSingleOutput("clip.dropcut.mp4", temporary: "/mnt/elsewhere/outbox/" + name, inode: 123_456_789)
        a.runner.keeper.update(holder)
        guard case var .resume(record) = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(record.state == .committing)
        try await b.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.outbox) == ["clip.dropcut.mp4"])
        #expect(visible(dir.file("archive")) == ["clip.mov"])
    }

    /// A holder that published its output before it went away: the taker only archives.
    @Test func aTakerOfACommittedClaimOnlyArchives() async throws {
        var holder = try holderJob(.committing, fences: 2, rendered: true)
        let published = try DurableFiles.linkUnique(try #require(holder.deliverables?.first?.temporary), into: folder.outbox, name: "clip.dropcut.mp4")
        holder.store(in: .committed)
        holder.output = published
        holder.recordSingleOutput("clip.dropcut.mp4", temporary: nil, inode: holder.deliverables?.first?.inode, published: published)
        a.runner.keeper.update(holder)
        guard case var .resume(record) = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(record.state == .committed && record.output == published)
        try await b.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(visible(folder.outbox) == ["clip.dropcut.mp4"])
        #expect(visible(dir.file("archive")) == ["clip.mov"])
    }

    /// What the holder's renders left in the outbox and the taker did not take is removed
    /// at the takeover (its claim is the taker's now); another job's temporary file stays.
    @Test func aTakerRemovesTheHoldersLeftoversAndNoOneElses() throws {
        _ = try holderJob(.committed)
        let stray = PartialOutput(directory: folder.outbox, filename: "clip.poster.png", tag: aID).path
        let strangers = PartialOutput(directory: folder.outbox, filename: "other.mp4", tag: "20261123T114200Z-cccccccccccc").path
        for path in [stray, strangers] { try "left".write(toFile: path, atomically: true, encoding: .utf8) }
        guard case .resume = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(FileManager.default.fileExists(atPath: strangers))
    }

    /// Mid-render: the render ran in the holder's worker, so the holder's death is no
    /// strike against the clip (the attempt is given back, and noted), the holder's
    /// partial output goes, and it renders again.
    @Test func aTakerOfARenderingClaimGivesTheAttemptBackAndRendersAgain() throws {
        var holder = try holderJob(.rendering, rendered: true)
        holder.deliverables?[0].inode = nil
        a.runner.keeper.update(holder)
        guard case let .resume(record) = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(record.state == .claimed && record.attempts == 0 && record.deliverables == nil)
        #expect(record.history == ["attempt 1: interrupted: host-a (pid \(getpid())) stopped renewing its lease while its worker was rendering (not counted against the clip)"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.outbox) == [], "the holder's partial output removed")
        // Its lease now names the taker, with the record it resumes from.
        var observer = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: .seconds(60))
        let lease = try #require(observer.observe().first?.lease)
        #expect(lease.owner.host == "host-b" && lease.job == record.id && lease.record.previousJobs == [aID])
        #expect(b.store.all().map(\.id) == [record.id])
    }

    /// A holder that had decided the clip fails: the taker moves it to failed/ with the
    /// holder's reason.
    @Test func aTakerOfAFailingClaimFailsItWithTheHoldersReason() async throws {
        var holder = try holderJob(.failing, fences: 1)
        holder.error = "clip.mov:3:7: fps must be a number"
        a.runner.keeper.update(holder)
        guard case var .resume(record) = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        try await b.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(visible(folder.failed) == ["clip.mov", "clip.mov.error.txt"])
        let text = try String(contentsOfFile: (folder.failed as NSString).appendingPathComponent("clip.mov.error.txt"), encoding: .utf8)
        #expect(text.contains("Reason: clip.mov:3:7: fps must be a number"), "\(text)")
    }

    /// Without a lease that can be read, what was done with the clip is unknown: it goes
    /// to failed/ with that reason, not rendered a second time.
    @Test func aClaimWithoutAReadableLeaseGoesToTheFailedFolder() async throws {
        _ = try holderJob(.rendering)
        let lease = ClaimLease.path(in: (folder.claimedDirectory as NSString).appendingPathComponent(aID))
        try "{ not json".write(toFile: lease, atomically: true, encoding: .utf8)
        guard case var .resume(record) = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(record.state == .failing)
        try await b.runner.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(visible(folder.failed) == ["clip.mov", "clip.mov.error.txt"])
        let text = try String(contentsOfFile: (folder.failed as NSString).appendingPathComponent("clip.mov.error.txt"), encoding: .utf8)
        #expect(text.contains("taken over from job \(aID)") && text.contains("what was done with it is unknown"), "\(text)")
    }

    /// A holder that died between its lease and moving the clip in left an empty claim.
    @Test func anEmptyClaimIsRemoved() throws {
        var record = JobRecord(id: aID, folder: folder.name, input: "clip.mov", sidecars: [], state: .claiming)
        let claim = (folder.claimedDirectory as NSString).appendingPathComponent(aID)
        try FileManager.default.createDirectory(atPath: claim, withIntermediateDirectories: true)
        try a.store.save(&record)
        #expect(try a.runner.keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .renamed)
        guard case .removed = try b.runner.takeOver(TakeoverCandidate(sighting: try sighting(), age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not removed")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory) == [])
        #expect(b.store.all().isEmpty)
    }

    /// The lease changed after it was judged expired: its holder is alive, nothing is taken.
    @Test func aLeaseRenewedSinceItWasJudgedIsNotTaken() throws {
        _ = try holderJob(.rendering)
        let judged = try sighting()
        #expect(a.runner.keeper.renew(logger: Logger(label: "a")).isEmpty)
        guard case .missed = try b.runner.takeOver(TakeoverCandidate(sighting: judged, age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("taken from a live holder")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory) == [aID])
        #expect(b.store.all().isEmpty)
    }
}
