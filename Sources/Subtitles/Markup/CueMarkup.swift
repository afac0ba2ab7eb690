import DropcutTimeline

/// A cue's text read into what is drawn: the plain text, its styled spans and its word
/// timing.
///
/// - WebVTT by the spec's cue text tokenizer and parsing rules: `<b>`, `<i>`, `<u>` style
///   their text; classes on any tag (`<c.yellow>`, `<v.loud Anna>`) take the spec's default
///   colour classes (`white`, `lime`, `cyan`, `red`, `yellow`, `magenta`, `blue`, `black`, and
///   `bg_` for the box behind); `<v>`, `<lang>`, `<ruby>`, `<rt>` keep their words; unknown
///   tags are dropped, and a `<` with no `>` runs to the end of the cue as a tag does in the
///   spec; entities (`&amp;`, `&#233;`…) decoded; timestamp tags (`<00:01.500>`) become word
///   timing, and a timestamp tag that does not parse is dropped (said once).
/// - SRT as players read it (ffmpeg's HTML subtitle markup): `<b>`, `<i>`, `<u>`,
///   `<font color="#rrggbb"|name>`, closed in any order; other tag-like text
///   (`<br>`, `<s>`) is dropped; a `<` that is not a tag is text; ASS override blocks
///   `{\i1}`, `{\b1}`, `{\u1}` (and `0` to end) style as their tags do, others (`{\an8}`)
///   are dropped.
///
/// Then, for both: spaces at a line's ends and lines left empty are not shown; control
/// characters draw nothing (a tab is a space).
enum CueMarkup {
    enum Flavour { case subRip, webVTT }

    struct Result {
        var text: String
        var words: [CaptionWord]
        var styles: [CaptionStyledSpan]
    }

    /// Reads `raw` (a cue's text as the file wrote it, lines joined with `\n`, the first on
    /// line `firstLine` of the file) for a cue over `range` (milliseconds).
    static func parse(_ raw: String, firstLine: Int, flavour: Flavour, cue range: ClosedRange<Int64>, path: String,
                      warnings: inout SubtitleWarnings) throws(SubtitleError) -> Result {
        // Markup can be long; text past this is no caption a frame can show.
        guard raw.utf8.count <= SubtitleLimits.maximumCueBytes * 16 else {
            throw SubtitleError(path: path, line: firstLine, reason: "the cue's text is longer than \(SubtitleLimits.maximumCueBytes * 16) bytes")
        }
        var reader = Reader(flavour: flavour, line: firstLine, range: range)
        switch flavour {
        case .webVTT: reader.readWebVTT(Substring(raw), warnings: &warnings)
        case .subRip: reader.readSubRip(Substring(raw))
        }
        let result = reader.finish()
        guard result.text.utf8.count <= SubtitleLimits.maximumCueBytes else {
            throw SubtitleError(path: path, line: firstLine, reason: "the cue's text is longer than \(SubtitleLimits.maximumCueBytes) bytes")
        }
        return result
    }

    /// The text as it is read: each scalar with the style it is in, and the word-timing
    /// marks (an index into `scalars` and a time).
    private struct Reader {
        let flavour: Flavour
        var line: Int
        let range: ClosedRange<Int64>
        var scalars: [Unicode.Scalar] = []
        var styleOf: [Int] = []
        var styles: [CaptionTextStyle] = [.plain]
        var marks: [(index: Int, milliseconds: Int64)] = []
        /// The open elements: their tag name and the style inside them.
        var open: [(name: Substring, style: CaptionTextStyle)] = []

        init(flavour: Flavour, line: Int, range: ClosedRange<Int64>) {
            self.flavour = flavour
            self.line = line
            self.range = range
        }

        var current: CaptionTextStyle { open.last?.style ?? .plain }

        mutating func append(_ text: Substring) {
            for character in text { append(character) }
        }

        mutating func append(_ character: Character) {
            if character == "\n" || character == "\r\n" { line += 1 }
            let style = current
            let index: Int
            if let found = styles.firstIndex(of: style) { index = found } else { styles.append(style); index = styles.count - 1 }
            for scalar in character.unicodeScalars {
                scalars.append(scalar)
                styleOf.append(index)
            }
        }

        mutating func push(_ name: Substring, change: (inout CaptionTextStyle) -> Void) {
            var style = current
            change(&style)
            open.append((name, style))
        }

        /// Closes the innermost open `name` (and what is open inside it).
        mutating func close(_ name: Substring) {
            guard let at = open.lastIndex(where: { $0.name == name }) else { return }
            open.removeSubrange(at...)
        }

        // MARK: WebVTT

