/// A subtitle file's text, split into lines, once its encoding is checked: UTF-8 (a BOM is
/// dropped), `\r\n`, `\r` or `\n` line ends. Both parsers read it.
///
/// UTF-16 and UTF-32 (by their byte order mark, or the zero bytes of ASCII text without
/// one) are refused by name: read as UTF-8 they would be noise. Other bytes that are not
/// UTF-8 and NUL bytes: WebVTT is UTF-8 by definition, and its parser replaces them with
/// U+FFFD (said once as a warning, naming the first line); an SRT file has no stated
/// encoding, so one that is not UTF-8 is refused naming the line, rather than drawn as
/// noise.
struct SubtitleText {
    var lines: [Substring]

    /// The lines of `bytes`, or why they are not a subtitle file's text.
    static func lines(of bytes: [UInt8], path: String, format: SubtitleFormat,
                      warnings: inout SubtitleWarnings) throws(SubtitleError) -> SubtitleText {
        guard bytes.count <= SubtitleLimits.maximumFileBytes else {
            throw SubtitleError(path: path, line: 0, reason: "the file is \(bytes.count) bytes, more than a subtitle file may be (\(SubtitleLimits.maximumFileBytes))")
        }
        if let encoding = wideEncoding(bytes) {
            throw SubtitleError(path: path, line: 0, reason: "the file is \(encoding): save it as UTF-8")
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let text: String
        if let valid = String(validating: body, as: UTF8.self) {
            text = valid
        } else {
            // The line of the first byte that is not UTF-8, for the message.
            var line = 1, index = body.startIndex
            while index < body.endIndex {
                let end = body[index...].firstIndex(of: 0x0A) ?? body.endIndex
                if String(validating: body[index..<end], as: UTF8.self) == nil { break }
                line += 1
                index = end < body.endIndex ? body.index(after: end) : end
            }
            guard format == .webVTT else {
                throw SubtitleError(path: path, line: line, reason: "the text is not UTF-8: save the file as UTF-8")
            }
            warnings.add(.encoding, line: line, "the text is not UTF-8: what is not was replaced with \u{FFFD}")
            text = String(decoding: body, as: UTF8.self)
        }
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            guard format == .webVTT else {
                throw SubtitleError(path: path, line: line, reason: "the file holds a NUL byte: not a text file")
            }
            warnings.add(.nul, line: line, "a NUL byte, replaced with \u{FFFD}")
            return split(text.replacingOccurrences(of: "\0", with: "\u{FFFD}"))
        }
        return split(text)
    }

    /// The name of the 16- or 32-bit encoding `bytes` are in (by a byte order mark, or
    /// the zero bytes ASCII text has in it), or nil.
    static func wideEncoding(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) { return "UTF-32LE" }
        if bytes.starts(with: [0, 0, 0xFE, 0xFF]) { return "UTF-32BE" }
        if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16LE" }
        if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16BE" }
        // No mark: the first characters of a subtitle file are ASCII (digits, WEBVTT).
        guard bytes.count >= 8 else { return nil }
        let head = Array(bytes.prefix(8))
        if head[1] == 0, head[2] == 0, head[3] == 0, head[0] != 0 { return "UTF-32LE" }
        if head[0] == 0, head[1] == 0, head[2] == 0, head[3] != 0 { return "UTF-32BE" }
        if head[1] == 0, head[3] == 0, head[5] == 0, head[0] != 0, head[2] != 0 { return "UTF-16LE" }
        if head[0] == 0, head[2] == 0, head[4] == 0, head[1] != 0, head[3] != 0 { return "UTF-16BE" }
        return nil
    }

    private static func split(_ text: String) -> SubtitleText {
        // Split on \n, dropping a \r before it; a lone \r ends a line too. ("\r\n" is one
        // Character in Swift, so split on Unicode scalars.)
        var lines: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        let scalars = text.unicodeScalars
        while index < text.endIndex {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" {
                lines.append(text[start..<index])
                var next = scalars.index(after: index)
                if scalar == "\r", next < text.endIndex, scalars[next] == "\n" { next = scalars.index(after: next) }
                start = next
                index = next
            } else {
                index = scalars.index(after: index)
            }
        }
        lines.append(text[start...])
        return SubtitleText(lines: lines)
    }
}

extension Substring {
    /// Without spaces and tabs at either end.
    var trimmed: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
