/// Swift source reduced to its code: comments and the contents of string literals are
/// blanked (newlines kept, so line numbers still match), so a rule that reads lines
/// neither trips over a C name in a doc comment or a log message nor takes a `{` in a
/// string for a body. Knows nested block comments, multi-line and raw (`#"…"#`) strings
/// and interpolations holding strings of their own; not regex literals (dropcut has none).
struct SwiftCode: Sendable {
    let lines: [String]

    init(_ source: String) {
        lines = String(decoding: Self.blankingCommentsAndStrings(Array(source.utf8)), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Where the lexer is: code (top level, or inside a `\(…)` with `parens` unclosed
    /// parentheses) or a string literal.
    private enum Context {
        case code(interpolationParens: Int?)
        case string(multiline: Bool, hashes: Int)
    }

    private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), quote = UInt8(ascii: "\"")
    private static let hash = UInt8(ascii: "#"), backslash = UInt8(ascii: "\\"), slash = UInt8(ascii: "/")
    private static let star = UInt8(ascii: "*"), open = UInt8(ascii: "("), close = UInt8(ascii: ")")

    private static func blankingCommentsAndStrings(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var stack: [Context] = [.code(interpolationParens: nil)]
        var i = 0

        func at(_ index: Int, _ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return index + pattern.count <= bytes.count && Array(bytes[index..<index + pattern.count]) == pattern
        }
        func blank(_ count: Int) {
            for _ in 0..<count where i < bytes.count {
                out.append(bytes[i] == newline ? newline : space)
                i += 1
            }
        }
        func copy(_ count: Int) {
            out.append(contentsOf: bytes[i..<min(bytes.count, i + count)])
            i += count
        }
        /// The number of `#` at `index`, at most `limit`.
        func hashes(at index: Int, limit: Int = .max) -> Int {
            var count = 0
            while count < limit, index + count < bytes.count, bytes[index + count] == hash { count += 1 }
            return count
        }

        while i < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let parens):
                if at(i, "//") {
                    while i < bytes.count && bytes[i] != newline { blank(1) }
                    continue
                }
                if at(i, "/*") {
                    var depth = 0
                    repeat {
                        if at(i, "/*") { depth += 1; blank(2) }
                        else if at(i, "*/") { depth -= 1; blank(2) }
                        else { blank(1) }
                    } while depth > 0 && i < bytes.count
                    continue
                }
                let opening = hashes(at: i)
                if i + opening < bytes.count && bytes[i + opening] == quote {
                    let multiline = at(i + opening, "\"\"\"")
                    copy(opening + (multiline ? 3 : 1))
                    stack.append(.string(multiline: multiline, hashes: opening))
                    continue
                }
                if let parens {
                    if bytes[i] == open {
                        stack[stack.count - 1] = .code(interpolationParens: parens + 1)
                    } else if bytes[i] == close {
                        if parens == 0 { stack.removeLast() }   // the end of the interpolation
                        else { stack[stack.count - 1] = .code(interpolationParens: parens - 1) }
                    }
                }
                copy(1)
            case .string(let multiline, let delimiterHashes):
                if bytes[i] == backslash, hashes(at: i + 1, limit: delimiterHashes) == delimiterHashes {
                    let after = i + 1 + delimiterHashes
                    if after < bytes.count && bytes[after] == open {
                        blank(after + 1 - i)
                        stack.append(.code(interpolationParens: 0))
                    } else {
                        blank(after + 1 - i)   // an escape and the character it escapes
                    }
                    continue
                }
                if bytes[i] == quote && (!multiline || at(i, "\"\"\"")) {
                    let end = i + (multiline ? 3 : 1)
                    if hashes(at: end, limit: delimiterHashes) == delimiterHashes {
                        copy(end + delimiterHashes - i)
                        stack.removeLast()
                        continue
                    }
                }
                blank(1)
            }
        }
        return out
    }

    /// The declaration that starts at `column` of `line` (0-based), up to its body or
    /// initial value: its name, generic parameters, parameters, type and conformances,
    /// which is what another module sees. Follows a parameter list over lines.
    func declarationHead(line: Int, column: String.Index) -> String {
        var head = ""
        var depth = 0
        var row = line
        var text = Array(lines[row][column...])
        while true {
            for (index, character) in text.enumerated() {
                switch character {
                case "(", "[": depth += 1
                case ")", "]": depth = max(0, depth - 1)
                case "{" where depth == 0: return head
                case "=" where depth == 0:
                    // `x = value`, not `==`, `>=`...: the value is not part of the interface.
                    let before = index > 0 ? text[index - 1] : " "
                    let after = index + 1 < text.count ? text[index + 1] : " "
                    if !"=!<>+-*/%&|^~".contains(before) && after != "=" { return head }
                default: break
                }
                head.append(character)
            }
            row += 1
            guard depth > 0, row < lines.count, row < line + 40 else { return head }
            head.append("\n")
            text = Array(lines[row])
        }
    }
}
