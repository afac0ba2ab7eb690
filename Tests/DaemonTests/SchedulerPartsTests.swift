import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon
import DropcutPipeline
import DropcutSupport

/// The scheduler's parts, each alone: the job table the dispatcher decides from, the
/// inboxes kept across a reload, the farm view's reads and gauges.
@Suite struct SchedulerPartsTests {
    static let folder = FolderConfig(name: "f", inbox: "/in", outbox: "/out", failed: "/failed")

    static func record(_ id: String, claimedSecondsAgo: TimeInterval) -> JobRecord {
        JobRecord(id: id, folder: "f", input: "\(id).mp4", sidecars: [], state: .waiting, now: Date().addingTimeInterval(-claimedSecondsAgo))
    }

    // MARK: JobTable

    @Test func busyWorkersCountRunningAndInFlightNeverWaiting() {
        var table = JobTable()
        #expect(table.busyWorkers == 0 && table.isEmpty)
        table["claim\u{0}f\u{0}a.mp4"] = .claiming
        table["b"] = .running(Self.record("b", claimedSecondsAgo: 1), progress: 0.5, started: Date())
        table["c"] = .waiting(Self.record("c", claimedSecondsAgo: 1), Self.folder, until: .now + .seconds(60))
        #expect(table.busyWorkers == 2)
        #expect(table.contains(keyWithPrefix: "claim\u{0}f\u{0}") && !table.contains(keyWithPrefix: "pick\u{0}"))
    }

    @Test func dueRetriesAreTheWaitingJobsWhoseTimeHasComeOldestClaimFirst() {
        var table = JobTable()
        let now = ContinuousClock.now
        table["young"] = .waiting(Self.record("young", claimedSecondsAgo: 10), Self.folder, until: now - .seconds(1))
        table["old"] = .waiting(Self.record("old", claimedSecondsAgo: 100), Self.folder, until: now)
        table["later"] = .waiting(Self.record("later", claimedSecondsAgo: 1000), Self.folder, until: now + .seconds(5))
        table["run"] = .running(Self.record("run", claimedSecondsAgo: 5000), progress: 0, started: Date())
        #expect(table.due(at: now).map(\.0.id) == ["old", "young"])
        #expect(table.soonestDue == now - .seconds(1))
        #expect(Set(table.waiting.map(\.input)) == ["young.mp4", "old.mp4", "later.mp4"])
        #expect(table.due(at: now + .seconds(5)).map(\.0.id) == ["later", "old", "young"])
    }

    @Test func runningJobsShowTheirSpeedOnlyOnceTheirWorkerHasWrittenHalfASecond() {
        var table = JobTable()
        let now = ContinuousClock.now
        table["a"] = .running(Self.record("a", claimedSecondsAgo: 1), progress: 0, started: Date(timeIntervalSince1970: 2))
        table["b"] = .running(Self.record("b", claimedSecondsAgo: 1), progress: 0, started: Date(timeIntervalSince1970: 1))
        let moved = table.progress("a", 0.5), movedGone = table.progress("gone", 0.5)
        #expect(moved && !movedGone)
        table.renderings["a"] = (duration: 10, since: now - .seconds(2))
        table.renderings["b"] = (duration: 10, since: now - .milliseconds(100))
        let running = table.running(at: now)
        #expect(running.map(\.job) == ["b", "a"], "oldest first")
        #expect(running[1].progress == 0.5 && running[1].speed == 2.5, "5 s of output in 2 s")
        #expect(running[0].speed == nil)
    }

    @Test func aJobThatEndsHoldsNothingButARetryKeepsWhatItWaitsFor() {
        var table = JobTable()
        for id in ["a", "b"] {
            table[id] = .running(Self.record(id, claimedSecondsAgo: 1), progress: 0, started: Date())
            table.renderings[id] = (duration: 1, since: .now)
            table.waitingFor[id] = "the outbox is away"
        }
        table.ended("a", retrying: true)
        table.ended("b", retrying: false)
        #expect(table.isEmpty && table.renderings.isEmpty)
        #expect(table.waitingFor == ["a": "the outbox is away"])
    }

