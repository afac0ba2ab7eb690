import Foundation
import Testing
import TestSupport

/// A clip dropped with its captions (`clip.srt`, `clip.vtt`): claimed, rendered with them,
/// archived and failed together, as `.yaml` and `.AAE` sidecars are.
@Suite(.tags(.slow)) struct CaptionSidecarDaemonTests {
    @Test func captionsTravelWithTheirClipAndABrokenOneFailsBothWithItsLine() throws {
        let h = try DaemonHarness()
        try h.drop("talk.mp4")
        try h.write("talk.srt", "1\n00:00:00,100 --> 00:00:00,900\nHello from the inbox\n")
        try h.drop("Shaky.MOV")
        try h.write("shaky.VTT", "WEBVTT\n\n00:00.100 --> 00:00.900\nfine\n\n00:00.500 --> 00:00.200\nbackwards\n")
        let result = try h.runOnce()
        #expect(result.stdout.contains("1 done, 1 failed"), "\(result.stdout)\n\(result.stderr)")
        #expect(h.files(h.outbox) == ["talk.dropcut.mp4"])
        #expect(h.files(h.archive) == ["talk.mp4", "talk.srt"])
        #expect(h.files(h.failed) == ["Shaky.MOV", "Shaky.MOV.error.txt", "shaky.VTT"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("Shaky.MOV.error.txt"), encoding: .utf8)
        // Named as dropped, with the line and the cause.
        #expect(reason.contains("shaky.VTT: line 6: the end 00:00.200 is not after the start 00:00.500"), "\(reason)")
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
