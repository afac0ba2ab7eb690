import Foundation
import Testing
import DropcutTimeline
@testable import DropcutSubtitles

@Suite struct WebVTTParserTests {
    static func read(_ text: String) throws(SubtitleError) -> SubtitleDocument {
        try WebVTTParser.read(Array(text.utf8), path: "talk.vtt")
    }

    static func parse(_ text: String) throws(SubtitleError) -> [CaptionCue] {
        try read(text).captions
    }

    static func settings(_ body: (inout WebVTTCueSettings) -> Void) -> WebVTTCueSettings {
        var settings = WebVTTCueSettings()
        body(&settings)
        return settings
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

    /// Only a bad signature fails a file, as in the spec's parser.
    @Test(arguments: ["WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n", "hello\n", "\u{FEFF}\tWEBVTT\n", "\nWEBVTT\n", "WEBVT", ""])
    func refusesAFileWithoutTheSignature(text: String) {
        #expect {
            _ = try Self.read(text)
        } throws: { error in
            guard let error = error as? SubtitleError else { return false }
            return error.line == 1 && error.reason.contains("starts with the line WEBVTT")
        }
    }

    /// What the spec's parser skips is skipped — a setting value it does not know, a cue
    /// whose timing does not parse, a block that is no cue — said once, naming the line,
    /// and every other cue is read.
    @Test(arguments: [
        ("WEBVTT\n\n00:01,000 --> 00:02.000\nx\n\n00:03.000 --> 00:04.000\ny\n", ["y"], 3, "no milliseconds"),
        ("WEBVTT\n\n00:03.000 --> 00:02.000\nx\n\n00:03.000 --> 00:04.000\ny\n", ["y"], 3, "ends at or before its start"),
        ("WEBVTT\n\nid\nnot timing\nx\n\n00:03.000 --> 00:04.000\ny\n", ["y"], 3, "not a cue"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000 line:120%\nx\n", ["x"], 3, "line:120%"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000 align:middle\nx\n", ["x"], 3, "align:middle"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000 colour:red\nx\n", ["x"], 3, "not a WebVTT cue setting"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nx <00:01.5>y\n", ["x y"], 4, "timestamp tag"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n00:03.000 --> 00:04.000\ny\n", ["x", "y"], 5, "no blank line before it"),
    ])
    func skipsWhatTheSpecSkipsWithAWarningNamingTheLine(text: String, shown: [String], line: Int, reason: String) throws {
        let document = try Self.read(text)
        #expect(document.captions.map(\.text) == shown)
        let warning = try #require(document.warnings.first)
        #expect(document.warnings.count == 1, "\(document.warnings)")
        #expect(warning.line == line && warning.reason.contains(reason), "\(warning)")
        #expect(warning.description.hasPrefix("talk.vtt:\(line): "))
    }

    /// One warning per kind, and kinds fine enough that the message stands for the rest:
    /// two settings wrong in different ways are two warnings; the same problem on many
    /// lines is one, counted; a bad time and a time past the limit are two. Control
    /// characters in a quoted value are shown, not printed.
    @Test func warningsAreOnePerKindOfProblem() throws {
        let document = try Self.read("""
        WEBVTT

        00:01.000 --> 00:02.000 align:middle position:10
        a

        00:03.000 --> 00:04.000 align:middle
        b

        00:05.000 --> 00:0x.000
        c

        99:00:00.000 --> 99:00:01.000
        d

        00:06.000 --> 00:07.000 vertical:R\u{0B}L
        e

        \u{0B}00:08.000 --> 00:09.000
        not whitespace to WebVTT: no time

        """)
        #expect(document.captions.map(\.text) == ["a", "b", "e"])
        #expect(document.warnings.map(\.description) == [
            "talk.vtt:3: the cue setting \"align:middle\" is not start, center, end, left or right: ignored, the cue is kept (and 1 more like it)",
            "talk.vtt:3: the cue setting \"position:10\" is not a percentage from 0% to 100%: ignored, the cue is kept",
            "talk.vtt:9: the end time \"00:0x.000\" is not a time ([HH:]MM:SS.mmm): the cue is skipped (and 1 more like it)",
            "talk.vtt:12: the start time \"99:00:00.000\" is more than 24 hours: the cue is skipped",
            "talk.vtt:15: the cue setting \"vertical:R\\u{B}L\" is not rl or lr: ignored, the cue is kept",
        ])
    }

    /// A Netflix export's `align:middle` (an older draft's word) keeps its cue, centred.
    @Test func anUnknownAlignmentIsDroppedAndTheCueKept() throws {
        let document = try Self.read("WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000 position:20% align:middle line:85%\nHello\n")
        let cue = try #require(document.captions.first)
        #expect(cue.placement == CuePlacement(line: .percent(85), position: 20, alignment: .center))
        #expect(document.cues[0].settings.alignment == nil)
        #expect(document.cues[0].identifier == "1")
    }

    /// A youtube-dl export whose cues run on without blank lines: each timing line starts
    /// a cue, as the spec's block collection has it; an identifier line left between two
    /// cues belongs to the text above (the spec's reading, and a browser's).
    @Test func cuesRunningIntoEachOtherAreEachRead() throws {
        let document = try Self.read("""
        WEBVTT
        Kind: captions
        Language: en

        00:00:00.000 --> 00:00:02.000 align:start position:0%
        first line
        00:00:02.000 --> 00:00:04.000 align:start position:0%
        second line
        more
        00:00:04.000 --> 00:00:06.000
        third

        """)
        #expect(document.captions.map(\.text) == ["first line", "second line\nmore", "third"])
        #expect(document.warnings.count == 1)
        #expect(document.warnings[0].line == 7 && document.warnings[0].more == 1)
    }

    /// The spec's settings: line with its alignment, position with its alignment (the older
    /// drafts' start/end read as line-left/line-right), size, vertical, region; bad values
    /// dropped one by one.
    @Test(arguments: [
        ("line:50%,center", Self.settings { s in s.line = .percent(50); s.lineAlignment = .center }),
        ("line:-2,end", Self.settings { s in s.line = .number(-2); s.lineAlignment = .end }),
        ("line:0", Self.settings { s in s.line = .number(0) }),
        ("line:1.5", Self.settings { s in s.line = .number(1.5) }),
        ("line:65536", Self.settings { s in s.line = .number(65536) }),
        ("line:50%,middle", WebVTTCueSettings()),
        ("line:-5%", WebVTTCueSettings()),
        ("line:5-", WebVTTCueSettings()),
        ("line:.5", WebVTTCueSettings()),
        ("position:42%,line-left", Self.settings { s in s.position = 42; s.positionAlignment = .lineLeft }),
        ("position:42%,start", Self.settings { s in s.position = 42; s.positionAlignment = .lineLeft }),
        ("position:42%,end", Self.settings { s in s.position = 42; s.positionAlignment = .lineRight }),
        ("position:42.5%,line-right", Self.settings { s in s.position = 42.5; s.positionAlignment = .lineRight }),
        ("position:42%,left", WebVTTCueSettings()),
        ("position:101%", WebVTTCueSettings()),
        ("position:42", WebVTTCueSettings()),
        ("size:80%", Self.settings { s in s.size = 80 }),
        ("size:80", WebVTTCueSettings()),
        ("vertical:rl", Self.settings { s in s.vertical = "rl" }),
        ("vertical:up", WebVTTCueSettings()),
        ("region:fred", Self.settings { s in s.region = "fred" }),
        ("align:end", Self.settings { s in s.alignment = .end }),
        ("align:", WebVTTCueSettings()),
        (":end", WebVTTCueSettings()),
    ] as [(String, WebVTTCueSettings)])
    func readsCueSettingsAsTheSpecDoes(setting: String, want: WebVTTCueSettings) throws {
        let document = try Self.read("WEBVTT\n\n00:01.000 --> 00:02.000 \(setting)\nx\n")
        #expect(document.cues.first?.settings == want)
        // A setting kept is not warned of; one dropped is, naming its line.
        #expect(document.warnings.map(\.line) == (want == WebVTTCueSettings() ? [3] : []))
    }

    /// The spec's timestamps: minutes first unless the first field is not two digits up to
    /// 59 (then hours, and a third field is needed); the settings may follow the end time
    /// with no space.
    @Test(arguments: [
        ("00:01.000 --> 00:02.000", 1000, 2000),
        ("1:00:01.000 --> 1:00:02.000", 3_601_000, 3_602_000),
        ("00:00:01.000-->00:00:02.000align:start", 1000, 2000),
        ("\t 00:01.000 \t-->\t00:02.500", 1000, 2500),
    ])
    func readsTimingsAsTheSpecDoes(line: String, start: Int64, end: Int64) throws {
        let document = try Self.read("WEBVTT\n\n\(line)\nx\n")
        #expect(document.cues.map(\.start) == [start])
        #expect(document.cues.map(\.end) == [end])
    }

    @Test(arguments: ["000:00.000 --> 00:02.000", "60:00.000 --> 61:00.000", "00:01.0000 --> 00:02.000", "00:01.000 -> 00:02.000"])
    func skipsTimingsTheSpecFails(line: String) throws {
        let document = try Self.read("WEBVTT\n\n\(line)\nx\n")
        #expect(document.cues.isEmpty)
        #expect(document.warnings.count == 1)
    }

    /// The spec's tokenizer: a `<` with no `>` runs to the end of the cue as a tag; an
    /// unknown tag is dropped with its name; `&` not starting a reference is text.
    @Test func readsCueTextAsTheSpecTokenizerDoes() throws {
        let cues = try Self.parse("WEBVTT\n\n00:01.000 --> 00:02.000\nx <foo>bar</foo> &amp &lt; & <b\nhidden\n\n00:03.000 --> 00:04.000\n<b.red.bg_yellow>y</b> <v.blue Anna>z</v> <i>i</i><u>u</u> <c.magenta><i>mi</i></c>\n")
        #expect(cues.map(\.text) == ["x bar &amp < &", "y z iu mi"])
        let cue = cues[1]
        let red = Color(red: 1, green: 0, blue: 0), yellow = Color(red: 1, green: 1, blue: 0)
        #expect(cue.styles == [
            CaptionStyledSpan(textRange: 0..<1, style: CaptionTextStyle(bold: true, color: red, background: yellow)),
            CaptionStyledSpan(textRange: 2..<3, style: CaptionTextStyle(color: Color(red: 0, green: 0, blue: 1))),
            CaptionStyledSpan(textRange: 4..<5, style: CaptionTextStyle(italic: true)),
            CaptionStyledSpan(textRange: 5..<6, style: CaptionTextStyle(underline: true)),
            CaptionStyledSpan(textRange: 7..<9, style: CaptionTextStyle(italic: true, color: Color(red: 1, green: 0, blue: 1))),
        ])
    }

    /// Invalid UTF-8 and NUL become U+FFFD, as the spec decodes; said once.
    @Test func replacesWhatIsNotUTF8AsTheSpecDecodes() throws {
        var bytes = Array("WEBVTT\n\n00:01.000 --> 00:02.000\ncaf".utf8)
        bytes += [0xE9, 0x0A, 0x61, 0x00, 0x62, 0x0A]
        let document = try WebVTTParser.read(bytes, path: "talk.vtt")
        #expect(document.captions.map(\.text) == ["caf\u{FFFD}\na\u{FFFD}b"])
        #expect(document.warnings.map(\.line) == [4, 5])
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
        let again = try WebVTTParser.read(Array(written.utf8), path: "out.vtt").captions
        #expect(again == cues)
        #expect(written.contains("00:00:01.000 --> 00:00:04.000 line:80% align:left"))
    }
}
