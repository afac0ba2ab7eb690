import DropcutTimeline

/// Reads SubRip (`.srt`) files as players read them (ffmpeg's SRT demuxer, which mpv and
/// VLC build on): a cue starts at a timing line `00:00:01,000 --> 00:00:03,500`, or at a
/// number with a timing line under it (its index); every other line is the text of the cue
/// above it — so missing or out-of-order indices, blank lines inside a cue's text and extra
/// blank lines between cues all read as a player shows them.
///
/// Lenient where files in the wild differ: `.` for `,`, any number of digits in a field
/// (read as ffmpeg reads them: `,5` is 5 ms, `013` seconds are 13), position
/// coordinates after the times (`X1:… Y1:…`, ignored), CRLF line ends, a BOM. Skipped, and
/// said once per kind: a timing line that does not parse (with the text under it), text
/// before the first cue, and a cue that ends at or before its start (it shows nothing).
/// Refused: text in an encoding other than UTF-8, -16 or -32 (an SRT states no encoding:
/// drawn as another, it would be noise; `SubtitleText`), NUL bytes, and the limits
/// (`SubtitleLimits`).
public enum SubRipParser {
    /// The cues of `bytes`; `path` names the file in errors and warnings.
    public static func read(_ bytes: [UInt8], path: String) throws(SubtitleError) -> SubtitleDocument {
        var warnings = SubtitleWarnings(path: path)
        let lines = try SubtitleText.lines(of: bytes, path: path, format: .subRip, warnings: &warnings).lines
        var records: [SubtitleCueRecord] = []
        var text: [Substring] = []
        var current: SubtitleCueRecord?
        var skipping = false

        func finish() throws(SubtitleError) {
            guard var record = current else { return }
            while let last = text.last, last.trimmed.isEmpty { text.removeLast() }
            record.text = text.joined(separator: "\n")
            guard records.count < SubtitleLimits.maximumCues else {
                throw SubtitleError(path: path, line: record.line, reason: "more than \(SubtitleLimits.maximumCues) cues")
            }
            records.append(record)
            current = nil
            text = []
        }

        var index = 0
        while index < lines.count {
            let line = lines[index]
            var timingIndex: Int?
            var identifier = ""
            if line.contains("-->") {
                timingIndex = index
            } else if !line.trimmed.isEmpty, line.trimmed.allSatisfy({ $0.isASCII && $0.isNumber }),
                      index + 1 < lines.count, lines[index + 1].contains("-->") {
                timingIndex = index + 1
                identifier = String(line.trimmed.prefix(20))
            }
            guard let timingIndex else {
                if current != nil {
                    text.append(line)
                } else if !skipping, !line.trimmed.isEmpty {
                    warnings.add(.notACue, line: index + 1, "text with no timing line (00:00:01,000 --> 00:00:03,500) above it: skipped")
                    skipping = true
                }
                index += 1
                continue
            }
            try finish()
            switch timing(lines[timingIndex]) {
            case let .success((start, end)):
                current = SubtitleCueRecord(line: timingIndex + 1, identifier: identifier, start: start, end: end, text: "")
                skipping = false
            case let .failure(reason):
                warnings.add(.timing(reason.kind), line: timingIndex + 1, "\(reason.text): the cue is skipped")
                skipping = true
            }
            index = timingIndex + 1
        }
        try finish()

        return try SubtitleDocument(format: .subRip, cues: records, path: path, warnings: warnings)
    }

    /// The start and end of a timing line, in milliseconds.
    private static func timing(_ text: Substring) -> Result<(Int64, Int64), SubtitleTimestamp.Reason> {
        guard let arrow = text.firstRange(of: "-->") else {
            return .failure(SubtitleTimestamp.Reason("expected a timing line (00:00:01,000 --> 00:00:03,500)", kind: .noArrow))
        }
        let left = text[..<arrow.lowerBound].trimmed
        // After the end time, SRT files may carry "X1:100 X2:200 Y1:… Y2:…": ignored.
        let right = text[arrow.upperBound...].trimmed.prefix { $0 != " " && $0 != "\t" }
        let start: Int64
        switch SubtitleTimestamp.subRipMilliseconds(left) {
        case let .success(ms): start = ms
        case let .failure(reason): return .failure(SubtitleTimestamp.Reason("the start time \(reason.text)", kind: reason.kind))
        }
        switch SubtitleTimestamp.subRipMilliseconds(right) {
        case let .success(end): return .success((start, end))
        case let .failure(reason): return .failure(SubtitleTimestamp.Reason("the end time \(reason.text)", kind: reason.kind))
        }
    }
}
