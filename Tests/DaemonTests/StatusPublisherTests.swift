import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon
import DropcutPipeline

/// `StatusPublisher` alone: when a status is published (a change of jobs at once, of
/// progress alone at most once a second, nothing for a change of time alone), and the
/// service publishing the newest to status.json and the board, the last one once the
/// scheduler has ended.
@Suite struct StatusPublisherTests {
    static func status(running: [(String, Double)] = [], queued: [String] = [], updated: Date = Date()) -> DaemonStatus {
        DaemonStatus(pid: 1, started: Date(timeIntervalSince1970: 0), updated: updated, config: "/etc/dropcut/config.yaml",
                     running: running.map { DaemonStatus.Running(job: $0.0, folder: "f", input: "\($0.0).mp4", progress: $0.1,
                                                                 started: Date(timeIntervalSince1970: 1)) },
                     queued: queued.map { DaemonStatus.Queued(folder: "f", input: $0) }, unavailable: [:])
    }

    @Test func aChangeOfJobsIsPublishedAtOnceAndOfProgressAloneAtMostOnceASecond() {
        let t = ContinuousClock.now
        let last = Self.status(running: [("a", 0.1)])
        typealias P = StatusPublisher
        #expect(P.due(last, after: nil, at: nil, now: t) == .now, "the first")
        #expect(P.due(Self.status(running: [("a", 0.1)], updated: Date().addingTimeInterval(5)), after: last, at: t, now: t) == .unchanged)
        #expect(P.due(Self.status(running: [("a", 0.2)]), after: last, at: t, now: t + .milliseconds(300)) == .after(.milliseconds(700)))
        #expect(P.due(Self.status(running: [("a", 0.2)]), after: last, at: t, now: t + .seconds(1)) == .now)
        #expect(P.due(Self.status(running: [("a", 0.1), ("b", 0)]), after: last, at: t, now: t) == .now, "a job started")
        #expect(P.due(Self.status(), after: last, at: t, now: t) == .now, "a job ended")
        #expect(P.due(Self.status(running: [("a", 0.2)], queued: ["q.mp4"]), after: last, at: t, now: t) == .now, "progress and a queued clip")
        var unavailable = last
        unavailable.unavailable = ["f": "away"]
        #expect(P.due(unavailable, after: last, at: t, now: t) == .now)
    }

    @Test func theServicePublishesTheNewestAndTheLastOnceTheSchedulerHasEnded() async throws {
        let dir = try TemporaryDirectory()
        let publisher = StatusPublisher(stateDirectory: dir.path, metrics: DaemonMetrics(version: "test", workers: 1))
        let running = Task { await publisher.run() }
        let post = { (status: DaemonStatus) in publisher.post(.init(status: status, busyWorkers: status.running.count, folders: ["f"])) }
        let written = { DaemonStatus.read(stateDirectory: dir.path) }

        // The first publication is at this time or later (seen only when the file is read,
        // which on a busy machine may be most of a second later).
        let firstPosted = ContinuousClock.now
        post(Self.status(running: [("a", 0.1)]))
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { written()?.running.first?.progress == 0.1 })
        #expect(publisher.summary == "0 queued, rendering a.mp4 10%")
        let generation = publisher.board.latest.generation
        // Progress alone, many times at once: the newest, once, a second after the last
        // publication — so a second at least after the first was posted.
        for step in 2...9 { post(Self.status(running: [("a", Double(step) / 10)])) }
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { written()?.running.first?.progress == 0.9 })
        #expect(ContinuousClock.now - firstPosted >= .seconds(1), "progress alone waited for its second")
        #expect(publisher.board.latest.generation == generation + 1, "published once, not eight times")
        // A job ending is published at once; after the end, the last posted one.
        post(Self.status(queued: ["next.mp4"]))
        post(Self.status(queued: ["next.mp4", "last.mp4"]))
        publisher.finish()
        await running.value
        #expect(written()?.queued.map(\.input) == ["next.mp4", "last.mp4"] && written()?.running == [])
        #expect(publisher.summary == "2 queued, idle")
    }

    @Test func cancelledItReturns() async {
        let publisher = StatusPublisher(stateDirectory: "/nonexistent", metrics: DaemonMetrics(version: "test", workers: 1))
        let running = Task { await publisher.run() }
        running.cancel()
        await running.value
    }
}
