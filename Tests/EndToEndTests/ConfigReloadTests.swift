import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28: a SIGHUP reload that changed `state_dir` logged "config reloaded" but kept
/// the old folder, so `status` looked in the new one and a second daemon started there
/// without meeting the lock. Keys that cannot change live are refused by name, with what
/// stays in force; the rest of the config is applied.
@Suite(.tags(.slow)) struct ConfigReloadTests {
    @Test func aReloadRefusesANewStateDirByNameAndAppliesTheRest() async throws {
        let h = try DaemonHarness()
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(await socket.wait { $0.contains("READY=1") }, "log:\n\(h.daemonLog)")
        let second = h.dir.file("inbox2")
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        try h.writeConfig(state: "state2", extraFolders: """
            - name: \(h.folderName)-2
              inbox: inbox2
              outbox: outbox2
              failed: failed
              after_success: delete
            """)
        daemon.signal(SIGHUP)
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { h.daemonLog.contains("config reloaded: 2 folder(s) (except state_dir)") },
                "log:\n\(h.daemonLog)")
        let log = h.daemonLog
        #expect(log.contains("config reload: state_dir cannot change while dropcut runs; kept: state_dir stays \(h.state) (the file now says \(h.dir.file("state2"))). Restart dropcut to apply; the rest of the config is applied"),
                "log:\n\(log)")
        #expect(!FileManager.default.fileExists(atPath: h.dir.file("state2")), "the new state folder was made")

        // The rest applied: the new folder is watched.
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (second as NSString).appendingPathComponent("new.mp4"))
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.dir.file("outbox2")) == ["new.dropcut.mp4"] }, "log:\n\(h.daemonLog)")
        // Still in the old state folder: its status and its lock.
        #expect(DaemonStatus.read(stateDirectory: h.state)?.pid == daemon.pid)
        try h.writeConfig(to: h.dir.file("old.yaml"))
        let rival = try await DropcutProcess.run(["watch", "--once", "--config", h.dir.file("old.yaml")])
        #expect(rival.status != 0 && rival.stderr.contains("another dropcut is already using the state folder \(h.state)"), "\(rival)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")
    }

    /// A reload that lowers `lease_timeout` renews the leases at the new pace within a
    /// second or so — not after a third of the old timeout, by when other hosts, reloaded
    /// too, would take this host's claims for dead.
    @Test func aReloadThatLowersLeaseTimeoutRenewsAtTheNewPaceAtOnce() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, stopTimeout: 0.5,
                                  extraSettings: "lease_timeout: 60\njob_timeout_minimum: 600s")
        _ = try h.clip(seconds: 2)
        try h.drop("held.mp4")
        let daemon = try h.startDaemon()
        // Held still: the job takes no step (each would rewrite its lease) while it is watched.
        let worker = try #require(WorkerAtWork.stop(childOf: daemon.pid, workingOn: "held.mp4"), "log:\n\(h.daemonLog)")
        let directory = (worker.clip as NSString).deletingLastPathComponent
        DaemonHarness.sleepBlocking(0.5)
        let name = ClaimName(job: (directory as NSString).lastPathComponent)
        func beat() -> UInt64? {
            if case let .lease(lease) = ClaimLease.read(claimDirectory: directory, name: name).reading { return lease.beat }
            return nil
        }
        let before = try #require(beat())
        // Renewed every 20 s at lease_timeout 60: unchanged for a second and a half.
        DaemonHarness.sleepBlocking(1.5)
        #expect(beat() == before, "renewed at the old pace already: the test proves nothing")

        try h.writeConfig(settle: 0.1, poll: 0.1, retries: 0, stopTimeout: 0.5,
                          extraSettings: "lease_timeout: 3\njob_timeout_minimum: 600s")
        daemon.signal(SIGHUP)
        // Timed: waited for on this thread, so that a busy pool cannot stretch the time measured.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(10)) { h.daemonLog.contains("config reloaded") }, "log:\n\(h.daemonLog)")
        let reloaded = ContinuousClock.now
        #expect(DaemonHarness.waitUntilBlocking(.seconds(10)) { (beat() ?? before) > before })
        let first = ContinuousClock.now - reloaded
        #expect(first < .milliseconds(2500), "first renewal \(first) after the reload (renewal every 1 s now)")
        // And on at the new pace: two more renewals within three seconds.
        let renewed = beat() ?? before
        #expect(await DaemonHarness.waitUntil(.seconds(3)) { (beat() ?? 0) >= renewed + 2 }, "beat \(beat() ?? 0) after \(renewed)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")
        #expect(kill(worker.pid, 0) != 0, "the stopped worker outlived the daemon")
    }
}
