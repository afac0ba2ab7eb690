import Foundation
import DropcutTimeline

/// Reads typed values out of `RecipeNode`s, collecting every problem with its position
/// instead of stopping at the first, so a person fixing a recipe sees all of them at once.
/// Public so other YAML files of dropcut's (the daemon's config) report mistakes the same way.
package struct RecipeReader {
    package private(set) var diagnostics: [RecipeDiagnostic] = []

    package init() {}

    /// Rewrites the messages added since `count` to name `to` where they name `from`
    /// (`output.size` -> `outputs[2].size`): `output:`'s decoder reads the entries too.
    mutating func renameSubject(since count: Int, from: String, to: String) {
        for i in diagnostics.indices.dropFirst(count) {
            var message = diagnostics[i].message
            message = message.replacingOccurrences(of: "\(from).", with: "\(to).")
            if message.hasPrefix("\(from):") { message = to + message.dropFirst(from.count) }
            diagnostics[i].message = message
        }
    }

    package mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(RecipeDiagnostic(message, at: location))
    }

    /// The keys of a mapping, checked against `allowed`. Unknown keys are errors with a
    /// "did you mean" suggestion; a node that is not a mapping is an error.
    package mutating func fields(_ node: RecipeNode, _ what: String, allowed: [String]) -> Fields? {
        guard case let .mapping(entries, _) = node else {
            error("\(what) must be a mapping of keys (\(allowed.joined(separator: ", "))), got \(describe(node))", at: node.location)
            return nil
        }
        var known: [String: RecipeNode.Entry] = [:]
        for entry in entries {
            if allowed.contains(entry.key) {
                known[entry.key] = entry
            } else {
                var message = "unknown key '\(entry.key)' in \(what)"
                if let suggestion = Self.suggestion(for: entry.key, among: allowed) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; expected one of: \(allowed.joined(separator: ", "))"
                }
                error(message, at: entry.keyLocation)
            }
        }
        return Fields(entries: known, location: node.location)
    }

    /// The items of a list (a single non-list value is an error).
    package mutating func list(_ node: RecipeNode, _ what: String) -> [RecipeNode]? {
        guard case let .sequence(items, _) = node else {
            error("\(what) must be a list, got \(describe(node))", at: node.location)
            return nil
        }
        return items
    }

    package mutating func string(_ node: RecipeNode, _ what: String) -> String? {
        guard case let .scalar(text, _, _) = node, !node.isNull else {
            error("\(what) must be text, got \(describe(node))", at: node.location)
            return nil
        }
        return text
    }

    package mutating func bool(_ node: RecipeNode, _ what: String) -> Bool? {
        if case let .scalar(text, true, _) = node {
            if ["true", "yes", "on"].contains(text.lowercased()) { return true }
            if ["false", "no", "off"].contains(text.lowercased()) { return false }
        }
        error("\(what) must be true or false, got \(describe(node))", at: node.location)
        return nil
    }

    /// A plain number in `range`. `1e400` and `inf` are numbers out of any finite range
    /// (the message names the range); NaN is not a number.
    package mutating func number(_ node: RecipeNode, _ what: String, in range: ClosedRange<Double>) -> Double? {
        guard case let .scalar(text, _, _) = node, let value = Double(text.trimmingWhitespace()), !value.isNaN else {
            error("\(what) must be a number, got \(describe(node))", at: node.location)
            return nil
        }
        guard range.contains(value) else {
            let got = value.isFinite ? formatNumber(value) : text.trimmingWhitespace()   // `1e400`, not `inf`
            error("\(what) must be \(Self.describe(range)) (got \(got))", at: node.location)
            return nil
        }
        return value
    }

    /// A whole number in `range`. A number beyond it — also one no `Int` holds
    /// (`9223372036854775808`, `1e19`) — is reported with the range.
    package mutating func integer(_ node: RecipeNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard case let .scalar(raw, _, _) = node, let value = Int(raw.trimmingWhitespace()) else {
            if case let .scalar(raw, _, _) = node, let number = Double(raw.trimmingWhitespace()), !number.isNaN,
               number < Double(range.lowerBound) || number > Double(range.upperBound) {
                error("\(what) must be between \(range.lowerBound) and \(range.upperBound) (got \(raw.trimmingWhitespace()))", at: node.location)
                return nil
            }
            error("\(what) must be a whole number, got \(describe(node))", at: node.location)
            return nil
        }
        guard range.contains(value) else {
            error("\(what) must be between \(range.lowerBound) and \(range.upperBound) (got \(value))", at: node.location)
            return nil
        }
        return value
    }

    /// One of `E`'s raw values, with a suggestion when close.
    package mutating func choice<E: RawRepresentable & CaseIterable>(_ node: RecipeNode, _ what: String, _ type: E.Type) -> E?
    where E.RawValue == String {
        let options = E.allCases.map(\.rawValue)
        guard case let .scalar(text, _, _) = node else {
            error("\(what) must be one of \(options.joined(separator: " | ")), got \(describe(node))", at: node.location)
            return nil
        }
        if let value = E(rawValue: text.trimmingWhitespace()) { return value }
        var message = "\(what) must be one of \(options.joined(separator: " | ")) (got '\(text)')"
        if let suggestion = Self.suggestion(for: text, among: options) { message += "; did you mean '\(suggestion)'?" }
        error(message, at: node.location)
        return nil
    }

    /// A time (`1.5`, `"1.5s"`, `"250ms"`, `"00:01.500"`, `end` when allowed), not negative
    /// and at most `RecipeLimits.maximumTime` (24 hours): every time of a recipe (and of the
    /// daemon's configuration) goes through here, so nothing past the bound reaches the
    /// tick arithmetic of the builder, the ramps or the renderer.
    package mutating func time(_ node: RecipeNode, _ what: String, allowEnd: Bool = false) -> RecipeTime? {
        let tooLarge = "\(what) must be at most \(RecipeLimits.maximumTimeText)"
        guard case let .scalar(text, _, _) = node, let time = RecipeTime.parse(text, allowEnd: allowEnd) else {
            if case let .scalar(text, _, _) = node, let value = RecipeTime.outOfRange(text, limit: Double(RecipeLimits.maximumTimeSeconds)) {
                error(value < 0 ? "\(what) must not be negative (got \(text.trimmingWhitespace()))" : "\(tooLarge) (got \(text.trimmingWhitespace()))",
                      at: node.location)
                return nil
            }
            let forms = "seconds (2.5), \"2.5s\", \"250ms\" or \"00:02.500\"" + (allowEnd ? " or end" : "")
            error("\(what) must be a time: \(forms); got \(describe(node))", at: node.location)
            return nil
        }
        if case let .seconds(value) = time, value < .zero {
            error("\(what) must not be negative (got \(text))", at: node.location)
            return nil
        }
        if case let .seconds(value) = time, value > RecipeLimits.maximumTime {
            error("\(tooLarge) (got \(text.trimmingWhitespace()))", at: node.location)
            return nil
        }
        return time
    }

    /// A duration in seconds that must be a number of seconds (no `end`).
    package mutating func duration(_ node: RecipeNode, _ what: String) -> MediaTime? {
        guard case let .seconds(value)? = time(node, what) else { return nil }
        return value
    }

    /// `[start, end]`: two times, start before end.
    mutating func closedRange(_ node: RecipeNode, _ what: String) -> Recipe.ClosedTimeRange? {
        guard case let .sequence(items, at) = node, items.count == 2 else {
            error("\(what) must be a list of two times [start, end], got \(describe(node))", at: node.location)
            return nil
        }
        guard let start = time(items[0], "\(what) start"), let end = time(items[1], "\(what) end", allowEnd: true) else { return nil }
        if case let .seconds(s) = start, case let .seconds(e) = end, e <= s {
            error("\(what) must end after it starts (got [\(s), \(e)])", at: items[1].location)
            return nil
        }
        return Recipe.ClosedTimeRange(start: start, end: end, location: at)
    }

    mutating func gain(_ node: RecipeNode, _ what: String, fullScale: Bool = false, in range: ClosedRange<Double>) -> Gain? {
        let unit = fullScale ? "dBFS" : "dB"
        guard case let .scalar(text, _, _) = node, let gain = Gain.parse(text, fullScale: fullScale) else {
            error("\(what) must be a level in \(unit), like \"-12\(unit)\"; got \(describe(node))", at: node.location)
            return nil
        }
        guard range.contains(gain.decibels) else {
            error("\(what) must be \(Self.describe(range)) \(unit) (got \(text))", at: node.location)
            return nil
        }
        return gain
    }

    /// A length: 0 to `RecipeLimits.maximumLengthPixels` px or 0 to 100 %. Checked here
    /// because the renderer turns pixels into `Int`s (`5e9px` used to trap there).
    mutating func length(_ node: RecipeNode, _ what: String) -> Length? {
        guard case let .scalar(text, _, _) = node, let length = Length.parse(text) else {
            error("\(what) must be a length in px or %, like 24, \"24px\" or \"4%\"; got \(describe(node))", at: node.location)
            return nil
        }
        let limit: Double
        switch length {
        case .pixels: limit = RecipeLimits.maximumLengthPixels
        case .percent: limit = RecipeLimits.maximumLengthPercent
        }
        guard length.magnitude >= 0, length.magnitude <= limit else {
            error("\(what) must be between 0 and \(formatNumber(RecipeLimits.maximumLengthPixels))px or between 0 and \(formatNumber(RecipeLimits.maximumLengthPercent))% (got \(text.trimmingWhitespace()))", at: node.location)
            return nil
        }
        return length
    }

    mutating func color(_ node: RecipeNode, _ what: String) -> Color? {
        guard case let .scalar(text, _, _) = node, let color = ColorParser.parse(text) else {
            error("\(what) must be a colour #rgb, #rrggbb or #rrggbbaa; got \(describe(node))", at: node.location)
            return nil
        }
        return color
    }

    /// What a node is, for messages: `'abc'`, `a mapping`, `a list`, `nothing`.
    package func describe(_ node: RecipeNode) -> String {
        if node.isNull { return "nothing" }
        if case let .scalar(text, _, _) = node { return "'\(text)'" }
        return node.kindName
    }

    static func describe(_ range: ClosedRange<Double>) -> String {
        if range.upperBound == .infinity { return "at least \(formatNumber(range.lowerBound))" }
        if range.lowerBound == -.infinity { return "at most \(formatNumber(range.upperBound))" }
        return "between \(formatNumber(range.lowerBound)) and \(formatNumber(range.upperBound))"
    }

    /// The closest of `candidates` to `word` by edit distance, when close enough to be a typo.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, min(3, best.0.count / 3)) ? best.0 : nil
    }

    /// Edit distance counting two neighbours swapped as one edit (optimal string
    /// alignment): `h246` is one typo from `h264`, as `veryfst` is from `veryfast`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}

/// The known keys of one mapping.
package struct Fields {
    package var entries: [String: RecipeNode.Entry]
    package var location: SourceLocation
    package subscript(key: String) -> RecipeNode? { entries[key]?.value }
    package func keyLocation(_ key: String) -> SourceLocation? { entries[key]?.keyLocation }
}
