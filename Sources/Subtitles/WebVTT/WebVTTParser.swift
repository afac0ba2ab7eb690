import DropcutTimeline

/// Reads WebVTT (`.vtt`) files by the W3C WebVTT spec's parser algorithm ("WebVTT parser
/// algorithm", "collect a WebVTT block"), line for line, so a file reads here as it reads
/// in a browser:
///
/// - Refused only where the spec fails a file — a first line that is not `WEBVTT` (alone,
///   or followed by a space or tab) — and past `SubtitleLimits`.
/// - A block is a cue when its first or second line holds `-->` and parses as cue timings;
///   the line before the timing line is the cue's identifier. Other blocks (`NOTE`, `STYLE`,
///   `REGION`, stray text) are skipped; a timing line that does not parse skips its block.
/// - A cue ends at a blank line, or at a line holding `-->` (the next cue, written without
///   a blank line before it: exports from youtube-dl and others do).
/// - Cue settings the spec does not know are dropped and the cue kept
///   (`WebVTTCueSettings`); a cue whose end is not after its start is read but shows
///   nothing (left out of `captions`).
///
/// What is skipped is said once per kind as a warning naming the first line.
public enum WebVTTParser {
    /// The cues of `bytes`; `path` names the file in errors and warnings.
    public static func read(_ bytes: [UInt8], path: String) throws(SubtitleError) -> SubtitleDocument {
        var warnings = SubtitleWarnings(path: path)
        var lines = try SubtitleText.lines(of: bytes, path: path, format: .webVTT, warnings: &warnings).lines
        // The empty "line" after a final line end is no line.
        if lines.count > 1, lines[lines.count - 1].isEmpty { lines.removeLast() }
        let signature = lines[0].unicodeScalars
        guard signature.starts(with: "WEBVTT".unicodeScalars),
              signature.count == 6 || signature.dropFirst(6).first == " " || signature.dropFirst(6).first == "\t" else {
            throw SubtitleError(path: path, line: 1, reason: "a WebVTT file starts with the line WEBVTT, got \(lines[0].quoted())")
        }
        var index = 1
        // The header: the lines after the signature up to a blank line (or a timing line).
        if index < lines.count, !lines[index].isEmpty {
            index = collectBlock(lines, from: index, inHeader: true, path: path, warnings: &warnings).next
        }
        var records: [SubtitleCueRecord] = []
        while index < lines.count {
            if lines[index].isEmpty { index += 1; continue }
            let block = collectBlock(lines, from: index, inHeader: false, path: path, warnings: &warnings)
            // Every block takes at least one line: the loop always moves on.
            index = max(block.next, index + 1)
            guard let cue = block.cue else { continue }
            guard records.count < SubtitleLimits.maximumCues else {
                throw SubtitleError(path: path, line: cue.line, reason: "more than \(SubtitleLimits.maximumCues) cues")
            }
            records.append(cue)
        }
        return try SubtitleDocument(format: .webVTT, cues: records, path: path, warnings: warnings)
    }

    /// The spec's "collect a WebVTT block" from line `start`: the cue it is, if it is one,
    /// and the line the next block starts at.
    private static func collectBlock(_ lines: [Substring], from start: Int, inHeader: Bool, path: String,
                                     warnings: inout SubtitleWarnings) -> (cue: SubtitleCueRecord?, next: Int) {
        var lineCount = 0
        var buffer: [Substring] = []
        var seenArrow = false
        var cue: SubtitleCueRecord?
        var index = start
        while index < lines.count {
            let line = lines[index]
            lineCount += 1
            index += 1
            if line.contains("-->") {
                guard !inHeader, lineCount == 1 || (lineCount == 2 && !seenArrow) else {
                    // The next block starts here: a cue written without a blank line before it.
                    if !inHeader, cue != nil {
                        warnings.add(.runOn, line: index, "a timing line with no blank line before it: the cue above ends here and a new one starts")
                    }
                    index -= 1
                    break
                }
                seenArrow = true
                switch timing(line) {
                case let .success((start, end, rest)):
                    let settings = WebVTTCueSettings.parse(rest, line: index, warnings: &warnings)
                    cue = SubtitleCueRecord(line: index, identifier: buffer.joined(separator: "\n"), start: start, end: end, text: "", settings: settings)
                    buffer = []
                case let .failure(reason):
                    warnings.add(.timing(reason.kind), line: index, "\(reason.text): the cue is skipped")
                }
            } else if line.isEmpty {
                break
            } else {
                buffer.append(line)
            }
        }
        guard var cue else {
            if !inHeader, !seenArrow, !isComment(buffer) {
                warnings.add(.notACue, line: start + 1, "not a cue (no timing line such as 00:01.000 --> 00:03.500): skipped")
            }
            return (nil, index)
        }
        cue.text = buffer.joined(separator: "\n")
        return (cue, index)
    }

    /// A `NOTE`, `STYLE` or `REGION` block: skipped without a word.
    private static func isComment(_ buffer: [Substring]) -> Bool {
        guard let first = buffer.first else { return true }
        for word in ["NOTE", "STYLE", "REGION"] where first.hasPrefix(word) {
            let after = first.dropFirst(word.count).first
            if after == nil || after == " " || after == "\t" { return true }
        }
        return false
    }

    /// The spec's "collect WebVTT cue timings and settings": the times in milliseconds and
    /// the text after the end time (the settings).
    private static func timing(_ line: Substring) -> Result<(Int64, Int64, Substring), SubtitleTimestamp.Reason> {
        var rest = line.drop { $0.isWebVTTWhitespace }
        let start: Int64
        switch SubtitleTimestamp.collectWebVTT(rest) {
        case let .success((ms, after)): start = ms; rest = after
        case let .failure(reason): return .failure(SubtitleTimestamp.Reason("the start time \(reason.text)", kind: reason.kind))
        }
        rest = rest.drop { $0.isWebVTTWhitespace }
        guard rest.hasPrefix("-->") else {
            return .failure(SubtitleTimestamp.Reason("expected --> after the start time, got \(line.quoted(60))", kind: .noArrow))
        }
        rest = rest.dropFirst(3).drop { $0.isWebVTTWhitespace }
        switch SubtitleTimestamp.collectWebVTT(rest) {
        case let .success((end, after)): return .success((start, end, after))
        case let .failure(reason): return .failure(SubtitleTimestamp.Reason("the end time \(reason.text)", kind: reason.kind))
        }
    }
}
