import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// `dropcut watch --once` end to end: real clips in a real inbox, real renders, real
/// journald entries read back with journalctl.
@Suite(.tags(.slow)) struct WatchOnceTests {
    @Test func threeClipsAndASidecarRecipeAreRenderedArchivedAndJournaled() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness()
        try h.drop("a.mp4")
        try h.drop("b.mp4")
        try h.drop("c.mp4")
        try h.write("b.yaml", "version: 1\noutput: { filename: \"{name}.square.mp4\", size: 240x240, fit: fill }\n")

        let result = try await h.runOnce()

        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("3 done, 0 failed"))
        #expect(h.files(h.outbox) == ["a.dropcut.mp4", "b.square.mp4", "c.dropcut.mp4"])
        #expect(h.files(h.archive) == ["a.mp4", "b.mp4", "b.yaml", "c.mp4"])
        #expect(h.files(h.inbox) == [])
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.failed) == [])
        // The sidecar recipe applied to b only.
        let square = try FFprobe.streams(of: (h.outbox as NSString).appendingPathComponent("b.square.mp4"))
        #expect(square.first { $0.codecType == "video" }.map { [$0.width, $0.height] } == [240, 240])
        let plain = try FFprobe.streams(of: (h.outbox as NSString).appendingPathComponent("a.dropcut.mp4"))
        #expect(plain.first { $0.codecType == "video" }.map { [$0.width, $0.height] } == [320, 240])
        // Outputs are readable by others (not root-only), whatever the umask.
        var info = stat()
        stat((h.outbox as NSString).appendingPathComponent("a.dropcut.mp4"), &info)
        #expect(info.st_mode & 0o777 == 0o644)

        // journald: a job-claimed and a job-done entry per clip, with the documented fields.
        var entries: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            entries = (try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? []
            return entries.filter { $0["MESSAGE_ID"] == MessageID.jobDone.rawValue }.count >= 3
        }
        let claimed = entries.filter { $0["MESSAGE_ID"] == MessageID.jobClaimed.rawValue }
        let done = entries.filter { $0["MESSAGE_ID"] == MessageID.jobDone.rawValue }
        #expect(claimed.count == 3)
        #expect(done.count == 3)
        #expect(Set(done.compactMap { $0["DROPCUT_INPUT"].map { ($0 as NSString).lastPathComponent } }) == ["a.mp4", "b.mp4", "c.mp4"])
        for entry in claimed + done {
            // journalctl -x fills the catalog's @FIELD@s from these very entries.
            #expect(try JournalCatalog.missingFields(for: entry["MESSAGE_ID"] ?? "", in: entry) == [])
            #expect(entry["SYSLOG_IDENTIFIER"] == "dropcut")
            #expect(entry["DROPCUT_JOB"]?.isEmpty == false)
            #expect(entry["CODE_FILE"]?.hasSuffix(".swift") == true)
            #expect(entry["CODE_LINE"].flatMap(Int.init) != nil)
            #expect(entry["CODE_FUNC"]?.isEmpty == false)
        }
        for entry in done {
            #expect(entry["PRIORITY"] == "5")
            #expect(entry["DROPCUT_OUTPUT"]?.hasPrefix(h.outbox + "/") == true)
            #expect(entry["DROPCUT_RECIPE"]?.isEmpty == false)
            #expect(entry["DROPCUT_ELAPSED_MS"].flatMap(Int.init).map { $0 > 0 } == true)
            #expect(entry["DROPCUT_SPEED"].flatMap(Double.init).map { $0 > 0 } == true)
        }
        let b = try #require(done.first { $0["DROPCUT_INPUT"]?.hasSuffix("/b.mp4") == true })
        #expect(b["DROPCUT_RECIPE"] == (h.inbox as NSString).appendingPathComponent("b.yaml"))
        #expect(b["DROPCUT_OUTPUT"] == (h.outbox as NSString).appendingPathComponent("b.square.mp4"))
    }

    @Test func badRecipeCorruptClipAndZeroByteClipFailWithReasonsAndGoodClipsStillRender() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness()
        try h.drop("first.mp4")
        try h.drop("badrecipe.mp4")
        try h.write("badrecipe.yaml", "version: 1\noutput:\n  fps: fast\n")
        try h.write("corrupt.mov", String(repeating: "not a movie ", count: 500))
        try h.write("empty.mp4", "")
        try h.drop("last.mp4")

        let result = try await h.runOnce()

        #expect(result.status == 1, "a failed clip makes --once exit 1; stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("2 done, 3 failed"))
        #expect(h.files(h.outbox) == ["first.dropcut.mp4", "last.dropcut.mp4"])
        #expect(h.files(h.failed) == ["badrecipe.mp4", "badrecipe.mp4.error.txt", "badrecipe.yaml",
                                      "corrupt.mov", "corrupt.mov.error.txt", "empty.mp4", "empty.mp4.error.txt"])
        func reason(_ name: String) throws -> String {
            try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("\(name).error.txt"), encoding: .utf8)
        }
        // Each error file names the file and the cause, pointing at the line of a bad recipe.
        let recipe = try reason("badrecipe.mp4")
        // Named as dropped, never by the daemon's claimed paths; the cause in words, FFmpeg's
        // account on the detail line.
        #expect(recipe.contains("Reason: badrecipe.yaml:3:"), "\(recipe)")
        #expect(recipe.contains("fps"))
        let corrupt = try reason("corrupt.mov")
        #expect(corrupt.contains("Reason: corrupt.mov: is not a video or audio file dropcut can read\n  detail: avformat_open_input: Invalid data"),
                "\(corrupt)")
        #expect(!corrupt.contains(".dropcut"), "\(corrupt)")
        #expect(try reason("empty.mp4").contains("empty (0 bytes)"))
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.inbox) == [])
        // The original bytes are intact in failed/.
        #expect(FileManager.default.contents(atPath: (h.failed as NSString).appendingPathComponent("corrupt.mov"))
                == Data(String(repeating: "not a movie ", count: 500).utf8))

        // job-failed entries carry the reason; status lists the failures.
        var failedEntries: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            failedEntries = ((try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? [])
                .filter { $0["MESSAGE_ID"] == MessageID.jobFailed.rawValue }
            return failedEntries.count >= 3
        }
        #expect(failedEntries.count == 3)
        #expect(failedEntries.allSatisfy { $0["PRIORITY"] == "3" })
        // The clip named once, then the cause in words.
        #expect(failedEntries.contains { $0["MESSAGE"]?.hasPrefix("failed corrupt.mov: is not a video or audio file dropcut can read\n  detail: ") == true },
                "\(failedEntries.map { $0["MESSAGE"] ?? "" })")
        for entry in failedEntries {
            #expect(try JournalCatalog.missingFields(for: MessageID.jobFailed.rawValue, in: entry) == [])
        }
        let status = try h.statusJSON()
        let failures = try #require(status["failures"] as? [[String: Any]])
        #expect(Set(failures.compactMap { $0["input"] as? String }) == ["badrecipe.mp4", "corrupt.mov", "empty.mp4"])
        #expect(failures.allSatisfy { ($0["error"] as? String)?.isEmpty == false })
    }

    @Test func outputNamesNeverOverwriteExistingFiles() async throws {
        let h = try DaemonHarness()
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        let existing = (h.outbox as NSString).appendingPathComponent("clip.dropcut.mp4")
        try "keep me".write(toFile: existing, atomically: true, encoding: .utf8)
        try h.drop("clip.mp4")
        #expect(try await h.runOnce().status == 0)
        try h.drop("clip.mp4")
        #expect(try await h.runOnce().status == 0)

        #expect(h.files(h.outbox) == ["clip.dropcut-1.mp4", "clip.dropcut-2.mp4", "clip.dropcut.mp4"])
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        #expect(h.files(h.archive) == ["clip-1.mp4", "clip.mp4"])
    }

    @Test func badConfigIsRefusedWithFileLineAndColumn() async throws {
        let h = try DaemonHarness()
        let path = h.dir.file("bad.yaml")
        try """
            state_dir: state
            settle: 1s
            folders:
              - name: x
                inbox: nowhere
                outbox: inbox/out
                failed: failed
                after_success: delete
                retires: 3
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await DropcutProcess.run(["watch", "--once", "--config", path])
        // EX_CONFIG, which the units name in RestartPreventExitStatus=.
        #expect(result.status == 78)
        #expect(result.stderr.contains("\(path):5:"), "missing inbox at its line: \(result.stderr)")
        #expect(result.stderr.contains("nowhere"))
        #expect(result.stderr.contains("\(path):9:5: unknown key 'retires'"))
        #expect(result.stderr.contains("did you mean 'retries'"))
    }
}
