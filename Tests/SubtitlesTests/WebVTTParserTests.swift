import Foundation
import Testing
import Timeline
@testable import Subtitles

@Suite struct WebVTTParserTests {
    static func parse(_ text: String) throws(SubtitleError) -> [CaptionCue] {
        try WebVTTParser.parse(Array(text.utf8), path: "talk.vtt")
    }

    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test func readsCuesSettingsAndSkipsBlocks() throws {
        let cues = try Self.parse("""
        WEBVTT - a talk
        Kind: captions

        STYLE
        ::cue { color: yellow }

        NOTE this is
        a comment

        intro
        00:01.000 --> 00:03.500 line:10% position:25% align:start size:50%
        <v Anna>Hello</v> <c.loud>there</c> &amp; welcome &lt;3

        01:00:00.000 --> 01:00:02.000 line:-1 align:right
        Bye

        """)
        #expect(cues.count == 2)
        #expect(cues[0].timeRange == TimeRange(start: Self.ms(1000), end: Self.ms(3500)))
        #expect(cues[0].text == "Hello there & welcome <3")
        #expect(cues[0].placement == CuePlacement(line: .percent(10), position: 25, alignment: .start))
        #expect(cues[1].timeRange.start == Self.ms(3_600_000))
        #expect(cues[1].placement == CuePlacement(line: .number(-1), position: nil, alignment: .right))
    }

    @Test func timestampsInsideACueBecomeWordTiming() throws {
        let cues = try Self.parse("""
        WEBVTT

        00:00:01.000 --> 00:00:04.000
        Never <00:00:01.500>drink <00:00:02.250>liquid <00:00:03.000>nitrogen.

        """)
        let cue = try #require(cues.first)
        #expect(cue.text == "Never drink liquid nitrogen.")
        let utf8 = Array(cue.text.utf8)
        let spans = cue.words.map { String(decoding: utf8[$0.textRange], as: UTF8.self) }
        #expect(spans == ["Never ", "drink ", "liquid ", "nitrogen."])
        #expect(cue.words.map(\.start) == [Self.ms(1000), Self.ms(1500), Self.ms(2250), Self.ms(3000)])
        #expect(cue.word(at: Self.ms(2000)) == 1)
        #expect(cue.word(at: Self.ms(3999)) == 3)
    }

    @Test func aTimestampOutsideItsCueIsClampedIntoIt() throws {
        let cues = try Self.parse("WEBVTT\n\n00:01.000 --> 00:02.000\na <00:05.000>b <00:00.500>c\n")
        // b is clamped to the cue's end, c to b's time (never back): the two are one span.
        #expect(cues[0].words.map(\.start) == [Self.ms(1000), Self.ms(2000)])
        #expect(cues[0].words.map(\.textRange) == [0..<2, 2..<5])
    }

    @Test(arguments: [
        ("WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n", 1, "starts with the line WEBVTT"),
        ("hello\n", 1, "starts with the line WEBVTT"),
        ("WEBVTT\n\n00:01,000 --> 00:02.000\nx\n", 3, "no milliseconds"),
        ("WEBVTT\n\n00:03.000 --> 00:02.000\nx\n", 3, "not after the start"),
        ("WEBVTT\n\nid\nnot timing\nx\n", 3, "expected a cue timing line"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000 line:120%\nx\n", 3, "percentage"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000 align:middle\nx\n", 3, "align:middle"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nx <b\n", 4, "not closed"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nx <00:01.5>y\n", 4, "timestamp tag"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n00:03.000 --> 00:04.000\ny\n", 5, "blank line missing"),
    ])
    func refusesBrokenFilesWithTheLine(text: String, line: Int, reason: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            guard let error = error as? SubtitleError else { return false }
            return error.line == line && error.reason.contains(reason)
        }
    }

    @Test func writerAndParserAgree() throws {
        let cues = try Self.parse("""
        WEBVTT

        00:00:01.000 --> 00:00:04.000 line:80% align:left
        Fish &amp; <00:00:02.000>chips
        on two lines

        00:00:05.000 --> 00:00:06.000
        a < b

        """.replacingOccurrences(of: "a < b", with: "a &lt; b"))
        let written = WebVTTWriter.write(cues)
        let again = try WebVTTParser.parse(Array(written.utf8), path: "out.vtt")
        #expect(again == cues)
        #expect(written.contains("00:00:01.000 --> 00:00:04.000 line:80% align:left"))
    }
}
