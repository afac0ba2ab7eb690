import Timeline

/// Reads WebVTT (`.vtt`) files as the W3C WebVTT spec lays them out: the `WEBVTT` line,
/// header lines, then blocks separated by blank lines — cues (an optional identifier, the
/// timing line `00:01.000 --> 00:03.500` with cue settings, the payload), `NOTE` comments,
/// `STYLE` and `REGION` blocks (skipped).
///
/// Cue settings kept: `line` (a percentage or a line number), `position` (a percentage) and
/// `align`; `size`, `vertical` and `region` are read and checked but not used; unknown ones
/// are ignored, as the spec says. Markup is removed and timestamps inside the payload become
/// word timing (`CueMarkup`).
public enum WebVTTParser {
    /// The cues of `bytes`; `path` names the file in errors.
    public static func parse(_ bytes: [UInt8], path: String) throws(SubtitleError) -> [CaptionCue] {
        let lines = try SubtitleText.lines(of: bytes, path: path).lines
        guard let first = lines.first, first.hasPrefix("WEBVTT"),
              first.count == 6 || first.dropFirst(6).first == " " || first.dropFirst(6).first == "\t" else {
            throw SubtitleError(path: path, line: 1, reason: "a WebVTT file starts with the line WEBVTT, got \"\(lines.first?.prefix(40) ?? "")\"")
        }
        var index = 1
        // Header lines, up to the first blank line.
        while index < lines.count, !lines[index].trimmed.isEmpty {
            guard !lines[index].contains("-->") else { break }   // a cue with no blank line before it
            index += 1
        }
        var cues: [CaptionCue] = []
        while index < lines.count {
            guard !lines[index].trimmed.isEmpty else { index += 1; continue }
            let head = lines[index]
            // NOTE, STYLE and REGION blocks run to the next blank line.
            if !head.contains("-->"), head == "NOTE" || head.hasPrefix("NOTE ") || head.hasPrefix("NOTE\t")
                || head.trimmed == "STYLE" || head.trimmed == "REGION" {
                while index < lines.count, !lines[index].trimmed.isEmpty { index += 1 }
                continue
            }
            var timingLine = index
            if !head.contains("-->") {
                // The cue's identifier.
                timingLine = index + 1
                guard timingLine < lines.count, lines[timingLine].contains("-->") else {
                    throw SubtitleError(path: path, line: index + 1, reason: "expected a cue timing line (00:01.000 --> 00:03.500) after \"\(head.prefix(40))\"")
                }
            }
            let (start, end, placement) = try timing(lines[timingLine], line: timingLine + 1, path: path)
            var payload: [(number: Int, text: Substring)] = []
            index = timingLine + 1
            while index < lines.count, !lines[index].trimmed.isEmpty {
                guard !lines[index].contains("-->") else {
                    throw SubtitleError(path: path, line: index + 1, reason: "a cue's text cannot hold \"-->\": is a blank line missing before this cue?")
                }
                payload.append((index + 1, lines[index]))
                index += 1
            }
            guard cues.count < SubtitleLimits.maximumCues else {
                throw SubtitleError(path: path, line: timingLine + 1, reason: "more than \(SubtitleLimits.maximumCues) cues")
            }
            let (text, words) = try CueMarkup.parse(payload, flavour: .webVTT, cue: start...end, path: path)
            guard !text.allSatisfy(\.isWhitespace) else { continue }
            cues.append(CaptionCue(timeRange: TimeRange(start: SubtitleTimestamp.time(start), end: SubtitleTimestamp.time(end)),
                                   text: text, words: words, placement: placement))
        }
        return cues
    }

    /// The times of a cue timing line, in milliseconds, and its cue settings.
    private static func timing(_ text: Substring, line: Int, path: String) throws(SubtitleError) -> (Int64, Int64, CuePlacement) {
        func failure(_ reason: String) -> SubtitleError { SubtitleError(path: path, line: line, reason: reason) }
        guard let arrow = text.firstRange(of: "-->") else { throw failure("expected a cue timing line (00:01.000 --> 00:03.500)") }
        let left = text[..<arrow.lowerBound].trimmed
        let after = text[arrow.upperBound...].trimmed
        let right = after.prefix { $0 != " " && $0 != "\t" }
        let start: Int64, end: Int64
        switch SubtitleTimestamp.milliseconds(left, style: .webVTT) {
        case let .success(ms): start = ms
        case let .failure(reason): throw failure("the start time: \(reason.text)")
        }
        switch SubtitleTimestamp.milliseconds(right, style: .webVTT) {
        case let .success(ms): end = ms
        case let .failure(reason): throw failure("the end time: \(reason.text)")
        }
        guard end > start else { throw failure("the end \(right) is not after the start \(left)") }
        var placement = CuePlacement.automatic
        for setting in after.dropFirst(right.count).split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard let colon = setting.firstIndex(of: ":") else { continue }
            let name = setting[..<colon], value = setting[setting.index(after: colon)...]
            switch name {
            case "line":
                // "line:90%", "line:-1", optionally ",start|center|end" (the line's alignment).
                let number = value.prefix { $0 != "," }
                if number.hasSuffix("%") {
                    guard let percent = percentage(number) else { throw failure("line:\(value.prefix(20)) must be a percentage from 0% to 100%") }
                    placement.line = .percent(percent)
                } else {
                    guard let lineNumber = Int(number), abs(lineNumber) <= 1000 else {
                        throw failure("line:\(value.prefix(20)) must be a line number (-1000 to 1000) or a percentage")
                    }
                    placement.line = .number(lineNumber)
                }
            case "position":
                guard let percent = percentage(value.prefix { $0 != "," }) else {
                    throw failure("position:\(value.prefix(20)) must be a percentage from 0% to 100%")
                }
                placement.position = percent
            case "align":
                guard let alignment = CuePlacement.Alignment(rawValue: String(value)) else {
                    throw failure("align:\(value.prefix(20)) must be start, center, end, left or right")
                }
                placement.alignment = alignment
            case "size":
                guard percentage(value) != nil else { throw failure("size:\(value.prefix(20)) must be a percentage from 0% to 100%") }
            default:
                continue   // vertical, region and unknown settings: not used
            }
        }
        return (start, end, placement)
    }

    /// `"42.5%"` as 42.5, when it is a plain decimal from 0 to 100.
    private static func percentage(_ text: Substring) -> Double? {
        guard text.hasSuffix("%") else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              digits.filter({ $0 == "." }).count <= 1, let value = Double(digits), value >= 0, value <= 100 else { return nil }
        return value
    }
}
