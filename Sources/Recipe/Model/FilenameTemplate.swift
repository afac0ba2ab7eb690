import Foundation

/// A text with placeholders, as in `"{name}.social.mp4"` or `"© {date:yyyy} ACME"`:
/// `{name}` (input stem), `{ext}` (input extension), `{recipe}` (recipe name),
/// `{input}` (input path), `{date:FORMAT}` with `yyyy MM dd HH mm ss` (default
/// `yyyy-MM-dd`). `{{` and `}}` write braces.
public struct FilenameTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case name, ext, recipe, input
        case date(String)
    }

    let parts: [Part]
    public let text: String

    /// What the placeholders stand for when a template is rendered.
    public struct Context: Sendable {
        public var inputPath: String
        public var recipeName: String
        public var date: Date
        public init(inputPath: String, recipeName: String, date: Date = Date()) {
            self.inputPath = inputPath
            self.recipeName = recipeName
            self.date = date
        }
    }

    /// Parses `text`; throws a message naming the bad placeholder.
    public init(_ text: String) throws(TemplateError) {
        self.text = text
        var parts: [Part] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{", next < text.endIndex, text[next] == "{" { literal.append("{"); i = text.index(after: next); continue }
            if c == "}", next < text.endIndex, text[next] == "}" { literal.append("}"); i = text.index(after: next); continue }
            if c == "}" { throw TemplateError("unmatched '}' in \"\(text)\"") }
            guard c == "{" else { literal.append(c); i = next; continue }
            guard let close = text[next...].firstIndex(of: "}") else { throw TemplateError("unclosed '{' in \"\(text)\"") }
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            let body = String(text[next..<close])
            switch body {
            case "name": parts.append(.name)
            case "ext": parts.append(.ext)
            case "recipe": parts.append(.recipe)
            case "input": parts.append(.input)
            case "date": parts.append(.date("yyyy-MM-dd"))
            default:
                if body.hasPrefix("date:") {
                    let format = String(body.dropFirst(5))
                    let allowed = Set("yMdHms-_. :/")
                    guard !format.isEmpty, format.allSatisfy({ allowed.contains($0) }) else {
                        throw TemplateError("date format '\(format)' may use only yyyy MM dd HH mm ss and - _ . : /")
                    }
                    parts.append(.date(format))
                } else {
                    throw TemplateError("unknown placeholder {\(body)}; expected {name}, {ext}, {recipe}, {input} or {date:FORMAT}")
                }
            }
            i = text.index(after: close)
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    public var description: String { text }

    /// True when the template uses `{input}`.
    public var usesInput: Bool { parts.contains(.input) }

    /// The first control character (C0, DEL or C1: a NUL, a newline, a terminal escape) in
    /// `text` and how many characters precede it, or nil. A file name template holding
    /// one is refused where it is read: a NUL cuts the name the system sees short of the
    /// name the manifest lists, and a newline splits every log line that names the file.
    package static func controlCharacter(in text: String) -> (scalar: Unicode.Scalar, offset: Int)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isControl(scalar) { return (scalar, offset) }
        return nil
    }

    /// `U+000A (a line feed)`, `U+202E RIGHT-TO-LEFT OVERRIDE`: how a refused character
    /// is named in a message.
    package static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        let name: String
        switch scalar.value {
        case 0x00: name = " (NUL)"
        case 0x09: name = " (a tab)"
        case 0x0A: name = " (a line feed)"
        case 0x0D: name = " (a carriage return)"
        case 0x1B: name = " (ESC)"
        default: name = LayoutCharacter.name(of: scalar).map { " \($0)" } ?? ""
        }
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code + name
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A value put in place of a placeholder, with each control character written `\xHH`
    /// (as the daemon writes a clip's name that holds one): a name given on the command
    /// line, or a recipe's file name, never puts a newline into an output's name.
    static func escapingControls(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: isControl) else { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            if isControl(scalar) {
                // Its UTF-8 bytes, as the daemon's `RawFileName` writes a name's (C1 is two).
                for byte in String(scalar).utf8 {
                    out += "\\x" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text with every placeholder filled in (control characters in what fills them
    /// escaped: `escapingControls`).
    public func render(_ context: Context) -> String {
        let file = (context.inputPath as NSString).lastPathComponent
        let ext = (file as NSString).pathExtension
        let stem = ext.isEmpty ? file : String(file.dropLast(ext.count + 1))
        return parts.map { part -> String in
            switch part {
            case let .literal(text): return text
            case .name: return Self.escapingControls(stem)
            case .ext: return Self.escapingControls(ext)
            case .recipe: return Self.escapingControls(context.recipeName)
            case .input: return Self.escapingControls(context.inputPath)
            case let .date(format): return Self.format(context.date, format)
            }
        }.joined()
    }

    /// `yyyy MM dd HH mm ss` in UTC (the daemon's logs are UTC too), without locale.
    static func format(_ date: Date, _ format: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func pad(_ v: Int?, _ width: Int) -> String {
            let s = String(v ?? 0)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out = ""
        var rest = Substring(format)
        let tokens: [(String, String)] = [("yyyy", pad(c.year, 4)), ("MM", pad(c.month, 2)), ("dd", pad(c.day, 2)),
                                          ("HH", pad(c.hour, 2)), ("mm", pad(c.minute, 2)), ("ss", pad(c.second, 2))]
        outer: while !rest.isEmpty {
            for (token, value) in tokens where rest.hasPrefix(token) {
                out += value
                rest = rest.dropFirst(token.count)
                continue outer
            }
            out.append(rest.removeFirst())
        }
        return out
    }
}

/// Why a template was refused.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