        mutating func readWebVTT(_ text: Substring, warnings: inout SubtitleWarnings) {
            var rest = text
            while let c = rest.first {
                if c == "&" {
                    rest = rest.dropFirst()
                    if let (decoded, after) = Self.characterReference(rest) {
                        append(Substring(decoded))
                        rest = after
                    } else {
                        append(Character("&"))
                    }
                    continue
                }
                guard c == "<" else {
                    append(c)
                    rest = rest.dropFirst()
                    continue
                }
                // A tag runs to its '>' or, without one, to the end of the cue.
                let close = rest.firstIndex(of: ">")
                let body = rest[rest.index(after: rest.startIndex)..<(close ?? rest.endIndex)]
                line += body.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
                rest = close.map { rest[rest.index(after: $0)...] } ?? rest[rest.endIndex...]
                tag(body, warnings: &warnings)
            }
        }

        /// One WebVTT tag, `body` between `<` and `>`.
        private mutating func tag(_ body: Substring, warnings: inout SubtitleWarnings) {
            guard let first = body.first else { return }
            if first.isASCII, first.isNumber {
                switch SubtitleTimestamp.collectWebVTT(body) {
                case let .success((ms, rest)) where rest.isEmpty:
                    // Clamped into the cue, never going back: a word is lit once.
                    let previous = marks.last?.milliseconds ?? range.lowerBound
                    marks.append((scalars.count, min(max(ms, previous), range.upperBound)))
                default:
                    warnings.add(.markup, line: line, "the timestamp tag \(body.quoted()) is not a time ([HH:]MM:SS.mmm): dropped")
                }
                return
            }
            if first == "/" {
                let name = body.dropFirst().prefix { !$0.isWebVTTWhitespace && $0 != "." }
                if name == "ruby", open.last?.name == "rt" { close("rt") }
                if open.last?.name == name { close(name) }
                return
            }
            // The name, then `.class.class`, then an annotation after whitespace.
            let head = body.prefix { !$0.isWebVTTWhitespace }
            let name = head.prefix { $0 != "." }
            let classes = head.dropFirst(name.count).split(separator: ".")
            switch name {
            case "c", "i", "b", "u", "v", "lang", "ruby":
                break
            case "rt":
                guard open.last?.name == "ruby" else { return }
            default:
                return
            }
            push(name) { style in
                switch name {
                case "b": style.bold = true
                case "i": style.italic = true
                case "u": style.underline = true
                default: break
                }
                for name in classes {
                    if let color = CueColors.webVTTClass(name) { style.color = color }
                    if name.hasPrefix("bg_"), let color = CueColors.webVTTClass(name.dropFirst(3)) { style.background = color }
                }
            }
        }

        /// A character reference after `&`: the text it stands for and what follows its `;`.
        static func characterReference(_ text: Substring) -> (String, Substring)? {
            guard let semicolon = text.prefix(12).firstIndex(of: ";") else { return nil }
            let name = text[..<semicolon]
            let decoded: String
            switch name {
            case "amp": decoded = "&"
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "nbsp": decoded = "\u{A0}"
            case "lrm": decoded = "\u{200E}"
            case "rlm": decoded = "\u{200F}"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            default:
                guard name.first == "#" else { return nil }
                let digits = name.dropFirst()
                let value: UInt32?
                if digits.first == "x" || digits.first == "X" { value = UInt32(digits.dropFirst(), radix: 16) } else { value = UInt32(digits) }
                guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
                decoded = String(Character(scalar))
            }
            return (decoded, text[text.index(after: semicolon)...])
        }

        // MARK: SRT

