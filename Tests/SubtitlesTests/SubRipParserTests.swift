import Testing
import Timeline
@testable import Subtitles

@Suite struct SubRipParserTests {
    static func parse(_ text: String) throws(SubtitleError) -> [CaptionCue] {
        try SubRipParser.parse(Array(text.utf8), path: "talk.srt")
    }

    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test func readsCuesWithTheirTimesExactly() throws {
        let cues = try Self.parse("""
        1
        00:00:01,000 --> 00:00:03,500
        Hello there.

        2
        00:00:04,250 --> 00:01:02,001
        Two lines,
        the second one.

        """)
        #expect(cues.count == 2)
        #expect(cues[0].timeRange == TimeRange(start: Self.ms(1000), end: Self.ms(3500)))
        #expect(cues[0].text == "Hello there.")
        #expect(cues[1].timeRange == TimeRange(start: Self.ms(4250), end: Self.ms(62001)))
        #expect(cues[1].text == "Two lines,\nthe second one.")
    }

    @Test func acceptsWhatFilesInTheWildDo() throws {
        // BOM, CRLF, '.' for ',', no indices, extra blank lines, coordinates, 3-digit hours.
        let text = "\u{FEFF}\r\n\r\n00:00:01.000 --> 00:00:02.000 X1:10 X2:20 Y1:5 Y2:9\r\nA\r\n\r\n\r\n7\r\n10:00:00,000 --> 10:00:01,000\r\nB"
        let cues = try Self.parse(text)
        #expect(cues.map(\.text) == ["A", "B"])
        #expect(cues[0].timeRange.start == Self.ms(1000))
        #expect(cues[1].timeRange.start == Self.ms(36_000_000))
    }

    @Test func removesMarkupButKeepsTheWords() throws {
        let cues = try Self.parse("""
        1
        00:00:01,000 --> 00:00:02,000
        {\\an8}<i>Quiet</i> <b>please</b>, <font color="#ff0000">now</font> & a < b

        """)
        #expect(cues[0].text == "Quiet please, now & a < b")
    }

    @Test(arguments: [
        ("1\n00:00:01,000 -> 00:00:02,000\nx\n", 2, "no timing line"),
        ("1\n00:00:03,000 --> 00:00:02,000\nx\n", 2, "not after the start"),
        ("1\n00:61:01,000 --> 00:62:02,000\nx\n", 2, "below 60"),
        ("hello\n00:00:01,000 --> 00:00:02,000\nx\n", 1, "expected a cue number"),
        ("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:01 --> 00:00:02,000\nx\n", 6, "no milliseconds"),
        ("1\n00:00:01,000 --> 25:00:00,000\nx\n", 2, "more than 24 hours"),
        ("1\n00:00:01,000 --> 00:00:02,000\nx\n\n2\n00:00:0a,000 --> 00:00:02,000\n", 6, "not a time"),
    ])
    func refusesBrokenFilesWithTheLine(text: String, line: Int, reason: String) {
        #expect {
            _ = try Self.parse(text)
        } throws: { error in
            guard let error = error as? SubtitleError else { return false }
            return error.line == line && error.reason.contains(reason) && error.description.hasPrefix("talk.srt:\(line): ")
        }
    }

    @Test func refusesTextThatIsNotUTF8NamingItsLine() {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\ncaf".utf8)
        bytes.append(0xE9)   // Latin-1 é
        #expect {
            _ = try SubRipParser.parse(bytes, path: "talk.srt")
        } throws: { error in
            (error as? SubtitleError).map { $0.line == 3 && $0.reason.contains("not UTF-8") } ?? false
        }
        #expect(throws: SubtitleError.self) { _ = try SubRipParser.parse([0xFF, 0xFE, 0x31, 0x00], path: "talk.srt") }
    }

    @Test func skipsCuesWithoutText() throws {
        let cues = try Self.parse("1\n00:00:01,000 --> 00:00:02,000\n<i></i>\n\n2\n00:00:03,000 --> 00:00:04,000\nyes\n")
        #expect(cues.map(\.text) == ["yes"])
    }

    /// A cue that ends where it starts (pysrt's "SubRip capability tester" has one) shows
    /// nothing and is skipped; the file's other cues are read, as ffmpeg reads them.
    @Test func skipsZeroLengthCuesAndReadsTheRest() throws {
        let cues = try Self.parse("1\n00:00:01,000 --> 00:00:02,000\nbefore\n\n2\n00:00:03,000 --> 00:00:03,000\nnever shown\n\n3\n00:00:04,000 --> 00:00:05,000\nafter\n")
        #expect(cues.map(\.text) == ["before", "after"])
    }
}
