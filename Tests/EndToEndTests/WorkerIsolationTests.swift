import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every job renders in a worker process of its own (`dropcut worker`): whatever a clip
/// does to its worker — a crash, a hang, memory exhausted — fails that attempt only, the
/// daemon and the other clips go on, and a clip that does it every time is quarantined in
/// failed/ after `retries + 1` attempts with what happened each time.
@Suite(.tags(.slow)) struct WorkerIsolationTests {
    /// Whether `pid` has a file open whose path contains `name`.
    static func hasOpen(_ pid: Int32, _ name: String) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.contains { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))?.contains(name) == true
        }
    }

    /// Waits for the daemon's worker that has `name` open (other than `excluded`, workers
    /// killed before, which may still be writing their crash report); nil on timeout.
    static func worker(of daemon: Int32, workingOn name: String, excluding excluded: [Int32] = [],
                       timeout: Duration = .seconds(60)) -> Int32? {
        var found: Int32?
        // Polled on this thread, as `WorkerAtWork.stop` does: a worker is there for a moment.
        _ = DaemonHarness.waitUntilBlocking(timeout) {
            found = ProcessInspection.children(of: daemon).first { !excluded.contains($0) && hasOpen($0, name) }
            if found == nil { usleep(2000) }
            return found != nil
        }
        return found
    }

    @Test func aClipThatCrashesItsWorkerEveryTimeIsQuarantinedAndTheDaemonGoesOn() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 2, retryDelay: 0.3)
        // A longer clip, so that its worker is there to be caught; dropped first (oldest).
        // MPEG-4 Part 2: rendered (an untagged upright H.264 clip passes through in ms).
        let poison = try await Fixtures.makeClip(in: h.dir.path, name: "long.mp4", width: 640, height: 480, seconds: 8, videoCodec: "mpeg4")
        try FileManager.default.copyItem(atPath: poison, toPath: (h.inbox as NSString).appendingPathComponent("poison.mp4"))
        try h.age((h.inbox as NSString).appendingPathComponent("poison.mp4"))
        let good = ["good1.mp4", "good2.mp4", "good3.mp4"]
        for name in good { try h.drop(name) }
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        // Blocking from here on while workers are caught: poison.mp4 renders in seconds.
        #expect(socket.waitBlocking { $0.contains("READY=1") }, "no READY=1; log:\n\(h.daemonLog)")

        // Every attempt: find the worker rendering poison.mp4 (a child of the daemon that
        // has it open) and crash it from outside, as a bug in a decoder would.
        var killed: [Int32] = []
        for attempt in 1...3 {
            let worker = try #require(Self.worker(of: daemon.pid, workingOn: "poison.mp4", excluding: killed),
                                      "attempt \(attempt): no worker for poison.mp4; log:\n\(h.daemonLog)")
            let pingsBefore = socket.messages.filter { $0.contains("WATCHDOG=1") }.count
            kill(worker, SIGSEGV)
            killed.append(worker)
            // The daemon lives on and keeps pinging the watchdog (200 ms apart).
            DaemonHarness.sleepBlocking(0.5)
            #expect(kill(daemon.pid, 0) == 0, "the daemon died with its worker")
            #expect(socket.messages.filter { $0.contains("WATCHDOG=1") }.count > pingsBefore, "no WATCHDOG=1 after the crash")
        }

        let errorFile = (h.failed as NSString).appendingPathComponent("poison.mp4.error.txt")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { FileManager.default.fileExists(atPath: errorFile) }, "log:\n\(h.daemonLog)")
        // Archived last (after the output's link and a fence): waited for too.
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.outbox).count == 3 && h.files(h.archive).count == 3 },
                "log:\n\(h.daemonLog)")
        #expect(h.files(h.outbox) == good.map { $0.replacingOccurrences(of: ".mp4", with: ".dropcut.mp4") })
        #expect(h.files(h.failed) == ["poison.mp4", "poison.mp4.error.txt"])
        #expect(h.files(h.archive) == good)
        #expect(h.files(h.outbox, hidden: true).allSatisfy { !$0.hasPrefix(".") }, "partial outputs left: \(h.files(h.outbox, hidden: true))")
        let text = try String(contentsOfFile: errorFile, encoding: .utf8)
        for attempt in 1...3 {
            #expect(text.contains("attempt \(attempt): killed by signal 11 (SIGSEGV) after"), "\(text)")
        }
        #expect(!text.contains("attempt 4"), "\(text)")
        #expect(text.contains("Attempts: 3"))

        // Each crash is in the journal with its signal, and the catalog's fields are there.
        let crashes = try await Journald.entries(matching: "MESSAGE_ID", value: MessageID.workerFailed.rawValue)
            .filter { $0["DROPCUT_FOLDER"] == h.folderName }
        #expect(crashes.count == 3)
        #expect(crashes.allSatisfy { $0["SIGNAL"] == "11" && $0["_PID"] == String(daemon.pid) })
        #expect(Set(crashes.compactMap { $0["DROPCUT_WORKER_PID"] }) == Set(killed.map(String.init)))
        if let first = crashes.first {
            #expect(try JournalCatalog.missingFields(for: MessageID.workerFailed.rawValue, in: first) == [])
        }

        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")
        #expect(ProcessInspection.children(of: daemon.pid).isEmpty)
    }

    @Test func aWorkerThatHangsIsStoppedAtItsTimeLimitAndReportedSo() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0,
                                  extraSettings: "job_timeout: 1x\njob_timeout_minimum: 2s")
        _ = try h.clip(seconds: 4)   // long enough to be caught at work
        try h.drop("hangs.mp4")
        let daemon = try h.startDaemon()
        // A worker stuck for good (as in a decoder's endless loop): stopped, not killed.
        let worker = try #require(Self.worker(of: daemon.pid, workingOn: "hangs.mp4"), "log:\n\(h.daemonLog)")
        kill(worker, SIGSTOP)
        let errorFile = (h.failed as NSString).appendingPathComponent("hangs.mp4.error.txt")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { FileManager.default.fileExists(atPath: errorFile) }, "log:\n\(h.daemonLog)")
        let text = try String(contentsOfFile: errorFile, encoding: .utf8)
        #expect(text.contains("attempt 1: stopped after"), "\(text)")
        // 2 s while preparing, 4 s (1x the clip) once rendering.
        #expect(text.contains("ran past its time limit of ") && text.contains(" s (job_timeout: 1x the clip's duration, at least 2 s)"),
                "\(text)")
        #expect(kill(worker, 0) != 0, "the stopped worker was not killed")
        #expect(h.files(h.outbox, hidden: true) == [])
        #expect(kill(daemon.pid, 0) == 0)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    @Test func aWorkerOverItsMemoryLimitFailsAndSaysSo() async throws {
        // 16 MiB: less than a worker needs to start its threads, so the limit is met
        // wherever the render is (the failure must still be a report, not a hang).
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, extraSettings: "memory_limit: 16M\njob_timeout_minimum: 60s")
        try h.drop("big.mp4")
        let started = ContinuousClock.now
        let result = try h.runOnceBlocking()   // timed
        #expect(result.status == 1)
        #expect(ContinuousClock.now - started < .seconds(50), "stopped by the time limit, not the memory limit")
        let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("big.mp4.error.txt"), encoding: .utf8)
        #expect(text.contains("attempt 1: ") && text.contains("memory limit (memory_limit: 16 MiB)"), "\(text)")
        #expect(h.files(h.outbox, hidden: true) == [])
    }
}
