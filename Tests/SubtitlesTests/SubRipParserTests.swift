import Testing
import Timeline
@testable import Subtitles

@Suite struct SubRipParserTests {
    static func read(_ text: String) throws(SubtitleError) -> SubtitleDocument {
        try SubRipParser.read(Array(text.utf8), path: "talk.srt")
    }

    static func parse(_ text: String) throws(SubtitleError) -> [CaptionCue] {
        try read(text).captions
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
        let document = try Self.read(text)
        #expect(document.captions.map(\.text) == ["A", "B"])
        #expect(document.captions[0].timeRange.start == Self.ms(1000))
        #expect(document.captions[1].timeRange.start == Self.ms(36_000_000))
        #expect(document.cues.map(\.identifier) == ["", "7"])
        #expect(document.warnings.isEmpty)
    }

    /// As ffmpeg's SRT demuxer reads a file (checked with `ffmpeg -i t.srt t2.srt`): text
    /// after a blank line belongs to the cue above until the next timing line; a cue may
    /// follow with no blank line before its number; `,5` is 5 ms.
    @Test func readsCuesAsFFmpegDoes() throws {
        let document = try Self.read("1\n00:00:01,000 --> 00:00:02,000\nA\n\nB\n\n2\n00:00:03,000 --> 00:00:04,000\nC\n\nstray\n\n"
                                     + "00:00:05,000 --> 00:00:06,000\nD\n3\n00:00:07,000 --> 00:00:08,000\nE\n\n5\n0:0:10,5 --> 00:00:11,000\nF\n")
        #expect(document.captions.map(\.text) == ["A\nB", "C\nstray", "D", "E", "F"])
        #expect(document.cues.map(\.start) == [1000, 3000, 5000, 7000, 10005])
        #expect(document.warnings.isEmpty)
    }

    @Test func readsMarkupIntoStyles() throws {
        let cues = try Self.parse("""
        1
        00:00:01,000 --> 00:00:02,000
        {\\an8}<i>Quiet</i> <b>please</b>, <font color="#ff0000">now</font> & a < b {\\u1}under{\\u0} <U>up</u>

        """)
        let cue = try #require(cues.first)
        #expect(cue.text == "Quiet please, now & a < b under up")
        func styled(_ word: String) -> CaptionTextStyle {
            let offset = cue.text.utf8.count - cue.text[cue.text.range(of: word)!.lowerBound...].utf8.count
            return cue.style(at: offset)
        }
        #expect(styled("Quiet") == CaptionTextStyle(italic: true))
        #expect(styled("please") == CaptionTextStyle(bold: true))
        #expect(styled("now") == CaptionTextStyle(color: Color(red: 1, green: 0, blue: 0)))
        #expect(styled("under") == CaptionTextStyle(underline: true))
        #expect(styled("up") == CaptionTextStyle(underline: true))
        #expect(styled("a <") == .plain)
        // The spans cover exactly the styled words.
        #expect(cue.styles.map { String(decoding: Array(cue.text.utf8)[$0.textRange], as: UTF8.self) } == ["Quiet", "please", "now", "under", "up"])
    }

    /// What a player skips is skipped and said once, naming the line; the rest of the
    /// file is read.
    @Test(arguments: [
        ("1\n00:00:01,000 -> 00:00:02,000\nx\n", [String](), 1, "no timing line"),
        ("1\n00:00:03,000 --> 00:00:02,000\nx\n\n2\n00:00:04,000 --> 00:00:05,000\ny\n", ["y"], 2, "ends at or before its start"),
        ("1\n00:61:01,000 --> 00:62:02,000\nx\n\n2\n00:00:04,000 --> 00:00:05,000\ny\n", ["y"], 2, "below 60"),
        ("hello\n00:00:01,000 --> 00:00:02,000\nx\n", ["x"], 1, "no timing line"),
        ("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:01 --> 00:00:02,000\nx\n", ["ok"], 6, "no milliseconds"),
        ("1\n00:00:01,000 --> 25:00:00,000\nx\n", [], 2, "more than 24 hours"),
        ("1\n00:00:01,000 --> 00:00:02,000\nx\n\n2\n00:00:0a,000 --> 00:00:02,000\nz\n", ["x"], 6, "not a time"),
    ])
    func skipsWhatPlayersSkipWithAWarningNamingTheLine(text: String, shown: [String], line: Int, reason: String) throws {
        let document = try Self.read(text)
        #expect(document.captions.map(\.text) == shown)
        let warning = try #require(document.warnings.first)
        #expect(document.warnings.count == 1)
        #expect(warning.line == line && warning.reason.contains(reason), "\(warning)")
        #expect(warning.description.hasPrefix("talk.srt:\(line): "))
    }

    /// Each kind of warning is said once, with how many more lines had it.
    @Test func aWarningIsSaidOncePerKind() throws {
        var text = ""
        for n in 0..<5 { text += "\(n)\n00:00:0\(n),000 --> 00:00:0\(n),000\nzero \(n)\n\n" }
        text += "9\n00:00:09,000 --> 00:00:09,500\nshown\n"
        let document = try Self.read(text)
        #expect(document.captions.map(\.text) == ["shown"])
        #expect(document.cues.count == 6)
        #expect(document.warnings == [SubtitleWarning(path: "talk.srt", line: 2, reason: "the cue ends at or before its start: it shows nothing, skipped", more: 4)])
        #expect(document.warnings[0].description.hasSuffix("(and 4 more like it)"))
    }

    @Test func refusesTextThatIsNotUTF8NamingItsLine() {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\ncaf".utf8)
        bytes.append(0xE9)   // Latin-1 é
        #expect {
            _ = try SubRipParser.read(bytes, path: "talk.srt")
        } throws: { error in
            (error as? SubtitleError).map { $0.line == 3 && $0.reason.contains("not UTF-8") } ?? false
        }
    }

    /// Wide encodings are named as what they are (a UTF-32LE file was once called UTF-16).
    @Test(arguments: [
        ([0xFF, 0xFE, 0x00, 0x00, 0x31, 0, 0, 0], "UTF-32LE"),
        ([0x00, 0x00, 0xFE, 0xFF, 0, 0, 0, 0x31], "UTF-32BE"),
        ([0xFF, 0xFE, 0x31, 0x00], "UTF-16LE"),
        ([0xFE, 0xFF, 0x00, 0x31], "UTF-16BE"),
        ([0x31, 0x00, 0x0A, 0x00, 0x30, 0x00, 0x30, 0x00], "UTF-16LE"),
        ([0x31, 0, 0, 0, 0x0A, 0, 0, 0], "UTF-32LE"),
    ] as [([UInt8], String)])
    func namesWideEncodings(bytes: [UInt8], name: String) {
        for format in SubtitleFormat.allCases {
            #expect {
                _ = try format.read(bytes, path: "talk.\(format.rawValue)")
            } throws: { error in
                (error as? SubtitleError).map { $0.reason == "the file is \(name): save it as UTF-8" } ?? false
            }
        }
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
