import Foundation
import Testing
import DropcutTimeline
@testable import DropcutSubtitles

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
    /// follow with no blank line before its number; `,5` is 5 ms; any number of digits
    /// (ExoPlayer's test file writes `00:00:013,567`); 61 minutes are 1 h 1 min.
    @Test func readsCuesAsFFmpegDoes() throws {
        let document = try Self.read("1\n00:00:01,000 --> 00:00:02,000\nA\n\nB\n\n2\n00:00:03,000 --> 00:00:04,000\nC\n\nstray\n\n"
                                     + "00:00:05,000 --> 00:00:06,000\nD\n3\n00:00:07,000 --> 00:00:08,000\nE\n\n5\n0:0:10,5 --> 00:00:11,000\nF\n\n"
                                     + "6\n00:00:013,567 --> 00:00:14,901\nG\n\n7\n00:61:01,000 --> 00:61:02,000\nH\n")
        #expect(document.captions.map(\.text) == ["A\nB", "C\nstray", "D", "E", "F", "G", "H"])
        #expect(document.cues.map(\.start) == [1000, 3000, 5000, 7000, 10005, 13567, 3_661_000])
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
        ("1\n00:00:01,000 --> 00:00:0x,000\nx\n\n2\n00:00:04,000 --> 00:00:05,000\ny\n", ["y"], 2, "the end time \"00:00:0x,000\" is not a time"),
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
        #expect(document.warnings == [SubtitleWarning(path: "talk.srt", line: 2, reason: "the cue ends at or before its start: not shown", more: 4)])
        #expect(document.warnings[0].description.hasSuffix("(and 4 more like it)"))
    }

    /// A file in another encoding (every accented letter a byte that is not UTF-8) is
    /// refused naming its first such line: drawn as UTF-8 it would burn noise.
    @Test func refusesTextInAnotherEncodingNamingItsLine() {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 --> 00:00:04,000\n".utf8)
        bytes += Array("café crème à la française".data(using: .isoLatin1)!)
        #expect {
            _ = try SubRipParser.read(bytes, path: "talk.srt")
        } throws: { error in
            (error as? SubtitleError).map { $0.line == 7 && $0.reason == "the text is not UTF-8 (4 bytes are not): save the file as UTF-8" } ?? false
        }
    }

    /// A UTF-8 file with a damaged byte or two (a real film's file had one Latin-1 °) is
    /// read, those characters shown as U+FFFD, and said once.
    @Test func readsUTF8WithAFewDamagedBytes() throws {
        var bytes = Array("1\n00:00:01,000 --> 00:00:02,000\nIt is 20".utf8)
        bytes.append(0xB0)   // ° in Latin-1
        bytes += Array("C in Zürich\n\n2\n00:00:03,000 --> 00:00:04,000\nnext\n".utf8)
        let document = try SubRipParser.read(bytes, path: "talk.srt")
        #expect(document.captions.map(\.text) == ["It is 20\u{FFFD}C in Zürich", "next"])
        #expect(document.warnings.map(\.description) == ["talk.srt:3: 1 byte is not UTF-8: shown as \u{FFFD}"])
    }

    /// UTF-16 and UTF-32, with a byte order mark or without (by the zero bytes of its ASCII
    /// text), are decoded, as ffmpeg and pysrt read them; a UTF-32LE file is not taken for
    /// UTF-16 (it once was).
    @Test(arguments: [SubtitleText.WideEncoding.utf16LE, .utf16BE, .utf32LE, .utf32BE], [true, false])
    func readsWideEncodings(encoding: SubtitleText.WideEncoding, marked: Bool) throws {
        let srt = "\u{FEFF}1\n00:00:01,000 --> 00:00:02,000\nZürich 🇯🇵\n"
        let vtt = "\u{FEFF}WEBVTT\n\n00:01.000 --> 00:02.000\nZürich 🇯🇵\n"
        for (format, text) in [(SubtitleFormat.subRip, srt), (.webVTT, vtt)] {
            let body = marked ? text : String(text.unicodeScalars.dropFirst())
            var bytes: [UInt8] = []
            switch encoding {
            case .utf16LE: for unit in body.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            case .utf16BE: for unit in body.utf16 { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            case .utf32LE: for scalar in body.unicodeScalars { bytes += (0..<4).map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
            case .utf32BE: for scalar in body.unicodeScalars { bytes += (0..<4).reversed().map { UInt8((scalar.value >> (8 * $0)) & 0xFF) } }
            }
            #expect(SubtitleText.wideEncoding(bytes) == encoding)
            let document = try format.read(bytes, path: "talk.\(format.rawValue)")
            #expect(document.captions.map(\.text) == ["Zürich 🇯🇵"], "\(format) \(encoding) marked \(marked)")
            #expect(document.warnings.isEmpty)
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
