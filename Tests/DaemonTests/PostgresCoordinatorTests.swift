import Foundation
import Logging
import Synchronization
import Testing
import TestSupport
@testable import DropcutDaemon

/// The coordinator's decisions on a real PostgreSQL, several hosts at once (each a
/// connection of its own, on threads of their own): every clip claimed once, leases
/// judged by the database's clock, a taken-over holder's steps refused, one name one job.
@Suite(.tags(.slow)) struct PostgresCoordinatorTests {
    static func coordinator(_ server: PostgresServer, host: String) throws -> PostgresCoordinator {
        PostgresCoordinator(conninfo: server.conninfo, target: host, host: host, timeout: .seconds(5))
    }

    static func migrated() async throws -> PostgresServer {
        let server = try await PostgresServer()
        try CoordinatorSchema.migrate(try PostgresConnection(conninfo: server.conninfo, target: "setup"), host: "setup")
        return server
    }

    final class Log: Sendable {
        let claims = Mutex<[(host: String, job: String, start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([])
    }

    /// 3 hosts list the same 300 clips (each offers every one: duplicates are refused by
    /// the clip's key), then 3 hosts × 3 workers claim until nothing is left: each clip
    /// once, every host some, and claims that overlapped in time (the race happened).
    @Test func threeHostsClaimEachClipOnce() async throws {
        let server = try await Self.migrated()
        let clips = (0..<300).map { PostgresCoordinator.Clip(folder: "f", name: "clip\($0).mp4", size: Int64(1000 + $0), modifiedNanoseconds: 7) }
        let offered = try await withThrowingTaskGroup(of: Int.self) { group in
            for host in ["a", "b", "c"] {
                group.addTask {
                    try await OwnThread.run {
                        let coordinator = try Self.coordinator(server, host: host)
                        return try clips.filter { try coordinator.offer($0, job: "\(host)-\($0.name)") }.count
                    }
                }
            }
            var total = 0
            for try await n in group { total += n }
            return total
        }
        #expect(offered == 300, "\(offered) rows for 300 clips")

        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in ["a", "b", "c"] {
                for _ in 0..<3 {
                    group.addTask {
                        try await OwnThread.run {
                            let coordinator = try Self.coordinator(server, host: host)
                            while true {
                                let start = ContinuousClock.now
                                guard let held = try coordinator.claimOldest(in: "f", lease: .seconds(30)) else { return }
                                log.claims.withLock { $0.append((host, held.job, start, ContinuousClock.now)) }
                                try coordinator.begin(step: "publish", of: held)
                                try coordinator.finish(held, as: "done")
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let claims = log.claims.withLock { $0 }
        #expect(claims.count == 300)
        #expect(Set(claims.map(\.job)).count == 300, "a clip was claimed twice")
        let byHost = Dictionary(grouping: claims, by: \.host).mapValues(\.count)
        #expect(byHost.count == 3 && byHost.values.allSatisfy { $0 > 0 }, "claims by host: \(byHost)")
        let sorted = claims.sorted { $0.start < $1.start }
        let overlapping = zip(sorted, sorted.dropFirst()).filter { $0.1.start < $0.0.end }.count
        #expect(overlapping > 0, "no two claims overlapped: the race did not happen")
        let counts = try Self.coordinator(server, host: "check").counts(in: "f")
        #expect(counts == ["done": 300], "\(counts)")
    }

    /// A lease runs out by the database's clock: before that nobody takes the job over;
    /// after, one host does (its epoch moves on) and the old holder's renewal, steps,
    /// reservations and end are refused.
    @Test func anExpiredLeaseIsTakenOverOnceAndTheOldHolderFenced() async throws {
        let server = try await Self.migrated()
        let a = try Self.coordinator(server, host: "a"), b = try Self.coordinator(server, host: "b"), c = try Self.coordinator(server, host: "c")
        try a.offer(.init(folder: "f", name: "clip.mp4", size: 1, modifiedNanoseconds: 1), job: "job-1")
        let held = try #require(try a.claimOldest(in: "f", lease: .milliseconds(700)))
        #expect(held.epoch == 1)
        #expect(try b.takeOverExpired(in: "f", lease: .seconds(30)) == nil, "taken over before its lease ran out")
        try a.begin(step: "render", of: held)
        try a.store(record: #"{"id": "job-1", "state": "rendering"}"#, for: held)
        let lease = try #require(try a.farm().first { $0.job == "job-1" })
        #expect(lease.host == "a" && lease.state == "claimed" && (lease.leaseLeft ?? 0) > 0 && (lease.leaseLeft ?? 9) <= 0.7, "\(lease)")
        try await Task.sleep(for: .milliseconds(900))
        #expect((try a.farm().first { $0.job == "job-1" }?.leaseLeft ?? 0) < 0, "the lease has not run out by the database's clock")
        do {
            try a.begin(step: "publish", of: held)
            Issue.record("a step was allowed after the lease ran out")
        } catch let refusal as PostgresCoordinator.Refusal {
            #expect(refusal == .leaseExpired(job: "job-1"))
        }
        // Two hosts reach for it at once: one gets it.
        async let fromB = OwnThread.run { try b.takeOverExpired(in: "f", lease: .seconds(30)) }
        async let fromC = OwnThread.run { try c.takeOverExpired(in: "f", lease: .seconds(30)) }
        let (tookB, tookC) = (try await fromB, try await fromC)
        let takers = [tookB, tookC].compactMap { $0 }
        #expect(takers.count == 1)
        let taker = try #require(takers.first)
        let takerCoordinator = tookB != nil ? b : c
        #expect(taker.epoch == 2 && taker.step == "render", "\(taker)")
        #expect(taker.record?.contains("\"rendering\"") == true, "the taker did not get the holder's record: \(taker.record ?? "nil")")
        for attempt in [{ try a.renew(held, lease: .seconds(30)) }, { try a.begin(step: "publish", of: held) },
                        { _ = try a.reserve(name: "clip.mp4", in: "/out", for: held) }, { try a.finish(held, as: "done") },
                        { try a.store(record: "{}", for: held) }] {
            do {
                try attempt()
                Issue.record("the old holder was let through")
            } catch let refusal as PostgresCoordinator.Refusal {
                #expect(refusal == .epochMoved(job: "job-1", held: 1))
            }
        }
        try takerCoordinator.begin(step: "publish", of: taker)
        #expect(try takerCoordinator.reserve(name: "clip.mp4", in: "/out", for: taker))
        try takerCoordinator.finish(taker, as: "done")
        let ended = try #require(try a.farm().first { $0.job == "job-1" })
        #expect(ended.state == "done" && ended.leaseLeft == nil && ended.host == takerCoordinator.host, "\(ended)")
    }

    /// A job's row lost with its table (dropped, made again): its holder puts it back as its
    /// own claim, under the epoch it holds — unless the database has the job, its claim or
    /// its clip in a row already (taken over, or its clip given back): then it is refused.
    @Test func aLostRowIsPutBackByItsHolderOnlyWhenNobodyHasTheJob() async throws {
        let server = try await Self.migrated()
        let a = try Self.coordinator(server, host: "a"), b = try Self.coordinator(server, host: "b")
        let clip = PostgresCoordinator.Clip(folder: "f", name: "clip.mp4", size: 5, modifiedNanoseconds: 9)
        try a.offer(clip, job: "job-1")
        let held = try #require(try a.claimOldest(in: "f", lease: .seconds(30), claim: "claim-1"))
        let setup = try PostgresConnection(conninfo: server.conninfo, target: "setup")
        try setup.execute("DROP TABLE dropcut_jobs CASCADE")
        #expect(try a.migrate().recreated != nil)
        do {
            try a.renew(held, lease: .seconds(30))
            Issue.record("a renewal of a row that is gone succeeded")
        } catch let refusal as PostgresCoordinator.Refusal {
            #expect(refusal == .epochMoved(job: "job-1", held: held.epoch))
        }
        #expect(try a.adopt(held, clip: clip, lease: .seconds(30), record: #"{"state": "rendering"}"#))
        try a.renew(held, lease: .seconds(30))
        try a.begin(step: "publish", of: held)
        let row = try #require(try b.farm().first { $0.job == "job-1" })
        #expect(row.host == "a" && row.epoch == held.epoch && row.state == "claimed" && row.step == "rendering", "\(row)")
        // Put back once: a second holder of the same claim, or of the same clip, is refused.
        var other = held
        other.job = "job-2"
        #expect(try !b.adopt(other, clip: PostgresCoordinator.Clip(folder: "f", name: "else.mp4", size: 1, modifiedNanoseconds: 1),
                             lease: .seconds(30), record: nil), "the claim is job-1's")
        other.claim = "claim-2"
        #expect(try !b.adopt(other, clip: clip, lease: .seconds(30), record: nil), "the clip is job-1's")
        #expect(try !b.adopt(held, clip: clip, lease: .seconds(30), record: nil), "the job has its row")
    }

    /// An error the server answers carries its SQLSTATE and its one-line message; a notice
    /// or warning it sends goes to the connection's receiver (libpq would print it on
    /// stderr).
    @Test func serverErrorsCarryTheirSQLStateAndNoticesGoToTheReceiver() async throws {
        let server = try await Self.migrated()
        let received = Mutex<[PostgresConnection.Notice]>([])
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "t", notices: { notice in received.withLock { $0.append(notice) } })
        do {
            try connection.query("SELECT * FROM no_such_table")
            Issue.record("a missing table answered")
        } catch {
            #expect(error.sqlState == "42P01" && error.isMissingSchema && error.isServerError)
            #expect(error.serverMessage == #"relation "no_such_table" does not exist"#, "\(String(describing: error.serverMessage))")
        }
        try connection.execute("DO $$ BEGIN RAISE WARNING 'dropcut test warning'; RAISE NOTICE 'dropcut test notice'; END $$")
        let notices = received.withLock { $0 }
        #expect(notices == [PostgresConnection.Notice(severity: "WARNING", sqlState: "01000", message: "dropcut test warning"),
                            PostgresConnection.Notice(severity: "NOTICE", sqlState: "00000", message: "dropcut test notice")], "\(notices)")
    }

    /// A holder's record goes to the database with its renewals and fences (`DatabaseLeases`),
    /// and a taker reads it back as the holder stored it, range-checked; a clip listed
    /// again after its job ended is queued again, under the row it had.
    @Test func aHoldersRecordReachesItsTaker() async throws {
        let server = try await Self.migrated()
        let a = try Self.coordinator(server, host: "a"), b = try Self.coordinator(server, host: "b")
        let leases = DatabaseLeases(database: a, owner: HostIdentity(host: "a", machineID: "m", bootID: "b", pid: 1),
                                    leaseTimeout: .milliseconds(600), logger: Logger(label: "test"))
        let clip = PostgresCoordinator.Clip(folder: "f", name: "clip.mp4", size: 5, modifiedNanoseconds: 9)
        #expect(try a.offer([(clip, JobRecord.newID())]) == 1)
        #expect(try a.offer([(clip, JobRecord.newID())]) == 0, "a clip listed again while queued is one job")
        let claimID = JobRecord.newID()
        let held = try #require(try a.claimOldest(in: "f", lease: .milliseconds(600), claim: claimID, among: ["other.mp4", "clip.mp4"]))
        #expect(held.claim == claimID && held.epoch == 1)
        var record = JobRecord(id: claimID, folder: "f", input: "clip.mp4", sidecars: ["clip.yaml"], state: .rendering)
        record.farmJob = held.job
        record.epoch = held.epoch
        record.attempts = 1
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/x/.clip.dropcut.partial-\(claimID).mp4", inode: UInt64.max)
        #expect(try leases.hold(record, name: record.claim, claimedDirectory: "/x") == .renamed)
        leases.update(record)
        #expect(leases.renew(logger: Logger(label: "test")).isEmpty)
        try await Task.sleep(for: .milliseconds(800))
        let taken = try #require(try b.takeOverExpired(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        #expect(taken.previousClaim == claimID && taken.epoch == 2)
        let read = try #require(taken.record.flatMap(JobStore.record(json:)), "\(taken.record ?? "no record")")
        var expected = record
        (expected.claimedAt, expected.updatedAt) = (read.claimedAt, read.updatedAt)   // ISO 8601: whole seconds
        #expect(read == expected)
        // The old holder's fence is refused, and its render would be cancelled.
        do {
            _ = try leases.fence(&record, claimedDirectory: "/x", before: .publish)
            Issue.record("a taken-over holder's fence passed")
        } catch let failure as JobFailure {
            guard case .lost = failure else { Issue.record("\(failure)"); return }
        }
        #expect(leases.lostReason(claimID) != nil)
        try b.finish(taken, as: "done")
        try await Task.sleep(for: .milliseconds(20))
        #expect(try a.offer([(clip, JobRecord.newID())], endedFor: .milliseconds(10)) == 1)
        let again = try #require(try a.claimOldest(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        #expect(again.job == held.job && again.epoch == 3)
    }

    /// Each step of a commit stores the record in the claim's row at once (`store`: no
    /// renewal needed), and this host restarted with its state folder's record lost reads
    /// it back (`ownCopy`) — only from a claimed row naming that claim, held under this
    /// host's name, its record of that job, epoch and a configured folder, range-checked:
    /// none for another host, a folder not configured, a record out of range, or once
    /// another host took the job over (whereupon the old holder's store is refused).
    @Test func aCommitStepIsStoredAtOnceAndOnlyItsHostResumesFromIt() async throws {
        let server = try await Self.migrated()
        // As the daemon makes them: the row's holder is the host's description.
        let holder = HostIdentity(host: "a", machineID: "m", bootID: "b", pid: 1)
        let restarted = HostIdentity(host: "a", machineID: "m", bootID: "b", pid: 2)
        let leases = { (owner: HostIdentity) throws in
            DatabaseLeases(database: try Self.coordinator(server, host: owner.description), owner: owner,
                           leaseTimeout: .milliseconds(600), logger: Logger(label: "test"))
        }
        let a = try leases(holder)
        let folder = FolderConfig(name: "f", inbox: "/x/in", outbox: "/x/out", failed: "/x/failed")
        let clip = PostgresCoordinator.Clip(folder: "f", name: "clip.mp4", size: 5, modifiedNanoseconds: 9)
        #expect(try a.database.offer([(clip, JobRecord.newID())]) == 1)
        let claimID = JobRecord.newID()
        let held = try #require(try a.database.claimOldest(in: "f", lease: .milliseconds(600), claim: claimID))
        var record = JobRecord(id: claimID, folder: "f", input: "clip.mp4", sidecars: [], state: .committing)
        record.farmJob = held.job
        record.epoch = held.epoch
        #expect(try a.hold(record, name: record.claim, claimedDirectory: "/x/in/.dropcut/claimed") == .renamed)

        // A step of the commit: in the row before `store` returns, no renewal between.
        record.setSuffix = 0
        try a.store(record)
        let stored = try #require(try a.database.storedRecord(of: held.job).flatMap(JobStore.record(json:)))
        #expect(stored.setSuffix == 0 && stored.state == .committing)

        let copy = try #require(try leases(restarted).ownCopy(of: claimID, folders: [folder]))
        #expect(copy.record.id == claimID && copy.record.setSuffix == 0 && copy.record.epoch == held.epoch && copy.record.farmJob == held.job)
        #expect(copy.source == "the copy the coordinator holds")
        #expect(try leases(HostIdentity(host: "b", machineID: "m", bootID: "b", pid: 3)).ownCopy(of: claimID, folders: [folder]) == nil,
                "another host's claim")
        #expect(try leases(restarted).ownCopy(of: claimID, folders: []) == nil, "a folder not configured")
        #expect(try leases(restarted).ownCopy(of: JobRecord.newID(), folders: [folder]) == nil, "no row names that claim")
        // A record out of range in the row (its epoch): not a copy to resume from.
        let setup = try PostgresConnection(conninfo: server.conninfo, target: "setup")
        try setup.execute("UPDATE dropcut_jobs SET record = jsonb_set(record, '{epoch}', '0') WHERE id = $1", [held.job])
        #expect(try leases(restarted).ownCopy(of: claimID, folders: [folder]) == nil)
        try setup.execute("UPDATE dropcut_jobs SET record = jsonb_set(record, '{epoch}', $2::jsonb) WHERE id = $1",
                          [held.job, String(held.epoch)])
        #expect(try leases(restarted).ownCopy(of: claimID, folders: [folder]) != nil)

        // Taken over: the old holder's store is refused, and the claim is no longer its.
        try await Task.sleep(for: .milliseconds(800))
        let b = try Self.coordinator(server, host: "b (pid 3)")
        let taken = try #require(try b.takeOverExpired(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        #expect(taken.previousClaim == claimID)
        do {
            record.setSuffix = 1
            try a.store(record)
            Issue.record("a taken-over holder's record was stored")
        } catch let failure as JobFailure {
            guard case .lost = failure else { Issue.record("\(failure)"); return }
        }
        #expect(try b.storedRecord(of: held.job).flatMap(JobStore.record(json:))?.setSuffix == 0)
        #expect(try leases(restarted).ownCopy(of: claimID, folders: [folder]) == nil)
    }

    /// A holder archived its clip and removed its claim folder while the database was away,
    /// so its end never reached it; its lease ran out and another host took the job over.
    /// The taker finds no claim folder and, from the archive step the holder recorded, ends
    /// the job done — not missing, and nothing rendered again. A job taken over before its
    /// holder moved the clip into its folder is claimed from the inbox instead.
    @Test func aTakerEndsAJobItsHolderFinishedUnheard() async throws {
        let server = try await Self.migrated()
        let a = try Self.coordinator(server, host: "a"), b = try Self.coordinator(server, host: "b")
        let dir = try TemporaryDirectory()
        let folder = FolderConfig(name: "f", inbox: dir.file("in"), outbox: dir.file("out"), failed: dir.file("failed"))
        for path in [folder.claimedDirectory, folder.outbox, folder.failed] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let leases = DatabaseLeases(database: b, owner: HostIdentity(host: "b", machineID: "m", bootID: "b", pid: 2),
                                    leaseTimeout: .seconds(30), logger: Logger(label: "b"))
        let runner = JobRunner(store: JobStore(stateDirectory: dir.file("state-b")), logger: Logger(label: "b"), keeper: leases,
                               metrics: DaemonMetrics(version: "test", workers: 1))
        try runner.store.prepare()

        // Archived unheard: the record at the archive fence says committed.
        try a.offer([(PostgresCoordinator.Clip(folder: "f", name: "done.mp4", size: 1, modifiedNanoseconds: 1), JobRecord.newID())])
        let heldA = try #require(try a.claimOldest(in: "f", lease: .milliseconds(300), claim: JobRecord.newID()))
        var record = JobRecord(id: heldA.claim ?? "", folder: "f", input: "done.mp4", sidecars: [], state: .committed)
        record.farmJob = heldA.job
        record.epoch = heldA.epoch
        try a.begin(step: "archive", of: heldA, record: JobStore.json(record))
        try await Task.sleep(for: .milliseconds(500))
        let taken = try #require(try b.takeOverExpired(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        guard case let .removed(why) = try runner.takeOver(TakeoverCandidate(taken, lease: .seconds(30)), folder: folder) else {
            Issue.record("the finished job was resumed")
            return
        }
        #expect(why.contains("finished the job (done)"), "\(why)")
        #expect(try a.counts(in: "f") == ["done": 1])

        // Taken over before its holder moved the clip: claimed from the inbox, rendered.
        try Data("clip".utf8).write(to: URL(fileURLWithPath: (folder.inbox as NSString).appendingPathComponent("late.mp4")))
        try a.offer([(PostgresCoordinator.Clip(folder: "f", name: "late.mp4", size: 4, modifiedNanoseconds: 1), JobRecord.newID())])
        _ = try #require(try a.claimOldest(in: "f", lease: .milliseconds(300), claim: JobRecord.newID()))
        try await Task.sleep(for: .milliseconds(500))
        let late = try #require(try b.takeOverExpired(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        guard case let .resume(resumed) = try runner.takeOver(TakeoverCandidate(late, lease: .seconds(30)), folder: folder) else {
            Issue.record("the clip still in the inbox was not taken up")
            return
        }
        #expect(resumed.state == .claimed && resumed.epoch == 2 && resumed.id == late.claim)
        #expect(FileManager.default.fileExists(atPath: runner.claimedPath(resumed, folder, "late.mp4")))
        #expect(try a.counts(in: "f") == ["done": 1, "claimed": 1])

        // Taken over between its holder's folder and its clip's move: the clip comes in.
        try Data("clip".utf8).write(to: URL(fileURLWithPath: (folder.inbox as NSString).appendingPathComponent("mid.mp4")))
        try a.offer([(PostgresCoordinator.Clip(folder: "f", name: "mid.mp4", size: 4, modifiedNanoseconds: 1), JobRecord.newID())])
        let mid = try #require(try a.claimOldest(in: "f", lease: .milliseconds(300), claim: JobRecord.newID()))
        try FileManager.default.createDirectory(atPath: (folder.claimedDirectory as NSString).appendingPathComponent(mid.claim ?? ""),
                                                withIntermediateDirectories: false)
        try await Task.sleep(for: .milliseconds(500))
        let midTaken = try #require(try b.takeOverExpired(in: "f", lease: .seconds(30), claim: JobRecord.newID()))
        guard case let .resume(midResumed) = try runner.takeOver(TakeoverCandidate(midTaken, lease: .seconds(30)), folder: folder) else {
            Issue.record("the clip left in the inbox was not taken up")
            return
        }
        #expect(midResumed.state == .claimed, "\(midResumed.error ?? "")")
        #expect(FileManager.default.fileExists(atPath: runner.claimedPath(midResumed, folder, "mid.mp4")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.failed).isEmpty)
    }

    /// Two hosts reserve the same 40 names at once: each name goes to one job; the job
    /// that has a name keeps it when it asks again (a step rerun after a crash).
    @Test func eachOutputNameGoesToOneJob() async throws {
        let server = try await Self.migrated()
        let a = try Self.coordinator(server, host: "a"), b = try Self.coordinator(server, host: "b")
        try a.offer(.init(folder: "f", name: "x.mp4", size: 1, modifiedNanoseconds: 1), job: "job-a")
        try a.offer(.init(folder: "f", name: "y.mp4", size: 2, modifiedNanoseconds: 1), job: "job-b")
        let heldA = try #require(try a.claimOldest(in: "f", lease: .seconds(30)))
        let heldB = try #require(try b.claimOldest(in: "f", lease: .seconds(30)))
        let names = (0..<40).map { "out\($0).mp4" }
        async let winsA = OwnThread.run { try names.filter { try a.reserve(name: $0, in: "/out", for: heldA) } }
        async let winsB = OwnThread.run { try names.filter { try b.reserve(name: $0, in: "/out", for: heldB) } }
        let (forA, forB) = (try await winsA, try await winsB)
        #expect(Set(forA).isDisjoint(with: forB), "a name was given to both jobs")
        #expect(Set(forA).union(forB) == Set(names))
        for name in forA { #expect(try a.reserve(name: name, in: "/out", for: heldA)) }
        for name in forB { #expect(try !a.reserve(name: name, in: "/out", for: heldA)) }
    }

    /// The database restarted as after a crash, then paused: the statement in flight fails
    /// (within the statement timeout, not hanging), and the next one after the server is
    /// back reconnects and finds everything committed before.
    @Test func aRestartedOrPausedDatabaseCostsStatementsNotTheCoordinator() async throws {
        let server = try await Self.migrated()
        let a = PostgresCoordinator(conninfo: server.conninfo, target: "a", host: "a", timeout: .seconds(1))
        try a.offer(.init(folder: "f", name: "one.mp4", size: 1, modifiedNanoseconds: 1), job: "job-1")
        let held = try #require(try a.claimOldest(in: "f", lease: .seconds(60)))

        try server.restartImmediately()
        var failures = 0
        for attempt in 0..<2 {
            do {
                try a.renew(held, lease: .seconds(60))
                break
            } catch {
                failures += 1
                #expect(attempt == 0, "still failing after a reconnect: \(error)")
            }
        }
        #expect(failures <= 1)
        #expect(try a.counts(in: "f") == ["claimed": 1], "the claim made before the restart is kept")

        server.pause()
        let began = ContinuousClock.now
        do {
            try a.begin(step: "publish", of: held)
            Issue.record("a statement to a paused server returned")
        } catch {
            #expect("\(error)".contains("did not answer within"), "\(error)")
        }
        let waited = ContinuousClock.now - began
        #expect(waited >= .milliseconds(900) && waited < .seconds(5), "failed after \(waited)")
        server.resume()
        try a.begin(step: "publish", of: held)
        try a.finish(held, as: "done")
        #expect(try a.counts(in: "f") == ["done": 1])
    }
}

/// The coordinator's row readers on random rows (short, NULLs, garbage numbers): a value
/// or nil, never a trap.
@Suite struct CoordinatorRowFuzzTests {
    @Test func rowsAreReadOrRefused() {
        var random = SplitMix64(state: 33)
        let pieces: [String?] = [nil, "", "1", "-1", "9223372036854775808", "1e309", "nan", "inf", "job", "0x10", "\u{0}", "claimed",
                                 "rendering", "-5000", "host (pid 1)"]
        for _ in 0..<20_000 {
            let row = (0..<Int(random.next() % 12)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
            if let held = PostgresCoordinator.held(row) {
                #expect(!held.job.isEmpty || row[0] == "")
                #expect((held.expiredMilliseconds ?? 0) >= 0, "a lease expired a negative time ago: \(row)")
            }
            if let farm = PostgresCoordinator.farmJob(row) {
                #expect(farm.leaseLeft.map(\.isFinite) ?? true)
                #expect(farm.step.map { JobRecord.State(rawValue: $0) != nil } ?? true, "\(row)")
            }
            _ = CoordinatorSchema.integers([row])
        }
        #expect(PostgresCoordinator.held(["j", "f", "c", "3", nil, nil])?.epoch == 3)
        #expect(PostgresCoordinator.held(["j", "f", "c", "x", nil, nil]) == nil)
        #expect(PostgresCoordinator.farmJob(["j", "f", "c", "claimed", "h", "2", "inf"])?.leaseLeft == nil)
    }

    /// Another host's record as the coordinator stored it, mutated: read and range-checked
    /// as a record from the state folder, or refused with a reason — never a trap, and
    /// never a record out of range.
    @Test func storedRecordsAreReadOrRefused() throws {
        var record = JobRecord(id: "20261127T010000Z-0123456789ab", folder: "social", input: "clip.mp4", sidecars: ["clip.yaml"],
                               state: .committing)
        record.farmJob = "20261127T005959Z-00000000abcd"
        record.epoch = 3
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/srv/outbox/.clip.dropcut.partial-20261127T010000Z-0123456789ab.mp4", inode: 77)
        let seed = Array(JobStore.json(record).utf8)
        #expect(try JobStore.reading(json: String(decoding: seed, as: UTF8.self)).get().epoch == 3)
        let alphabet = Array("\"\\/.{}[]:,-0123456789eE+ nulltruex2F".utf8) + [0, 0xFF]
        var random = SplitMix64(state: 41)
        var read = 0, refused = 0
        for _ in 0..<4000 {
            var bytes = seed
            for _ in 0..<(1 + Int(random.next() % 6)) {
                let at = Int(random.next() % UInt64(bytes.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes[at] = byte
                case 1: bytes.insert(byte, at: at)
                default: bytes.remove(at: at)
                }
            }
            switch JobStore.reading(json: String(decoding: bytes, as: UTF8.self)) {
            case let .success(found):
                read += 1
                #expect(found.problem(in: "test") == nil)
                #expect(found.epoch.map { (1...JobRecord.maximumEpoch).contains($0) } ?? true)
            case let .failure(missing):
                refused += 1
                #expect(!missing.reason.isEmpty)
            }
        }
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
        // Out of range where it is read: an epoch past the bound, a farm job that is no id.
        var bad = record
        bad.epoch = 0
        #expect(throws: MissingRecord.self) { try JobStore.reading(json: JobStore.json(bad)).get() }
        bad = record
        bad.farmJob = "../x"
        #expect(throws: MissingRecord.self) { try JobStore.reading(json: JobStore.json(bad)).get() }
    }
}
