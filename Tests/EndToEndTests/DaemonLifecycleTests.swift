import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// The daemon as systemd runs it: a long-running `dropcut watch` with a real
/// NOTIFY_SOCKET, signalled with SIGHUP and SIGTERM.
@Suite(.tags(.slow)) struct DaemonLifecycleTests {
    @Test func runningDaemonRendersDroppedClipsAndTalksToSystemd() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness(settle: 0.3)
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        #expect(await socket.wait { $0.contains("READY=1") }, "no READY=1; log:\n\(h.daemonLog)")

        // Dropped while it runs: fresh files, so they must settle first.
        try h.drop("one.mp4", fresh: true)
        try h.drop("two.mp4", fresh: true)
        try h.write("two.yaml", "version: 1\noutput: { filename: \"{name}-{recipe}.mp4\" }\n", fresh: true)
        try h.drop("three.mp4", fresh: true)
        let allThere = await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.outbox).count == 3 && h.files(h.archive).count == 4 }
        #expect(allThere, "outbox \(h.files(h.outbox)), log:\n\(h.daemonLog)")
        #expect(h.files(h.outbox) == ["one.dropcut.mp4", "three.dropcut.mp4", "two-two.mp4"])
        #expect(await socket.wait { $0.contains("STATUS=") && $0.contains("rendering") })

        // `dropcut status` works while the daemon runs.
        let status = try h.statusJSON()
        #expect(status["running"] as? Bool == true)
        #expect((status["done"] as? [[String: Any]])?.count == 3)

        // SIGHUP with a config that does not validate: logged, the old one kept, READY again.
        let good = try String(contentsOfFile: h.configPath, encoding: .utf8)
        try "folders: [ { name: x } ]\n".write(toFile: h.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(await socket.wait { $0.contains("RELOADING=1") && $0.contains("MONOTONIC_USEC=") })
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { h.daemonLog.contains("config reload failed") })
        try good.write(toFile: h.configPath, atomically: true, encoding: .utf8)
        try h.drop("four.mp4", fresh: true)
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.outbox).contains("four.dropcut.mp4") },
                "the old config must keep working; log:\n\(h.daemonLog)")

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        // The notifications, in order: READY first, WATCHDOG pings, RELOADING then READY, STOPPING last.
        let messages = socket.messages
        let ready = try #require(messages.firstIndex { $0.contains("READY=1") })
        let watchdog = try #require(messages.firstIndex { $0.contains("WATCHDOG=1") })
        let reloading = try #require(messages.firstIndex { $0.contains("RELOADING=1") })
        let stopping = try #require(messages.lastIndex { $0.contains("STOPPING=1") })
        #expect(ready < watchdog && watchdog < reloading && reloading < stopping)
        #expect(messages[(reloading + 1)...].contains { $0.contains("READY=1") })
        #expect(messages.filter { $0.contains("WATCHDOG=1") }.count >= 3)
        #expect(stopping == messages.count - 1 || messages[(stopping + 1)...].allSatisfy { !$0.contains("READY") })

        // journald got the reload failure with its MESSAGE_ID.
        let rejected = try await Journald.entries(matching: "MESSAGE_ID", value: MessageID.configRejected.rawValue)
        let ours = try #require(rejected.first { $0["_PID"] == String(daemon.pid) })
        #expect(try JournalCatalog.missingFields(for: MessageID.configRejected.rawValue, in: ours) == [])
    }

    @Test func sighupPicksUpANewFolder() async throws {
        let h = try DaemonHarness()
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(await socket.wait { $0.contains("READY=1") })
        let second = h.dir.file("inbox2")
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        try h.writeConfig(extraFolders: """
            - name: \(h.folderName)-2
              inbox: inbox2
              outbox: outbox2
              failed: failed
              after_success: delete
            """)
        daemon.signal(SIGHUP)
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { h.daemonLog.contains("config reloaded: 2 folder(s)") }, "\(h.daemonLog)")
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (second as NSString).appendingPathComponent("new.mp4"))
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.dir.file("outbox2")) == ["new.dropcut.mp4"] }, "\(h.daemonLog)")
        #expect(h.files(second).isEmpty, "after_success: delete removes the original")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    @Test func sigtermCancelsARenderThatOutlastsTheStopTimeoutAndTheNextStartRedoesIt() async throws {
        let h = try DaemonHarness(stopTimeout: 0.3)
        // A long clip, so the render is still running when SIGTERM arrives: MPEG-4 Part 2,
        // rendered (an untagged upright H.264 clip passes through at once).
        let long = try await Fixtures.makeClip(in: h.dir.path, name: "long.mp4", width: 640, height: 480, seconds: 20, videoCodec: "mpeg4")
        try FileManager.default.moveItem(atPath: long, toPath: (h.inbox as NSString).appendingPathComponent("long.mp4"))
        try h.age((h.inbox as NSString).appendingPathComponent("long.mp4"))
        let daemon = try h.startDaemon()
        // Blocking up to the SIGTERM, which must come mid-render.
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { h.daemonLog.contains("rendering long.mp4") })
        DaemonHarness.sleepBlocking(0.3)   // blocking: SIGTERM surely mid-render, not after a late wake-up
        daemon.signal(SIGTERM)
        #expect(await daemon.wait(timeout: .seconds(20)) == 0, "log:\n\(h.daemonLog)")
        #expect(h.daemonLog.contains("stop timeout reached"))

        // Nothing half-written anywhere; the clip waits, claimed, for the next start.
        #expect(h.files(h.outbox, hidden: true) == [], "no output and no partial file")
        #expect(h.claimedLeftovers().contains { $0.hasSuffix("/long.mp4") })
        let status = try h.statusJSON()
        #expect((status["unfinished"] as? [[String: Any]])?.first?["input"] as? String == "long.mp4")

        let result = try await h.runOnce()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.outbox) == ["long.dropcut.mp4"])
        #expect(h.claimedLeftovers() == [])
        let duration = try FFprobe.format(of: (h.outbox as NSString).appendingPathComponent("long.dropcut.mp4")).duration.flatMap(Double.init)
        #expect(duration.map { abs($0 - 20) < 0.1 } == true, "duration \(String(describing: duration))")
    }

    @Test func aSecondDaemonOnTheSameStateFolderIsRefused() async throws {
        let h = try DaemonHarness()
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let first = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(await socket.wait { $0.contains("READY=1") })
        let second = try await h.runOnce()
        #expect(second.status == 1)
        #expect(second.stderr.contains("already using the state folder"))
        first.signal(SIGTERM)
        #expect(await first.wait() == 0)
    }

    /// SIGTERM while the daemon is still starting — from the moment its handler is in place
    /// (SigCgt in /proc) to past READY — is a graceful stop with exit status 0, never the
    /// signal's default action nor a signal lost (the daemon running on). A SIGHUP that
    /// early is a reload, not the end of the daemon.
    @Test(.tags(.slow)) func signalsWhileStartingStopOrReloadGracefully() async throws {
        func caught(_ pid: Int32, _ number: Int32) -> Bool {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let mask = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            return mask & (1 << UInt64(number - 1)) != 0
        }
        /// Polled without sleeping: the daemon is ready within milliseconds of its handler.
        func waitCaught(_ daemon: DaemonHarness.Daemon, _ number: Int32) -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline && daemon.process.isRunning {
                if caught(daemon.pid, number) { return true }
                usleep(100)
            }
            return false
        }
        var beforeReady = 0
        for delay in [0.0, 0.0, 0.0005, 0.001, 0.002, 0.005, 0.02, 0.3] {
            let h = try DaemonHarness()
            let socket = try NotifySocket(path: h.dir.file("notify.sock"))
            let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
            #expect(waitCaught(daemon, SIGTERM))
            DaemonHarness.sleepBlocking(delay)
            if !socket.messages.contains(where: { $0.contains("READY=1") }) { beforeReady += 1 }
            daemon.signal(SIGTERM)
            let status = await daemon.wait(timeout: .seconds(20))
            #expect(status == 0, "SIGTERM \(delay) s after the handler: exit \(String(describing: status)): \(h.daemonLog)")
            #expect(h.daemonLog.contains("SIGTERM: stopping gracefully"), "\(h.daemonLog)")
        }
        // The race happened: most signals came before the daemon said it was ready.
        #expect(beforeReady >= 3, "only \(beforeReady) SIGTERMs came before READY=1")

        let h = try DaemonHarness()
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(waitCaught(daemon, SIGHUP))
        daemon.signal(SIGHUP)
        #expect(await socket.wait { $0.contains("READY=1") })
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { h.daemonLog.contains("config reloaded") }, "\(h.daemonLog)")
        #expect(daemon.process.isRunning, "\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }
}
