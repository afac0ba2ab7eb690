import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28: renders run in a worker process, so the daemon's own death (an OOM kill,
/// `systemctl kill`, a power cut, an upgrade) says nothing about the clip it was rendering
/// and must never cost it an attempt, whatever `retries` is; the worker's own death still
/// does.
@Suite(.tags(.slow)) struct DaemonKillTests {
    @Test func killingTheDaemonMidRenderThreeTimesCostsNoClipAnAttempt() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0)
        _ = try h.clip(seconds: 2)
        let names = (1...6).map { "clip\($0).mp4" }
        for name in names { try h.drop(name) }
        let store = JobStore(stateDirectory: h.state)

        var killedJobs: [String] = []
        for round in 1...3 {
            let daemon = try h.startDaemon()
            // Mid-render: the daemon's worker (its child) caught with a claimed clip open,
            // and held there (SIGSTOP) so that the render cannot end before the kill.
            let worker = try #require(WorkerAtWork.stop(childOf: daemon.pid),
                                      "round \(round): no worker at work; log:\n\(h.daemonLog)")
            // The proof that the kill comes while the job is rendering: its record says so
            // (and cannot change: the daemon waits for the held worker).
            let before = try #require(store.all().first { $0.id == worker.job }, "round \(round): no record for \(worker.clip)")
            #expect(before.state == .rendering, "round \(round): killed in \(before.state), not mid-render")
            daemon.signal(SIGKILL)
            #expect(await daemon.wait() == 128 + SIGKILL)
            // The worker dies with its daemon (PR_SET_PDEATHSIG): no orphan is left to
            // write after a restart takes the job up again.
            #expect(await DaemonHarness.waitUntil(.seconds(5)) { kill(worker.pid, 0) != 0 }, "round \(round): worker \(worker.pid) outlived its daemon")
            let record = try #require(store.all().first { $0.id == worker.job })
            #expect(record.state == .rendering && record.attempts == 1, "round \(round): \(record.state) \(record.history ?? [])")
            killedJobs.append(worker.job)
        }

        let daemon = try h.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(90)) { h.files(h.archive).count == names.count }, "log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        // Every clip rendered exactly once: one output each, no `-1`, no partial left.
        #expect(h.files(h.outbox, hidden: true) == names.map { $0.replacingOccurrences(of: ".mp4", with: ".dropcut.mp4") })
        #expect(h.files(h.archive) == names)
        #expect(h.files(h.failed, hidden: true) == [])
        #expect(h.claimedLeftovers() == [])
        let log = h.daemonLog
        for name in names {
            #expect(log.components(separatedBy: "done \(name) -> ").count == 2, "\(name) not done exactly once; log:\n\(log)")
        }
        let records = store.all()
        #expect(records.count == names.count && records.allSatisfy { $0.state == .done && $0.attempts == 1 },
                "\(records.map { "\($0.input) \($0.state) \($0.attempts)" })")
        // Each kill is noted in its job's history, as not counted.
        let notes = records.flatMap { $0.history ?? [] }
        #expect(notes.count == 3 && notes.allSatisfy { $0 == "attempt 1: interrupted: dropcut stopped while its worker was rendering (not counted against the clip)" },
                "\(notes)")
        #expect(Set(killedJobs).isSubset(of: Set(records.map(\.id))))
    }

    @Test func aWorkerKilledByASignalStillCountsAsAnAttempt() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0)
        _ = try h.clip(seconds: 2)
        try h.drop("killed.mp4")
        let daemon = try h.startDaemon()
        // Held mid-render first, so the signal cannot come after the render ended.
        let worker = try #require(WorkerAtWork.stop(childOf: daemon.pid, workingOn: "killed.mp4"), "log:\n\(h.daemonLog)")
        kill(worker.pid, SIGKILL)
        let errorFile = (h.failed as NSString).appendingPathComponent("killed.mp4.error.txt")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { FileManager.default.fileExists(atPath: errorFile) }, "log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        let text = try String(contentsOfFile: errorFile, encoding: .utf8)
        #expect(text.contains("attempt 1: killed by signal 9 (SIGKILL) after"), "\(text)")
        #expect(text.contains("Attempts: 1"), "\(text)")
        #expect(h.files(h.failed) == ["killed.mp4", "killed.mp4.error.txt"])
        #expect(h.files(h.outbox, hidden: true) == [])
        #expect(h.claimedLeftovers() == [])
    }
}
