import Foundation
import Logging
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import DropcutSupport
import TestSupport
import DropcutDigest

/// The events of a job's ends as the runner writes them, on a real filesystem: a claim
/// taken over and finished by its taker announces both, the takeover first; and a step
/// rerun after a crash (event written, record not yet done) keeps the first event.
@Suite struct WebhookTakeoverTests {
    let dir: TemporaryDirectory
    let folder: FolderConfig
    let aID = "20261123T114124Z-aaaaaaaaaaaa"

    init() throws {
        dir = try TemporaryDirectory()
        folder = FolderConfig(name: "social", inbox: dir.file("inbox"), outbox: dir.file("outbox"), failed: dir.file("failed"),
                              archive: dir.file("archive"))
        for path in [folder.claimedDirectory, folder.outbox, folder.failed, dir.file("archive")] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    func runner(_ host: String, webhooks: WebhookOutbox?) throws -> JobRunner {
        let store = JobStore(stateDirectory: dir.file("state-\(host)"))
        try store.prepare()
        let owner = HostIdentity(host: host, machineID: String(repeating: "c", count: 32), bootID: String(repeating: "d", count: 32), pid: getpid())
        var runner = JobRunner(store: store, logger: Logger(label: host), keeper: LeaseKeeper(owner: owner), metrics: DaemonMetrics(version: "test", workers: 1))
        runner.webhooks = webhooks
        return runner
    }

    @Test func aTakenOverJobAnnouncesTheTakeoverThenItsEnd() async throws {
        let a = try runner("host-a", webhooks: nil)
        let endpoint = WebhookConfig(url: "http://127.0.0.1:9/hook", secret: [UInt8](repeating: 1, count: 32))
        let outbox = WebhookOutbox(stateDirectory: dir.file("state-host-b"), endpoints: [endpoint], host: "host-b")
        let b = try runner("host-b", webhooks: outbox)

        // A's job, its output published (committed), its lease left to expire.
        var holder = JobRecord(id: aID, folder: folder.name, input: "clip.mov", sidecars: [], state: .committed)
        holder.attempts = 1
        let claim = (folder.claimedDirectory as NSString).appendingPathComponent(holder.claim.description)
        try FileManager.default.createDirectory(atPath: claim, withIntermediateDirectories: true)
        try "the clip".write(toFile: (claim as NSString).appendingPathComponent("clip.mov"), atomically: true, encoding: .utf8)
        let published = (folder.outbox as NSString).appendingPathComponent("clip.dropcut.mp4")
        try "the render".write(toFile: published, atomically: true, encoding: .utf8)
        holder.output = published
        try a.store.save(&holder)
        #expect(try a.keeper.hold(holder, name: holder.claim, claimedDirectory: folder.claimedDirectory) == .renamed)

        var observer = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: .seconds(60))
        let sighting = try #require(observer.observe().first)
        guard case var .resume(record) = try b.takeOver(TakeoverCandidate(sighting: sighting, age: .seconds(61), leaseTimeout: .seconds(60)), folder: folder) else {
            Issue.record("not resumed")
            return
        }
        #expect(outbox.pending(for: endpoint).events.map(\.id) == ["msg_\(record.id)_taken_over"])
        try await b.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(record.state == .done)

        let events = outbox.pending(for: endpoint).events
        #expect(events.map(\.id) == ["msg_\(record.id)_taken_over", "msg_\(record.id)_done"])
        #expect(events.first?.event.data.previousJob == aID)
        #expect(events.allSatisfy { $0.event.data.host == "host-b" && $0.event.data.input == "clip.mov" })
        // Not a video: listed by its path, size and hash all the same (the probe's fields left out).
        let output = try #require(events.last?.event.data.outputs?.first)
        let hash = try SHA256.hex(ofFile: published)
        #expect(output.path == published && output.bytes == 10 && output.sha256 == hash)
        #expect(output.width == nil && output.duration == nil)
    }

    /// A crash after the event was written and before the record said done: the step runs
    /// again, and the event already written is the one that stays.
    @Test func aRerunStepKeepsTheEventWrittenBeforeTheCrash() async throws {
        let endpoint = WebhookConfig(url: "http://127.0.0.1:9/hook", secret: [UInt8](repeating: 1, count: 32))
        let outbox = WebhookOutbox(stateDirectory: dir.file("state-host-a"), endpoints: [endpoint], host: "host-a")
        let a = try runner("host-a", webhooks: outbox)
        var record = JobRecord(id: aID, folder: folder.name, input: "clip.mov", sidecars: [], state: .committed)
        let claim = (folder.claimedDirectory as NSString).appendingPathComponent(record.claim.description)
        try FileManager.default.createDirectory(atPath: claim, withIntermediateDirectories: true)
        try "the clip".write(toFile: (claim as NSString).appendingPathComponent("clip.mov"), atomically: true, encoding: .utf8)
        record.output = (folder.outbox as NSString).appendingPathComponent("clip.dropcut.mp4")
        try "the render".write(toFile: try #require(record.output), atomically: true, encoding: .utf8)
        try a.store.save(&record)
        #expect(try a.keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .renamed)

        // What the step wrote before the crash (an hour ago, say).
        try outbox.record(job: aID, kind: .done) {
            JobRunner.event(.done, record, folder: folder, host: "host-a", at: Date().addingTimeInterval(-3600))
        }
        let before = try #require(outbox.pending(for: endpoint).events.first)
        try await a.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(record.state == .done)
        #expect(outbox.pending(for: endpoint).events == [before])
    }

    /// The same crash after the event was already delivered (its file removed): the event
    /// written again is byte for byte the first, its time taken from the record.
    @Test func aRerunStepAfterDeliveryWritesTheSameBytesAgain() async throws {
        let endpoint = WebhookConfig(url: "http://127.0.0.1:9/hook", secret: [UInt8](repeating: 1, count: 32))
        let outbox = WebhookOutbox(stateDirectory: dir.file("state-host-a"), endpoints: [endpoint], host: "host-a")
        let a = try runner("host-a", webhooks: outbox)
        var record = JobRecord(id: aID, folder: folder.name, input: "clip.mov", sidecars: [], state: .failing)
        record.error = "clip.mov: is not a video or audio file dropcut can read"
        let claim = (folder.claimedDirectory as NSString).appendingPathComponent(record.claim.description)
        try FileManager.default.createDirectory(atPath: claim, withIntermediateDirectories: true)
        try "the clip".write(toFile: (claim as NSString).appendingPathComponent("clip.mov"), atomically: true, encoding: .utf8)
        try a.store.save(&record)
        #expect(try a.keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .renamed)

        // The step before the crash: the event written (its time recorded), then delivered.
        var before = record
        try a.announce(.failed, &before, folder: folder)
        let first = try #require(outbox.pending(for: endpoint).events.first)
        try outbox.remove(first.path)
        let saved = try #require(a.store.all().first { $0.id == aID })
        #expect(saved.endedAtMilliseconds != nil && saved.endedAtMilliseconds == before.endedAtMilliseconds)

        // The rerun, from the record as saved.
        record = saved
        try await Task.sleep(for: .milliseconds(20))
        try await a.resume(&record, folder: folder, limits: WorkerLimits()) { _ in }
        #expect(record.state == .failed)
        let again = try #require(outbox.pending(for: endpoint).events.first)
        #expect(again.id == first.id && again.body == first.body)
    }
}
