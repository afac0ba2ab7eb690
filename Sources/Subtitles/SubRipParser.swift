import Timeline

/// Reads SubRip (`.srt`) files: blocks separated by blank lines, each an optional index, a
/// timing line `00:00:01,000 --> 00:00:03,500` and one or more lines of text.
///
/// Strict where a mistake would misplace captions (a timing line that does not parse, an
/// end before its start, a block without a timing line) — each an error with its line —
/// and lenient where files in the wild differ harmlessly: `.` for `,`, missing or
/// non-sequential indices, extra blank lines, position coordinates after the times
/// (`X1:… Y1:…`, ignored), CRLF line ends, a BOM, a cue that ends where it starts
/// (skipped: it shows nothing).
public enum SubRipParser {
    /// The cues of `bytes`; `path` names the file in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(SubtitleError) -> [CaptionCue] {
        let lines = try SubtitleText.lines(of: bytes, path: path).lines
        var cues: [CaptionCue] = []
        var index = 0
        while index < lines.count {
            // Blank lines between blocks.
            guard !lines[index].trimmed.isEmpty else { index += 1; continue }
            let blockStart = index
            // An optional index line, then the timing line.
            var timingLine = index
            if !lines[index].contains("-->") {
                guard lines[index].trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw SubtitleError(path: path, line: index + 1, reason: "expected a cue number or a timing line (00:00:01,000 --> 00:00:03,500), got \"\(lines[index].prefix(60))\"")
                }
                timingLine = index + 1
                guard timingLine < lines.count, lines[timingLine].contains("-->") else {
                    throw SubtitleError(path: path, line: timingLine < lines.count ? timingLine + 1 : index + 1,
                                        reason: "cue \(lines[index].trimmed.prefix(12)) has no timing line (00:00:01,000 --> 00:00:03,500) after its number")
                }
            }
            let (start, end) = try timing(lines[timingLine], line: timingLine + 1, path: path)
            var payload: [(number: Int, text: Substring)] = []
            index = timingLine + 1
            while index < lines.count, !lines[index].trimmed.isEmpty {
                payload.append((index + 1, lines[index]))
                index += 1
            }
            guard cues.count < SubtitleLimits.maximumCues else {
                throw SubtitleError(path: path, line: blockStart + 1, reason: "more than \(SubtitleLimits.maximumCues) cues")
            }
            let (text, _) = try CueMarkup.parse(payload, flavour: .subRip, cue: start...end, path: path)
            // A cue with no text, or that ends where it starts, shows nothing: skipped, as
            // players do (ffmpeg reads such files whole; refusing one lost every caption).
            guard !text.allSatisfy(\.isWhitespace), end > start else { continue }
            cues.append(CaptionCue(timeRange: TimeRange(start: SubtitleTimestamp.time(start), end: SubtitleTimestamp.time(end)), text: text))
        }
        return cues
    }

    /// The start and end of a timing line, in milliseconds.
    private static func timing(_ text: Substring, line: Int, path: String) throws(SubtitleError) -> (Int64, Int64) {
        guard let arrow = text.firstRange(of: "-->") else {
            throw SubtitleError(path: path, line: line, reason: "expected a timing line (00:00:01,000 --> 00:00:03,500)")
        }
        let left = text[..<arrow.lowerBound].trimmed
        // After the end time, SRT files may carry "X1:100 X2:200 Y1:… Y2:…": ignored.
        let right = text[arrow.upperBound...].trimmed.prefix { $0 != " " && $0 != "\t" }
        let start: Int64, end: Int64
        switch SubtitleTimestamp.milliseconds(left, style: .subRip) {
        case let .success(ms): start = ms
        case let .failure(reason): throw SubtitleError(path: path, line: line, reason: "the start time: \(reason.text)")
        }
        switch SubtitleTimestamp.milliseconds(right, style: .subRip) {
        case let .success(ms): end = ms
        case let .failure(reason): throw SubtitleError(path: path, line: line, reason: "the end time: \(reason.text)")
        }
        guard end >= start else {
            throw SubtitleError(path: path, line: line, reason: "the end \(right) is not after the start \(left)")
        }
        return (start, end)
    }
}
