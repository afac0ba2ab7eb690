/// The text of an ASS dialogue line, as FFmpeg's text subtitle decoders hand it over
/// (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`, or a whole
/// `Dialogue:` line from older versions), made plain: override blocks (`{\i1}`) removed,
/// `\N` and `\n` new lines, `\h` a space. Pure: no C import.
enum ASSDialogueText {
    static func plain(_ line: String) -> String {
        var fields = Substring(line)
        // "Dialogue: Layer,Start,End,Style,Name,MarginL,MarginR,MarginV,Effect,Text"
        let commas = fields.hasPrefix("Dialogue:") ? 9 : 8
        for _ in 0..<commas {
            guard let comma = fields.firstIndex(of: ",") else { return "" }
            fields = fields[fields.index(after: comma)...]
        }
        var out = ""
        var rest = fields
        while let c = rest.first {
            if c == "{", let close = rest.firstIndex(of: "}") {
                rest = rest[rest.index(after: close)...]
            } else if c == "\\", let next = rest.dropFirst().first, next == "N" || next == "n" || next == "h" {
                out.append(next == "h" ? " " : "\n")
                rest = rest.dropFirst(2)
            } else {
                if c == "\t" { out.append(" ") } else if !c.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) { out.append(c) }
                rest = rest.dropFirst()
            }
        }
        // Lines trimmed, empty ones dropped, as the subtitle file parsers do.
        return out.split(separator: "\n").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
