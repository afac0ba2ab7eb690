import Foundation
import Testing
@testable import DropcutMediaIO
import TestSupport
import DropcutTimeline

/// A clip's own captions: the text subtitle streams ffmpeg muxes (mov_text in MP4, WebVTT
/// and SubRip in Matroska) read back as the cues of the file they were made from.
@Suite struct SubtitleTrackReaderTests {
    static let srt = """
    1
    00:00:00,500 --> 00:00:01,250
    <i>First</i> line

    2
    00:00:02,000 --> 00:00:03,500
    Second,
    two lines

    """

    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test(arguments: [("mp4", "mov_text"), ("mkv", "webvtt"), ("mkv", "srt"), ("mov", "mov_text")])
    func embeddedSubtitlesReadBackAsTheirCues(container: String, codec: String) throws {
        let dir = try TemporaryDirectory()
        try Self.srt.write(toFile: dir.file("talk.srt"), atomically: true, encoding: .utf8)
        let clip = dir.file("clip.\(container)")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=4", "-i", dir.file("talk.srt"),
                                          "-map", "0", "-map", "1", "-c:v", "libx264", "-preset", "ultrafast", "-c:s", codec, clip])
        let cues = try SubtitleTrackReader.cues(of: clip)
        #expect(cues.map(\.text) == ["First line", "Second,\ntwo lines"])
        #expect(cues.map(\.timeRange) == [TimeRange(start: Self.ms(500), end: Self.ms(1250)), TimeRange(start: Self.ms(2000), end: Self.ms(3500))])
        #expect(try AssetProbe().subtitleCues(clip) == cues)
    }

    @Test func aClipWithoutSubtitlesSaysSo() throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("plain.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=1", "-c:v", "libx264", "-preset", "ultrafast", clip])
        #expect {
            _ = try SubtitleTrackReader.cues(of: clip)
        } throws: { error in
            "\(error)" == "\(clip): has no subtitle stream (captions: embedded reads mov_text, WebVTT, SubRip or ASS)"
        }
    }

    @Test func assDialogueBecomesPlainText() {
        #expect(ASSDialogueText.plain("0,0,Default,,0,0,0,,{\\i1}Hello{\\i0}\\Nworld\\hagain") == "Hello\nworld again")
        #expect(ASSDialogueText.plain("Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,a, b") == "a, b")
        #expect(ASSDialogueText.plain("1,0,Default,,0,0,0,,  spaced  \\N\\N  ") == "spaced")
        #expect(ASSDialogueText.plain("no commas") == "")
        // Whatever bytes come in, no trap and no control characters out.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...80, using: &rng)).map { _ in [UInt8(ascii: ","), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"), UInt8(ascii: "N"), 0, 9, 0x41, 0xC3, 0xA9].randomElement(using: &rng)! }
            let text = ASSDialogueText.plain(String(decoding: bytes, as: UTF8.self))
            #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
        }
    }

    /// zzuf over a real MP4 with a mov_text stream: each mutant gives sane cues or an
    /// error, never a trap or a hang.
    @Test func mutatedClipsWithSubtitlesFailCleanly() throws {
        let dir = try TemporaryDirectory()
        try Self.srt.write(toFile: dir.file("talk.srt"), atomically: true, encoding: .utf8)
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=3", "-i", dir.file("talk.srt"),
                                          "-map", "0", "-map", "1", "-c:v", "libx264", "-preset", "ultrafast", "-c:s", "mov_text", dir.file("clip.mp4")])
        _ = try Command.runChecked("/bin/sh", ["-c", "cd '\(dir.path)' && for s in $(seq 0 39); do zzuf -s $s -r 0.01 < clip.mp4 > m-$s.mp4 || exit 1; done"])
        var read = 0, refused = 0
        for seed in 0..<40 {
            do {
                for cue in try SubtitleTrackReader.cues(of: dir.file("m-\(seed).mp4")) {
                    #expect(cue.timeRange.start >= .zero && cue.timeRange.duration > .zero, "seed \(seed)")
                    #expect(cue.timeRange.end <= MediaTime(value: 86_400, timescale: 1), "seed \(seed)")
                    #expect(cue.text.utf8.count <= 4096 && !cue.text.isEmpty, "seed \(seed)")
                }
                read += 1
            } catch {
                #expect(!"\(error)".isEmpty)
                refused += 1
            }
        }
        #expect(read + refused == 40)
    }
}