    // MARK: Inboxes

    @Test func aReloadKeepsWhatItKnewOfAnInboxThatStaysAndForgetsOneThatGoes() throws {
        let dir = try TemporaryDirectory()
        for name in ["a", "b", "c"] { try FileManager.default.createDirectory(atPath: dir.file(name), withIntermediateDirectories: true) }
        let a = FolderConfig(name: "a", inbox: dir.file("a"), outbox: dir.file("out"), failed: dir.file("failed"))
        let b = FolderConfig(name: "b", inbox: dir.file("b"), outbox: dir.file("out"), failed: dir.file("failed"))
        var inboxes = Inboxes()
        inboxes.configure([a, b], settle: .seconds(60), leaseTimeout: .seconds(30))
        try Data("growing".utf8).write(to: URL(fileURLWithPath: dir.file("a/clip.mp4")))
        guard case let .listed(settled, arriving)? = inboxes.scan("a") else { Issue.record("a lists"); return }
        #expect(settled.isEmpty && arriving == 1)
        #expect(inboxes.nextSettle != nil, "a file arriving is waited for")
        inboxes.unavailable["b"] = "away"
        inboxes.observers["a"]?.leaseTimeout = .seconds(1)

        // Reloaded: a stays (its settle shorter now), b goes, c comes.
        let c = FolderConfig(name: "c", inbox: dir.file("c"), outbox: dir.file("out"), failed: dir.file("failed"))
        inboxes.configure([a, c], settle: .zero, leaseTimeout: .seconds(90))
        #expect(inboxes.unavailable.isEmpty, "a folder no longer watched is not said to be away")
        #expect(inboxes.observers.keys.sorted() == ["a", "c"] && inboxes.observers["a"]?.leaseTimeout == .seconds(90))
        guard case let .listed(settledNow, _)? = inboxes.scan("a") else { Issue.record("a lists"); return }
        #expect(settledNow.map(\.name) == ["clip.mp4"], "the file seen before the reload has settled under the new settle")
        let gone = inboxes.scan("b")
        #expect(gone == nil)
        inboxes.forget("clip.mp4", in: "a")
    }

    // MARK: FarmView

    @Test func theFarmIsReadOneReadAtATimeEveryIntervalAndAHostHoldingNothingReadsZero() {
        var view = FarmView()
        let start = ContinuousClock.now
        var due = view.beginRead(at: start)
        #expect(due)
        due = view.beginRead(at: start + .seconds(10))
        #expect(!due, "one read at a time")
        let jobs = FarmStatusTests.jobs
        let gauges = view.read(.success(jobs), from: "db", at: start)
        #expect(gauges?.counts == ["claimed": 2, "queued": 1, "done": 1])
        #expect(gauges?.claimedByHost == ["render-1": 1, "render-2": 1])
        #expect(view.farm?.jobs == jobs && view.farm?.coordinator == "db")
        due = view.beginRead(at: start + FarmView.interval - .milliseconds(1))
        #expect(!due)
        due = view.beginRead(at: start + FarmView.interval)
        #expect(due)

        struct Away: Error, CustomStringConvertible { var description: String { "connection refused" } }
        let failed = view.read(.failure(Away()), from: "db", at: start + FarmView.interval)
        #expect(failed == nil, "the gauges keep their values")
        #expect(view.farm?.jobs == jobs && view.farm?.error == "connection refused", "the jobs of the read before, with why")

        due = view.beginRead(at: start + FarmView.interval * 2)
        #expect(due)
        let fewer = view.read(.success(jobs.filter { !($0.host ?? "").hasPrefix("render-1") }), from: "db", at: start + FarmView.interval * 2)
        #expect(fewer?.claimedByHost == ["render-1": 0, "render-2": 1], "a host seen before reads 0, not its last count")
        #expect(view.farm?.error == nil)
    }
}
