import Timeline

/// A time written in a recipe: seconds as a number, `"1.5s"`, `"250ms"`, `"00:01.500"`,
/// `"01:02:03.5"`, or (in ranges) `end`. Parsed exactly: `0.1` is 1/10 s, never a
/// binary approximation.
public enum RecipeTime: Sendable, Hashable, CustomStringConvertible {
    case seconds(MediaTime)
    /// The end of the clip or the output.
    case end

    /// Parses the text of a time; nil when it is not one. `end` only when `allowEnd`.
    public static func parse(_ text: String, allowEnd: Bool = false) -> RecipeTime? {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "end" { return allowEnd ? .end : nil }
        if trimmed.hasSuffix("ms"), let value = MediaTime(exactly: String(trimmed.dropLast(2)).trimmingWhitespace()) {
            return .seconds(value.multiplied(by: 1, dividedBy: 1000))
        }
        if trimmed.hasSuffix("s"), let value = MediaTime(exactly: String(trimmed.dropLast()).trimmingWhitespace()) {
            return .seconds(value)
        }
        if trimmed.contains(":") {
            // [hh:]mm:ss[.fff] — minutes and seconds below 60 when a larger unit is present.
            let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (2...3).contains(parts.count), let seconds = MediaTime(exactly: parts.last!), seconds >= .zero,
                  seconds < MediaTime(seconds: 60), !parts.last!.hasPrefix("-"), !parts.last!.hasPrefix("+") else { return nil }
            var whole: Int64 = 0
            for (i, part) in parts.dropLast().enumerated() {
                guard let n = Int64(part), n >= 0, part.allSatisfy(\.isNumber) else { return nil }
                if i == parts.count - 2, parts.count == 3, n >= 60 { return nil }   // minutes after hours
                whole = whole * 60 + n
            }
            return .seconds(MediaTime(seconds: whole * 60) + seconds)
        }
        return MediaTime(exactly: trimmed).map { .seconds($0) }
    }

    public var description: String {
        switch self {
        case let .seconds(time): return "\(time)s"
        case .end: return "end"
        }
    }

    /// The time, with `end` standing for `end`.
    public func resolved(end: MediaTime) -> MediaTime {
        switch self {
        case let .seconds(time): return time
        case .end: return end
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
