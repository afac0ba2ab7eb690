import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What the daemon must survive: slow writers, kill -9 at any moment, a second daemon on
/// the same inbox, a full disk. Each ends with every input exactly once in the outbox or
/// the failed folder and nothing left half-done.
@Suite(.tags(.slow)) struct DaemonRobustnessTests {
    @Test func aFileStillBeingWrittenIsNotClaimedUntilTheWriterStops() async throws {
        let h = try DaemonHarness(settle: 1.0, poll: 0.1)
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(await socket.wait { $0.contains("READY=1") })

        // Write the clip in 16 pieces, 0.2 s apart: 3 s of writing, each pause shorter than settle.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try h.clip()))
        let path = (h.inbox as NSString).appendingPathComponent("slow.mp4")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let pieces = 16, size = (bytes.count + pieces - 1) / pieces
        var claimedWhileWriting = false
        for i in 0..<pieces {
            let chunk = bytes[(i * size)..<min(bytes.count, (i + 1) * size)]
            _ = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            DaemonHarness.sleepBlocking(0.2)   // blocking: an awaited sleep could outlast settle
            if access(path, F_OK) != 0 { claimedWhileWriting = true }
        }
        close(fd)
        let finished = Date()
        #expect(!claimedWhileWriting, "claimed before the writer finished")

        // Done once archived, a moment after the output's link (and a fence): waited for.
        #expect(await DaemonHarness.waitUntil(.seconds(60)) {
            h.files(h.outbox) == ["slow.dropcut.mp4"] && ((try? h.statusJSON())?["done"] as? [[String: Any]])?.count == 1
        }, "\(h.daemonLog)")
        let status = try h.statusJSON()
        let done = try #require((status["done"] as? [[String: Any]])?.first)
        let claimedAt = try #require((done["claimedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
        // Claimed no sooner than settle after the last write (JSON dates are whole seconds).
        #expect(claimedAt >= finished.addingTimeInterval(-0.99), "claimed \(claimedAt), writer finished \(finished)")
        let duration = try FFprobe.format(of: (h.outbox as NSString).appendingPathComponent("slow.dropcut.mp4")).duration.flatMap(Double.init)
        #expect(duration.map { abs($0 - 1) < 0.1 } == true)
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    @Test func killMinus9AtRandomPointsLosesNothingAndDuplicatesNothing() async throws {
        // A kill during a render counts as one of its clip's attempts (a clip that took
        // the daemon down must not loop: see poisonedClip… in WorkerProcessTests), so
        // enough retries that twelve kills cannot use them all up.
        let h = try DaemonHarness(settle: 0.05, poll: 0.05, workers: 2, retries: 13)
        let names = (1...20).map { String(format: "clip%02d.mp4", $0) }
        for name in names { try h.drop(name) }

        var generator = SystemRandomNumberGenerator()
        var kills = 0
        for _ in 0..<12 {
            let daemon = try h.startDaemon()
            DaemonHarness.sleepBlocking(Double.random(in: 0.05...0.6, using: &generator))   // blocking: the kill lands when drawn
            daemon.signal(SIGKILL)
            _ = await daemon.wait()
            kills += 1
            if h.files(h.inbox).isEmpty && h.claimedLeftovers().isEmpty { break }
        }
        // A last, uninterrupted run finishes whatever the kills left.
        let result = try await h.runOnce()
        #expect(result.status == 0, "after \(kills) kills: \(result.stderr)")

        let outputs = h.files(h.outbox, hidden: true)
        #expect(outputs == names.map { $0.replacingOccurrences(of: ".mp4", with: ".dropcut.mp4") },
                "exactly one output per input, no -1 duplicates, no temporary files: \(outputs)")
        #expect(h.files(h.archive, hidden: true) == names, "every original archived exactly once: \(h.files(h.archive, hidden: true))")
        #expect(h.files(h.failed) == [])
        #expect(h.files(h.inbox) == [])
        #expect(h.claimedLeftovers() == [])
        for output in outputs {
            let duration = try FFprobe.format(of: (h.outbox as NSString).appendingPathComponent(output)).duration.flatMap(Double.init)
            #expect(duration.map { abs($0 - 1) < 0.1 } == true, "\(output) is a complete render")
        }
    }

    @Test func twoDaemonsOnOneInboxRenderEachFileExactlyOnce() async throws {
        let h = try DaemonHarness(settle: 0.05, poll: 0.05)
        let names = (1...30).map { String(format: "c%02d.mp4", $0) }
        for name in names { try h.drop(name) }
        let other = h.dir.file("other.yaml")
        try h.writeConfig(settle: 0.05, poll: 0.05, state: "state-b", to: other)

        // Two processes, each with its own state folder (as on two hosts), racing for the clips.
        let a = try h.startDaemon()
        let b = try h.startDaemon(config: other)
        let finished = await DaemonHarness.waitUntil(.seconds(120)) { h.files(h.archive).count == 30 }
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(await a.wait() == 0)
        #expect(await b.wait() == 0)
        #expect(finished, "archived \(h.files(h.archive).count) of 30; log:\n\(h.daemonLog)")

        #expect(h.files(h.outbox, hidden: true) == names.map { $0.replacingOccurrences(of: ".mp4", with: ".dropcut.mp4") })
        #expect(h.files(h.archive, hidden: true) == names)
        #expect(h.claimedLeftovers() == [])
        let doneA = JobStore(stateDirectory: h.state).all().filter { $0.state == .done }.count
        let doneB = JobStore(stateDirectory: h.dir.file("state-b")).all().filter { $0.state == .done }.count
        #expect(doneA + doneB == 30, "a did \(doneA), b did \(doneB)")
        #expect(doneA > 0 && doneB > 0, "both daemons took part: a \(doneA), b \(doneB)")
    }

    /// A copy that pauses longer than `settle` (a phone's upload stalling): the clip is
    /// claimed mid-copy (the race this is about — checked: gone from the inbox while the
    /// writer still holds it, and a render met it incomplete), waits instead of failing,
    /// and is rendered once the copy completes and settles; the archive holds the whole clip.
    @Test func aCopyThatPausesLongerThanSettleIsRenderedOnceItCompletes() async throws {
        // settle 1 s: the writer pauses 1 s once the clip is claimed, well within the three
        // quiet settles an incomplete clip gets (a loaded machine delays the writer too).
        let h = try DaemonHarness(settle: 1, retries: 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: try h.clip()))
        let path = (h.inbox as NSString).appendingPathComponent("clip.mp4")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        let cut = whole.count * 6 / 10
        #expect(whole.prefix(cut).withUnsafeBytes { write(fd, $0.baseAddress, cut) } == cut)
        let daemon = try h.startDaemon()
        // Claimed while the writer is paused: the name is gone from the inbox. The writer
        // waits and pauses on this thread, not the cooperative pool: a pool kept busy by
        // the parallel suite resumed it only after the daemon's three quiet looks.
        let claimed = DaemonHarness.waitUntilBlocking(.seconds(60)) { !FileManager.default.fileExists(atPath: path) }
        DaemonHarness.sleepBlocking(1)
        let rest = whole.count - cut
        #expect(whole.suffix(rest).withUnsafeBytes { write(fd, $0.baseAddress, rest) } == rest)
        close(fd)
        let archived = (h.archive as NSString).appendingPathComponent("clip.mp4")
        let done = await DaemonHarness.waitUntil(.seconds(60)) { FileManager.default.fileExists(atPath: archived) }
        daemon.signal(SIGTERM)
        _ = await daemon.wait()
        #expect(claimed, "never claimed mid-copy")
        #expect(done, "\(h.daemonLog)")
        #expect(h.daemonLog.contains("incomplete (it ends before its own index says it should); looking again"), "\(h.daemonLog)")
        #expect(h.daemonLog.contains("still being written ("), "\(h.daemonLog)")
        #expect(h.files(h.outbox) == ["clip.dropcut.mp4"])
        #expect(h.files(h.failed) == [])
        #expect(FileManager.default.contents(atPath: archived) == whole)
        #expect(h.claimedLeftovers() == [])
    }

    /// A Matroska or MPEG-TS copy that pauses for longer than `settle`: unlike an MP4 (whose
    /// missing index stops its render), the half that arrived renders cleanly — and was
    /// published as the clip, the whole original archived behind it. Its container gives
    /// the cut away (`ContainerTail`: the Matroska segment ends past the file, the file
    /// ends inside a transport packet), so the clip is looked at again, and rendered whole
    /// once the copy completes. The race is checked: the clip was claimed mid-copy.
    @Test(arguments: ["mkv", "ts"])
    func aPausedMatroskaOrTransportStreamCopyIsRenderedWhole(container: String) async throws {
        let h = try DaemonHarness(settle: 1, retries: 0)
        // 2 s, so that half of it (1 s) is told apart from the whole.
        let made = try await Fixtures.makeClip(in: h.dir.path, name: "whole.\(container)", seconds: 2, videoCodec: "mpeg4")
        let whole = try Data(contentsOf: URL(fileURLWithPath: made))
        let path = (h.inbox as NSString).appendingPathComponent("clip.\(container)")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        // Where a copy in 128 KiB pieces (cp's) pauses: not on a packet's boundary.
        var cut = whole.count / 2
        if cut % 188 == 0 { cut += 100 }
        #expect(whole.prefix(cut).withUnsafeBytes { write(fd, $0.baseAddress, cut) } == cut)
        let daemon = try h.startDaemon()
        // Claimed while the writer is paused, then paused two settles more (three in all,
        // at least): the pause is longer than settle, yet within the quiet looks.
        let claimed = DaemonHarness.waitUntilBlocking(.seconds(60)) { !FileManager.default.fileExists(atPath: path) }
        DaemonHarness.sleepBlocking(2)
        let rest = whole.count - cut
        #expect(whole.suffix(rest).withUnsafeBytes { write(fd, $0.baseAddress, rest) } == rest)
        close(fd)
        let archived = (h.archive as NSString).appendingPathComponent("clip.\(container)")
        let done = await DaemonHarness.waitUntil(.seconds(60)) { FileManager.default.fileExists(atPath: archived) }
        daemon.signal(SIGTERM)
        _ = await daemon.wait()
        try #require(claimed, "never claimed mid-copy: no race")
        #expect(done, "\(h.daemonLog)")
        let said = container == "mkv" ? "its Matroska segment ends at byte" : "it ends inside an MPEG-TS packet"
        #expect(h.daemonLog.contains(said) && h.daemonLog.contains("looking again"), "\(h.daemonLog)")
        #expect(h.files(h.outbox) == ["clip.dropcut.mp4"])
        let output = (h.outbox as NSString).appendingPathComponent("clip.dropcut.mp4")
        let duration = try FFprobe.format(of: output).duration.flatMap(Double.init)
        #expect(duration.map { abs($0 - 2) < 0.1 } == true, "rendered whole, not the half that had arrived: \(String(describing: duration)) s")
        #expect(FileManager.default.contents(atPath: archived) == whole)
        #expect(h.files(h.failed) == [])
        #expect(h.claimedLeftovers() == [])
    }

    /// A clip cut short for good (half an MP4, never completed): after `settle`s of looking
    /// it fails, its error file saying how to avoid it; nothing is published.
    @Test func aClipCutShortForGoodFailsSayingHowToAvoidIt() async throws {
        let h = try DaemonHarness(settle: 0.2, retries: 0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: try h.clip()))
        let path = (h.inbox as NSString).appendingPathComponent("cut.mp4")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        try h.age(path)
        let result = try await h.runOnce()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "looking again").count - 1 == ClipArrival.maximumQuietLooks, "\(result.stderr)")
        #expect(h.files(h.failed) == ["cut.mp4", "cut.mp4.error.txt"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("cut.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("the file is incomplete") && reason.contains("raise `settle`") && reason.contains("temporary name"), "\(reason)")
        #expect(reason.contains("Attempts: 1"), "\(reason)")
        #expect(h.files(h.outbox, hidden: true) == [])
    }

    @Test func aFullOutboxIsRetriedThenFailedAndTheInputIsKept() async throws {
        let h = try DaemonHarness(retries: 2, retryDelay: 0.1)
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        let mount = try await Command.run("mount", ["-t", "tmpfs", "-o", "size=4k", "tmpfs", h.outbox])
        guard mount.status == 0 else {
            print("SKIPPED disk-full case: cannot mount a small tmpfs here: \(mount.stderr)")
            return
        }
        defer { _ = try? Command.run("umount", [h.outbox]) }
        try h.drop("big.mp4")

        let result = try await h.runOnce()

        #expect(result.status == 1)
        #expect(h.files(h.failed) == ["big.mp4", "big.mp4.error.txt"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("big.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("No space left on device"), "\(reason)")
        #expect(reason.contains("Attempts: 3"))
        #expect(result.stderr.components(separatedBy: "retrying in").count - 1 == 2, "two retries: \(result.stderr)")
        // The input is intact and nothing is left in the outbox.
        #expect(FileManager.default.contents(atPath: (h.failed as NSString).appendingPathComponent("big.mp4"))
                == FileManager.default.contents(atPath: try h.clip()))
        #expect(h.files(h.outbox, hidden: true) == [])
        #expect(h.claimedLeftovers() == [])
    }

    /// Issue 17: an outbox on a share that goes away used to be re-created under the bare
    /// mount point, hiding its outputs once the share was back. Now the job waits (clip
    /// claimed, retried with backoff) and renders into the share when it is mounted again
    /// — with a new device number, as a remount has. A real tmpfs mount stands for the share.
    @Test func anUnmountedOutboxIsWaitedForNotWrittenAround() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, retryDelay: 0.2)
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=64m", "dropcut-test-outbox", h.outbox]).status == 0,
                     "the tests run as root and may mount a tmpfs")
        defer { _ = try? Command.run("umount", [h.outbox]) }
        let daemon = try h.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("dropcut ready") })
        try #require(await Command.run("umount", [h.outbox]).status == 0)

        try h.drop("waits.mp4")
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("the outbox \(h.outbox) is no longer on \(h.outbox) but on") },
                "log:\n\(h.daemonLog)")
        DaemonHarness.sleepBlocking(1)
        #expect(h.files(h.outbox, hidden: true) == [], "written around the missing share")
        #expect(h.files(h.failed) == [], "a share away is not the clip's fault")
        #expect(h.claimedLeftovers().contains { $0.hasSuffix("/waits.mp4") } && h.files(h.inbox) == [])

        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=64m", "dropcut-test-outbox", h.outbox]).status == 0)
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.outbox) == ["waits.dropcut.mp4"] && h.files(h.archive) == ["waits.mp4"] },
                "log:\n\(h.daemonLog)")
        #expect(h.daemonLog.components(separatedBy: "is no longer on").count == 2, "logged once while it waits")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// An inbox whose share goes away is unavailable (never an empty inbox), and is back
    /// when mounted again — although a remount gets a new device number.
    @Test func anInboxMountedAgainIsWatchedAgain() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1)
        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=64m", "dropcut-test-inbox", h.inbox]).status == 0,
                     "the tests run as root and may mount a tmpfs")
        defer { _ = try? Command.run("umount", [h.inbox]) }
        let daemon = try h.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("dropcut ready") })
        try #require(await Command.run("umount", [h.inbox]).status == 0)
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("the inbox \(h.inbox) is no longer on \(h.inbox) but on") },
                "log:\n\(h.daemonLog)")
        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=64m", "dropcut-test-inbox", h.inbox]).status == 0)
        try h.drop("back.mp4")
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.outbox) == ["back.dropcut.mp4"] && h.files(h.archive) == ["back.mp4"] },
                "log:\n\(h.daemonLog)")
        #expect(h.daemonLog.contains("is readable again"))
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }
}
