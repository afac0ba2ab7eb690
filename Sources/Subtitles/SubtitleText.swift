/// A subtitle file's text, split into lines, once its encoding is checked: UTF-8 (a BOM is
/// dropped), `\r\n`, `\r` or `\n` line ends. Both parsers read it.
struct SubtitleText {
    var lines: [Substring]

    /// The lines of `bytes`, or why they are not a subtitle file's text.
    static func lines(of bytes: [UInt8], path: String) throws(SubtitleError) -> SubtitleText {
        guard bytes.count <= SubtitleLimits.maximumFileBytes else {
            throw SubtitleError(path: path, line: 0, reason: "the file is \(bytes.count) bytes, more than a subtitle file may be (\(SubtitleLimits.maximumFileBytes))")
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.starts(with: [0xFF, 0xFE]) || body.starts(with: [0xFE, 0xFF]) {
            throw SubtitleError(path: path, line: 0, reason: "the file is UTF-16: save it as UTF-8")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            // The line of the first byte that is not UTF-8, for the message.
            var line = 1, index = body.startIndex
            while index < body.endIndex {
                let end = body[index...].firstIndex(of: 0x0A) ?? body.endIndex
                if String(validating: body[index..<end], as: UTF8.self) == nil { break }
                line += 1
                index = end < body.endIndex ? body.index(after: end) : end
            }
            throw SubtitleError(path: path, line: line, reason: "the text is not UTF-8: save the file as UTF-8")
        }
        if let nul = text.firstIndex(of: "\0") {
            let line = text[..<nul].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            throw SubtitleError(path: path, line: line, reason: "the file holds a NUL byte: not a text file")
        }
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
