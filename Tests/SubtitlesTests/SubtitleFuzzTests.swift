import Foundation
import Testing
import DropcutTimeline
import TestSupport
@testable import DropcutSubtitles

/// Mutated and random subtitle files, in-process (seeded, replayable) and through zzuf (a
/// real mutator on real files): every one parses to sane cues or fails with a
/// `SubtitleError` naming a line of the file — never a trap, never a hang.
@Suite struct SubtitleFuzzTests {
    static let subRip = """
    1
    00:00:01,000 --> 00:00:02,500
    <i>Hello</i> {\\an8}there

    2
    00:00:03,000 --> 00:00:05,000 X1:1 X2:2
    Two <b>lines</b>
    of text & more

    """
    static let webVTT = """
    WEBVTT

    NOTE comment

    a
    00:01.000 --> 00:02.500 line:90% position:50% align:center
    <v Ann>Never</v> <00:01.500>drink &amp; <00:02.000><c.x>swim</c>

    00:03.000 --> 01:00:05.000 line:-2
    Two &#233; &lrm;lines

    """

    /// Numbers at and past every bound a parser checks.
    static let oddFragments = ["99", "60", "59", "-1", "9999999999", "24:00:00,001", "99:99:99,999", "00:00:00,000", "%", "101%",
                               "-->", "<", ">", "&", "&#0;", "&#x110000;", "&#99999999999;", "<00:00.000>", "\u{0}", "\r", "\u{FEFF}", "line:", "align:"]

    static func mutate(_ bytes: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !out.isEmpty else { break }
            let at = Int.random(in: 0..<out.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: out[at] = UInt8.random(in: 0...255, using: &rng)
            case 1: out.remove(at: at)
            case 2: out.insert(contentsOf: Array(oddFragments.randomElement(using: &rng)!.utf8), at: at)
            case 3:   // duplicate a stretch
                let end = min(out.count, at + Int.random(in: 1...40, using: &rng))
                out.insert(contentsOf: Array(out[at..<end]), at: at)
            default: out.insert(UInt8(ascii: "\n"), at: at)
            }
        }
        return out
    }

    /// Parses and checks the outcome is one of the two allowed.
    static func check(_ bytes: [UInt8], format: SubtitleFormat, label: String) {
        let lineCount = bytes.reduce(1) { $1 == UInt8(ascii: "\n") || $1 == UInt8(ascii: "\r") ? $0 + 1 : $0 }
        do {
            let document = try format.read(bytes, path: "fuzz.\(format.rawValue)")
            let cues = document.captions
            for warning in document.warnings {
                #expect(warning.line >= 0 && warning.line <= lineCount, "\(label): warning on line \(warning.line) of \(lineCount)")
            }
            for record in document.cues {
                #expect(record.line >= 1 && record.line <= lineCount, "\(label): cue on line \(record.line)")
                #expect(record.start >= 0 && record.end <= SubtitleLimits.maximumTimeMilliseconds, "\(label)")
            }
            for cue in cues {
                var previous = 0
                for span in cue.styles {
                    #expect(span.textRange.lowerBound >= previous && span.textRange.upperBound <= cue.text.utf8.count
                            && !span.textRange.isEmpty && span.style != .plain, "\(label): a style span out of order or outside its text")
                    previous = span.textRange.upperBound
                }
                #expect(cue.timeRange.duration > .zero, "\(label): a cue that does not last")
                #expect(cue.timeRange.end <= MediaTime(value: SubtitleLimits.maximumTimeMilliseconds, timescale: 1000), "\(label)")
                #expect(cue.text.utf8.count <= SubtitleLimits.maximumCueBytes, "\(label)")
                for word in cue.words {
                    #expect(word.textRange.lowerBound >= 0 && word.textRange.upperBound <= cue.text.utf8.count, "\(label): a word outside its text")
                    #expect(cue.timeRange.start <= word.start && word.start <= cue.timeRange.end, "\(label): a word outside its cue")
                }
            }
            // What parsed is written and read back the same (WebVTT; the writer writes text,
            // times, word timing and placement, not the markup's styles).
            if format == .webVTT {
                let plain = cues.map { cue in var cue = cue; cue.styles = []; return cue }
                let again = try? WebVTTParser.read(Array(WebVTTWriter.write(cues).utf8), path: "again.vtt").captions
                #expect(again == plain, "\(label): written and read back differently")
            }
        } catch {
            #expect(error.line >= 0 && error.line <= lineCount, "\(label): line \(error.line) of \(lineCount)")
            #expect(!error.reason.isEmpty, "\(label)")
        }
    }

    @Test(arguments: SubtitleFormat.allCases)
    func mutatedFilesFailCleanly(format: SubtitleFormat) {
        let seed = Array((format == .subRip ? Self.subRip : Self.webVTT).utf8)
        var rng = SplitMix64(state: format == .subRip ? 31 : 32)
        for iteration in 0..<4000 {
            Self.check(Self.mutate(seed, using: &rng), format: format, label: "\(format) mutation \(iteration)")
        }
        for iteration in 0..<500 {
            let random = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            Self.check(random, format: format, label: "\(format) random \(iteration)")
        }
    }

    /// zzuf (the mutator scripts/fuzz uses on clips) over the sample files at many seeds.
    @Test(arguments: SubtitleFormat.allCases)
    func zzufMutationsFailCleanly(format: SubtitleFormat) throws {
        let dir = try TemporaryDirectory()
        let original = dir.file("sample.\(format.rawValue)")
        try (format == .subRip ? Self.subRip : Self.webVTT).write(toFile: original, atomically: true, encoding: .utf8)
        // One shell for all the seeds: 150 mutants at 2 % of the bits each.
        _ = try Command.runChecked("/bin/sh", ["-c", "cd '\(dir.path)' && for s in $(seq 0 149); do zzuf -s $s -r 0.02 < sample.\(format.rawValue) > mutated-$s.\(format.rawValue) || exit 1; done"])
        for seed in 0..<150 {
            let mutated = dir.file("mutated-\(seed).\(format.rawValue)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: mutated)))
            Self.check(bytes, format: format, label: "\(format) zzuf seed \(seed)")
        }
    }
}
