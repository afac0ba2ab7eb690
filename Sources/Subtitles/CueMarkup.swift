import Timeline

/// A cue's payload made plain text: styling tags (`<b>`, `<i>`, `<u>`, `<c.class>`,
/// `<v Speaker>`, `<lang>`, `<ruby>`, SRT's `<font …>`) are removed and their words kept;
/// WebVTT entities (`&amp;`, `&lt;`, `&#233;`…) are decoded; WebVTT timestamps inside the
/// cue (`<00:01.500>`) become word timing; SRT's ASS override blocks (`{\an8}`) are dropped.
enum CueMarkup {
    enum Flavour { case subRip, webVTT }

    /// The plain text and word timing of payload `lines` (each with its line number in the
    /// file), for a cue over `range` (milliseconds).
    static func parse(_ lines: [(number: Int, text: Substring)], flavour: Flavour, cue range: ClosedRange<Int64>,
                      path: String) throws(SubtitleError) -> (text: String, words: [CaptionWord]) {
        var text = ""
        var marks: [(offset: Int, milliseconds: Int64)] = []
        for line in lines {
            // The line alone first, then trimmed and added: spaces at a line's ends and lines
            // left empty by markup (`<i></i>`) are not shown.
            var lineText = ""
            var lineMarks: [(offset: Int, milliseconds: Int64)] = []
            var rest = line.text
            while let c = rest.first {
                if c == "<", let close = rest.firstIndex(of: ">") {
                    let tag = rest[rest.index(after: rest.startIndex)..<close]
                    if let first = tag.first, first.isASCII, first.isNumber {
                        guard flavour == .webVTT else { lineText.append(contentsOf: rest[...close]); rest = rest[rest.index(after: close)...]; continue }
                        switch SubtitleTimestamp.milliseconds(tag, style: .webVTT) {
                        case let .success(ms):
                            // Clamped into the cue, never going back: a word is lit once.
                            let previous = lineMarks.last?.milliseconds ?? marks.last?.milliseconds ?? range.lowerBound
                            lineMarks.append((lineText.utf8.count, min(max(ms, previous), range.upperBound)))
                        case let .failure(reason):
                            throw SubtitleError(path: path, line: line.number, reason: "the timestamp tag <\(tag.prefix(40))>: \(reason.text)")
                        }
                    } else if flavour == .subRip, !isTagName(tag) {
                        lineText.append("<")   // "a < b > c" in an SRT is text
                        rest = rest.dropFirst()
                        continue
                    }
                    rest = rest[rest.index(after: close)...]
                } else if c == "<" {
                    guard flavour == .subRip else {
                        throw SubtitleError(path: path, line: line.number, reason: "a tag is not closed: \"\(rest.prefix(40))\" has no '>' (write < as &lt;)")
                    }
                    lineText.append("<")
                    rest = rest.dropFirst()
                } else if c == "&", flavour == .webVTT, let semicolon = rest.prefix(12).firstIndex(of: ";"),
                          let decoded = entity(rest[rest.index(after: rest.startIndex)..<semicolon]) {
                    decoded.forEach { Self.appendVisible($0, to: &lineText) }
                    rest = rest[rest.index(after: semicolon)...]
                } else if c == "{", flavour == .subRip, rest.dropFirst().first == "\\", let close = rest.firstIndex(of: "}") {
                    rest = rest[rest.index(after: close)...]   // {\an8}, {\i1}: ASS overrides
                } else {
                    Self.appendVisible(c, to: &lineText)
                    rest = rest.dropFirst()
                }
            }
            let leading = lineText.prefix { $0 == " " }.utf8.count
            let trimmed = lineText.drop { $0 == " " }
            let kept = String(trimmed.prefix(trimmed.count - trimmed.reversed().prefix { $0 == " " }.count))
            let base = text.isEmpty || kept.isEmpty ? text.utf8.count : text.utf8.count + 1
            for mark in lineMarks {
                marks.append((base + min(max(0, mark.offset - leading), kept.utf8.count), mark.milliseconds))
            }
            if !kept.isEmpty { text += (text.isEmpty ? "" : "\n") + kept }
            guard text.utf8.count <= SubtitleLimits.maximumCueBytes else {
                throw SubtitleError(path: path, line: line.number, reason: "the cue's text is longer than \(SubtitleLimits.maximumCueBytes) bytes")
            }
        }
        // Each mark starts a span running to the next; text before the first is lit from
        // the cue's start. Spans that light at the same time as the one before are one span.
        var spans: [(offset: Int, milliseconds: Int64)] = [(0, range.lowerBound)]
        for mark in marks where mark.offset < text.utf8.count {
            if mark.milliseconds == spans[spans.count - 1].milliseconds { continue }
            if mark.offset == spans[spans.count - 1].offset { spans[spans.count - 1].milliseconds = mark.milliseconds; continue }
            spans.append(mark)
        }
        guard spans.count > 1 else { return (text, []) }
        var words: [CaptionWord] = []
        for (index, span) in spans.enumerated() {
            let end = index + 1 < spans.count ? spans[index + 1].offset : text.utf8.count
            guard end > span.offset else { continue }
            words.append(CaptionWord(textRange: span.offset..<end, start: SubtitleTimestamp.time(span.milliseconds)))
        }
        return (text, words)
    }

    /// Appends `c` unless it is a control character, which draws nothing (a tab is a space).
    private static func appendVisible(_ c: Character, to text: inout String) {
        if c == "\t" { text.append(" ") } else if !c.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) { text.append(c) }
    }

    /// Whether `tag` (between `<` and `>`) is an HTML-like tag SRT files carry: a name of
    /// letters, optionally closing (`/b`) or with attributes (`font color="red"`).
    private static func isTagName(_ tag: Substring) -> Bool {
        let body = tag.first == "/" ? tag.dropFirst() : tag
        guard let first = body.first, first.isASCII, first.isLetter else { return false }
        let name = body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return name.count == body.count || body.dropFirst(name.count).first == " "
    }

    /// WebVTT's character references.
    private static func entity(_ name: Substring) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "nbsp": return "\u{A0}"
        case "lrm": return "\u{200E}"
        case "rlm": return "\u{200F}"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.first == "#" else { return nil }
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" { value = UInt32(digits.dropFirst(), radix: 16) } else { value = UInt32(digits) }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }
}
