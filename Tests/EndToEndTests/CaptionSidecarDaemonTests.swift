import Foundation
import Testing
import TestSupport

/// A clip dropped with its captions (`clip.srt`, `clip.vtt`): claimed, rendered with them,
/// archived and failed together, as `.yaml` and `.AAE` sidecars are.
@Suite(.tags(.slow)) struct CaptionSidecarDaemonTests {
    /// A cue a player skips (it ends before it starts) is skipped and the clip rendered,
    /// the log saying so with the file and line; a file the format refuses whole (a WebVTT
    /// file without its signature line) fails the clip and its captions together.
    @Test func captionsTravelWithTheirClipAndABrokenOneFailsBothWithItsLine() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness()
        try h.drop("talk.mp4")
        try h.write("talk.srt", "1\n00:00:00,100 --> 00:00:00,900\nHello from the inbox\n\n2\n00:00:00,500 --> 00:00:00,200\nbackwards\n")
        try h.drop("Shaky.MOV")
        try h.write("shaky.VTT", "WEBVTT:captions\n\n00:00.100 --> 00:00.900\nfine\n")
        let result = try await h.runOnce()
        #expect(result.stdout.contains("1 done, 1 failed"), "\(result.stdout)\n\(result.stderr)")
        #expect(h.files(h.outbox) == ["talk.dropcut.mp4"])
        #expect(h.files(h.archive) == ["talk.mp4", "talk.srt"])
        #expect(h.files(h.failed) == ["Shaky.MOV", "Shaky.MOV.error.txt", "shaky.VTT"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("Shaky.MOV.error.txt"), encoding: .utf8)
        // Named as dropped, with the line and the cause.
        #expect(reason.contains("shaky.VTT: line 1: a WebVTT file starts with the line WEBVTT, got \"WEBVTT:captions\""), "\(reason)")
        // The skipped cue is a warning in the job's journal entries, naming file and line.
        var warning: [String: String]?
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            let entries = (try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? []
            warning = entries.first { $0["MESSAGE"]?.contains("captions: talk.srt:6: the cue ends at or before its start: not shown") == true }
            return warning != nil
        }
        #expect(warning?["PRIORITY"] == "4", "\(String(describing: warning))")
        #expect(!reason.contains(".dropcut/claimed"), "\(reason)")
        #expect(h.claimedLeftovers().isEmpty)
    }

    /// Captions holding every kind of emoji sequence — a flag (libunibreak 1.1 aborted the
    /// worker on it three times, and the clip failed), a tag sequence, a keycap, a ZWJ
    /// family, a skin tone — and a lone regional indicator are rendered, wrapped or not.
    @Test func emojiSequencesInCaptionsAreRendered() throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("flags.mp4")
        try h.write("flags.srt", """
            1
            00:00:00,100 --> 00:00:00,900
            Greetings from 🇯🇵 and 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}, press 1\u{FE0F}\u{20E3}, \u{1F1EF} alone, 👩\u{200D}👩\u{200D}👧 waves 👋🏽 🇫🇷🇩🇪🇺🇸🇬🇧🇯🇵🇰🇷🇮🇳🇧🇷🇿🇦🇨🇦

            """)
        let result = try h.runOnce()
        #expect(result.status == 0 && result.stdout.contains("1 done, 0 failed"), "\(result.stdout)\n\(result.stderr)")
        #expect(h.files(h.outbox) == ["flags.dropcut.mp4"])
        #expect(!result.stderr.contains("SIGABRT") && !result.stderr.contains("Assertion"), "\(result.stderr)")
    }
}