        mutating func readSubRip(_ text: Substring) {
            var rest = text
            while let c = rest.first {
                if c == "<", let close = rest.firstIndex(of: ">"), Self.isTagName(rest[rest.index(after: rest.startIndex)..<close]) {
                    htmlTag(rest[rest.index(after: rest.startIndex)..<close])
                    rest = rest[rest.index(after: close)...]
                } else if c == "{", rest.dropFirst().first == "\\", let close = rest.firstIndex(of: "}"),
                          !rest[..<close].contains("\n") {
                    overrides(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                    rest = rest[rest.index(after: close)...]
                } else {
                    append(c)
                    rest = rest.dropFirst()
                }
            }
        }

        /// An HTML-like tag of an SRT cue, `body` between `<` and `>`.
        private mutating func htmlTag(_ body: Substring) {
            let closing = body.first == "/"
            let nameText = (closing ? body.dropFirst() : body).prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
            let name = Substring(nameText.lowercased())
            guard ["b", "i", "u", "font"].contains(name) else { return }
            if closing { close(name); return }
            push(name) { style in
                switch name {
                case "b": style.bold = true
                case "i": style.italic = true
                case "u": style.underline = true
                default:
                    if let value = Self.attribute("color", in: body), let color = CueColors.html(value) { style.color = color }
                }
            }
        }

        /// The value of attribute `name` (`color="#ff0000"`, `color=red`) in a tag's body.
        static func attribute(_ name: String, in body: Substring) -> Substring? {
            guard let found = body.lowercased().range(of: name + "=") else { return nil }
            let offset = body.lowercased().distance(from: body.lowercased().startIndex, to: found.upperBound)
            var value = body.dropFirst(offset)
            if let quote = value.first, quote == "\"" || quote == "'" {
                value = value.dropFirst().prefix { $0 != quote }
            } else {
                value = value.prefix { $0 != " " && $0 != "\t" }
            }
            return value
        }

        /// ASS override tags in `{\…}`: `\i1`/`\i0`, `\b1`/`\b0`, `\u1`/`\u0`; others dropped.
        private mutating func overrides(_ body: Substring) {
            for item in body.split(separator: "\\") {
                guard item.count == 2, let letter = item.first, ["i", "b", "u"].contains(letter), let on = item.last else { continue }
                let name: Substring = "{\\" + Substring(String(letter))
                if on == "1" {
                    push(name) { style in
                        switch letter {
                        case "i": style.italic = true
                        case "b": style.bold = true
                        default: style.underline = true
                        }
                    }
                } else if on == "0" {
                    close(name)
                }
            }
        }

        /// Whether `tag` (between `<` and `>`) is an HTML-like tag SRT files carry: a name of
        /// letters, optionally closing (`/b`) or with attributes (`font color="red"`).
        static func isTagName(_ tag: Substring) -> Bool {
            let body = tag.first == "/" ? tag.dropFirst() : tag
            guard let first = body.first, first.isASCII, first.isLetter else { return false }
            let name = body.prefix { $0.isASCII && ($0.isLetter || $0.isNumber) }
            return name.count == body.count || body.dropFirst(name.count).first == " "
        }

        // MARK: The result

        /// The text as shown — lines trimmed of spaces at their ends, empty lines and control
        /// characters dropped — with its spans and word timing in UTF-8 offsets.
        func finish() -> Result {
            var text = String.UnicodeScalarView()
            var total = 0
            var styleOfByte: [Int] = []
            // Where each scalar (and the end) landed in the text, as a UTF-8 offset: what a
            // word-timing mark before it points at.
            var markAt = [Int](repeating: 0, count: scalars.count + 1)
            func blank(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" || s.properties.generalCategory == .control }
            var index = 0
            while index <= scalars.count {
                // One line: [index, end).
                var end = index
                while end < scalars.count, scalars[end] != "\n" { end += 1 }
                var first = index, last = end
                while first < last, blank(scalars[first]) { first += 1 }
                while last > first, blank(scalars[last - 1]) { last -= 1 }
                if first < last, !text.isEmpty {
                    text.append("\n")
                    styleOfByte.append(0)
                    total += 1
                }
                for i in index..<first { markAt[i] = total }
                for i in first..<last {
                    markAt[i] = total
                    let scalar = scalars[i]
                    guard let shown = scalar == "\t" ? " " : (scalar.properties.generalCategory == .control ? nil : scalar) else { continue }
                    text.append(shown)
                    let width = UTF8.width(shown)
                    total += width
                    styleOfByte.append(contentsOf: repeatElement(styleOf[i], count: width))
                }
                for i in last...end { markAt[i] = total }
                index = end + 1
            }
            let string = String(text)
            // Styled spans: runs of one style that is not plain.
            var spans: [CaptionStyledSpan] = []
            var runStart = 0
            for offset in 0...total {
                guard offset == total || styleOfByte[offset] != styleOfByte[runStart] else { continue }
                if runStart < offset, styles[styleOfByte[runStart]] != .plain {
                    spans.append(CaptionStyledSpan(textRange: runStart..<offset, style: styles[styleOfByte[runStart]]))
                }
                runStart = offset
            }
            // Word timing: each mark starts a span running to the next; text before the first
            // is lit from the cue's start. Spans lit at the same time as the one before are one.
            var timed: [(offset: Int, milliseconds: Int64)] = [(0, range.lowerBound)]
            for mark in marks {
                let offset = markAt[mark.index]
                guard offset < total else { continue }
                if mark.milliseconds == timed[timed.count - 1].milliseconds { continue }
                if offset == timed[timed.count - 1].offset { timed[timed.count - 1].milliseconds = mark.milliseconds; continue }
                timed.append((offset, mark.milliseconds))
            }
            var words: [CaptionWord] = []
            if timed.count > 1 {
                for (n, span) in timed.enumerated() {
                    let end = n + 1 < timed.count ? timed[n + 1].offset : total
                    guard end > span.offset else { continue }
                    words.append(CaptionWord(textRange: span.offset..<end, start: SubtitleTimestamp.time(span.milliseconds)))
                }
            }
            return Result(text: string, words: words, styles: spans)
        }
    }
}
