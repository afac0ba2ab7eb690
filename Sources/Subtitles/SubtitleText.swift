/// A subtitle file's text, split into lines, once its encoding is known: UTF-8 (a BOM is
/// dropped), `\r\n`, `\r` or `\n` line ends. Both parsers read it.
///
/// - UTF-16 and UTF-32, known by their byte order mark or by the zero bytes ASCII text has
///   in them, are decoded (ffmpeg, pysrt and webvtt-py read them too).
/// - Bytes that are not UTF-8, and NUL: WebVTT is UTF-8 by definition and its parser
///   replaces them with U+FFFD. An SRT file states no encoding: one that is UTF-8 but for a
///   few damaged bytes (at most 3, or one for every ten characters UTF-8 encodes well) is
///   read the same way, losing only those characters; one in another encoding (Latin-1,
///   Windows-1251…: every accented letter a bad byte) is refused naming its first bad line,
///   as drawing it would burn noise into the picture. NUL bytes in an SRT are refused (not
///   a text file). Each said once as a warning, with the count.
struct SubtitleText {
    var lines: [Substring]

    /// The lines of `bytes`, or why they are not a subtitle file's text.
    static func lines(of bytes: [UInt8], path: String, format: SubtitleFormat,
                      warnings: inout SubtitleWarnings) throws(SubtitleError) -> SubtitleText {
        guard bytes.count <= SubtitleLimits.maximumFileBytes else {
            throw SubtitleError(path: path, line: 0, reason: "the file is \(bytes.count) bytes, more than a subtitle file may be (\(SubtitleLimits.maximumFileBytes))")
        }
        var text: String
        if let wide = wideEncoding(bytes) {
            text = decode(bytes, wide)
        } else {
            var body = bytes[...]
            if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
            if let valid = String(validating: body, as: UTF8.self) {
                text = valid
            } else {
                text = String(decoding: body, as: UTF8.self)
                let damaged = text.unicodeScalars.lazy.filter { $0 == "\u{FFFD}" }.count
                let good = text.unicodeScalars.lazy.filter { !$0.isASCII && $0 != "\u{FFFD}" }.count
                let line = firstLineNotUTF8(body)
                guard format == .webVTT || damaged <= 3 || damaged * 10 <= good else {
                    throw SubtitleError(path: path, line: line, reason: "the text is not UTF-8 (\(damaged) bytes are not): save the file as UTF-8")
                }
                warnings.add(.encoding, line: line, "\(damaged) byte\(damaged == 1 ? " is" : "s are") not UTF-8: shown as \u{FFFD}")
            }
        }
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            guard format == .webVTT else {
                throw SubtitleError(path: path, line: line, reason: "the file holds a NUL byte: not a text file")
            }
            let count = text.utf8.lazy.filter { $0 == 0 }.count
            warnings.add(.nul, line: line, "\(count) NUL byte\(count == 1 ? "" : "s"), read as \u{FFFD}")
            text = text.replacingOccurrences(of: "\0", with: "\u{FFFD}")
        }
        return split(text)
    }

    /// The line of the first byte that is not UTF-8, for the message.
    private static func firstLineNotUTF8(_ body: ArraySlice<UInt8>) -> Int {
        var line = 1, index = body.startIndex
        while index < body.endIndex {
            let end = body[index...].firstIndex(of: 0x0A) ?? body.endIndex
            if String(validating: body[index..<end], as: UTF8.self) == nil { break }
            line += 1
            index = end < body.endIndex ? body.index(after: end) : end
        }
        return line
    }

    /// A 16- or 32-bit encoding, by its byte order mark or the zero bytes of ASCII text.
    enum WideEncoding: String {
        case utf16LE = "UTF-16LE", utf16BE = "UTF-16BE", utf32LE = "UTF-32LE", utf32BE = "UTF-32BE"
    }

    /// The 16- or 32-bit encoding `bytes` are in, or nil.
    static func wideEncoding(_ bytes: [UInt8]) -> WideEncoding? {
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) { return .utf32LE }
        if bytes.starts(with: [0, 0, 0xFE, 0xFF]) { return .utf32BE }
        if bytes.starts(with: [0xFF, 0xFE]) { return .utf16LE }
        if bytes.starts(with: [0xFE, 0xFF]) { return .utf16BE }
        // No mark: the first characters of a subtitle file are ASCII (digits, WEBVTT).
        guard bytes.count >= 8 else { return nil }
        let head = Array(bytes.prefix(8))
        if head[1] == 0, head[2] == 0, head[3] == 0, head[0] != 0 { return .utf32LE }
        if head[0] == 0, head[1] == 0, head[2] == 0, head[3] != 0 { return .utf32BE }
        if head[1] == 0, head[3] == 0, head[5] == 0, head[0] != 0, head[2] != 0 { return .utf16LE }
        if head[0] == 0, head[2] == 0, head[4] == 0, head[1] != 0, head[3] != 0 { return .utf16BE }
        return nil
    }

    /// `bytes` decoded from `encoding` (its byte order mark dropped; what does not decode,
    /// and a last incomplete unit, as U+FFFD).
    static func decode(_ bytes: [UInt8], _ encoding: WideEncoding) -> String {
        switch encoding {
        case .utf16LE, .utf16BE:
            var units = stride(from: 0, to: bytes.count - 1, by: 2).map { i -> UInt16 in
                encoding == .utf16LE ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            }
            if units.first == 0xFEFF { units.removeFirst() }
            return String(decoding: units, as: UTF16.self) + (bytes.count % 2 == 1 ? "\u{FFFD}" : "")
        case .utf32LE, .utf32BE:
            var units = stride(from: 0, to: bytes.count - 3, by: 4).map { i -> UInt32 in
                encoding == .utf32LE
                    ? UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                    : UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
            }
            if units.first == 0xFEFF { units.removeFirst() }
            return String(decoding: units, as: UTF32.self) + (bytes.count % 4 != 0 ? "\u{FFFD}" : "")
        }
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

extension StringProtocol {
    /// The text quoted for a message, at most `limit` characters, control characters
    /// written as `\u{B}` (an invisible one would make a message lie).
    func quoted(_ limit: Int = 40) -> String {
        var out = "\""
        for scalar in prefix(limit).unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\u{FEFF}" {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
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
