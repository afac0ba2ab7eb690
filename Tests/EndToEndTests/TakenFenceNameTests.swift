import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28: a non-empty `claimed/<job>.committing-1/` planted by anyone who can write in
/// the inbox used to stall an innocent job for ever (the fence's rename failed with
/// ENOTEMPTY, the finished render was deleted, and `critical` was logged every
/// `retry_delay`). The fence steps over the taken name, logs it once, and the job ends.
@Suite(.tags(.slow)) struct TakenFenceNameTests {
    @Test func aPlantedFenceFolderIsSteppedOverOnceAndTheJobEnds() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, retryDelay: 0.1)
        _ = try h.clip(seconds: 2)
        try h.drop("innocent.mp4")
        let daemon = try h.startDaemon()
        // Planted while the clip renders (its worker held there), before its first fence.
        let worker = try #require(WorkerAtWork.stop(childOf: daemon.pid, workingOn: "innocent.mp4"), "log:\n\(h.daemonLog)")
        let job = worker.job
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        let planted = (claimed as NSString).appendingPathComponent("\(job).committing-1")
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
        try "not dropcut's".write(toFile: (planted as NSString).appendingPathComponent("junk.txt"), atomically: true, encoding: .utf8)
        let store = JobStore(stateDirectory: h.state)
        #expect(store.all().first?.state == .rendering, "planted after the first fence")
        worker.resume()

        // Blocking up to the SIGTERM: the planted folder, left alone, would look like an
        // expired claim to a daemon kept running past lease_timeout by a late wake-up.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { h.files(h.archive) == ["innocent.mp4"] }, "log:\n\(h.daemonLog)")
        // Time for a retry loop to show itself, were there one (retry_delay is 0.1 s).
        DaemonHarness.sleepBlocking(1)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        #expect(h.files(h.outbox, hidden: true) == ["innocent.dropcut.mp4"])
        #expect(h.files(h.failed, hidden: true) == [])
        let record = try #require(store.all().first)
        #expect(record.state == .done && record.attempts == 1)
        #expect(record.claimName == "\(job).committing-3", "fenced to -2 then -3: \(record.claimName ?? "nil")")
        // The stranger's folder is left as it was; nothing else of the job is.
        #expect(h.claimedLeftovers() == ["\(job).committing-1", "\(job).committing-1/junk.txt"])
        let log = h.daemonLog.split(separator: "\n")
        let mentions = log.filter { $0.contains("\(job).committing-1") }
        #expect(mentions.count == 1 && mentions.first?.contains("is taken by something dropcut did not make") == true, "\(mentions)")
        #expect(!log.contains { $0.contains("critical") }, "\(h.daemonLog)")
    }

    /// Every fence name it may step over taken: the job gives its claim up once
    /// (`job-abandoned`), and the claim — still holding the clip — is taken over under a
    /// new job id after `lease_timeout` and published once. The planted folders, claims
    /// without a lease, go to failed/ with that reason.
    @Test func aClaimWhoseFenceNamesAreAllTakenIsGivenUpOnceAndTakenOver() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, retryDelay: 0.1, extraSettings: "lease_timeout: 1")
        _ = try h.clip(seconds: 2)
        try h.drop("innocent.mp4")
        let daemon = try h.startDaemon()
        let worker = try #require(WorkerAtWork.stop(childOf: daemon.pid, workingOn: "innocent.mp4"), "log:\n\(h.daemonLog)")
        let job = worker.job
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        for n in 1...8 {
            let planted = (claimed as NSString).appendingPathComponent("\(job).committing-\(n)")
            try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
            try "not dropcut's".write(toFile: (planted as NSString).appendingPathComponent("junk\(n).txt"), atomically: true, encoding: .utf8)
        }
        #expect(JobStore(stateDirectory: h.state).all().first?.state == .rendering, "planted after the first fence")
        worker.resume()

        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.archive) == ["innocent.mp4"] && h.claimedLeftovers().isEmpty },
                "archive \(h.files(h.archive)), claimed \(h.claimedLeftovers()); log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        #expect(h.files(h.outbox, hidden: true) == ["innocent.dropcut.mp4"])
        let junk = (1...8).flatMap { ["junk\($0).txt", "junk\($0).txt.error.txt"] }.sorted()
        #expect(h.files(h.failed) == junk)
        let log = h.daemonLog.split(separator: "\n")
        let givenUp = log.filter { $0.contains("abandoned innocent.mp4") }
        #expect(givenUp.count == 1 && givenUp.first?.contains("cannot be fenced") == true, "\(givenUp)")
        #expect(log.filter { $0.contains("took over innocent.mp4") }.count == 1, "\(h.daemonLog)")
        #expect(!log.contains { $0.contains("critical") }, "\(h.daemonLog)")
    }
}
