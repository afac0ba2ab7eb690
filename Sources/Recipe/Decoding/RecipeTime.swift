import DropcutTimeline

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
                guard let n = Int64(part), n >= 0, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                if i == parts.count - 2, parts.count == 3, n >= 60 { return nil }   // minutes after hours
                // `99999999999999999:00:00` is digits enough for an Int64 but not once
                // multiplied into seconds: not a time (`isTooLarge` says why).
                let (minutes, o1) = whole.multipliedReportingOverflow(by: 60)
                let (sum, o2) = minutes.addingReportingOverflow(n)
                guard !o1, !o2 else { return nil }
                whole = sum
            }
            let (wholeSeconds, overflow) = whole.multipliedReportingOverflow(by: 60)
            guard !overflow else { return nil }
            return .seconds(MediaTime(seconds: wholeSeconds) + seconds)
        }
        return MediaTime(exactly: trimmed).map { .seconds($0) }
    }

    /// True when `text` is written as a time (a number, with `s` or `ms`, or a clock time)
    /// whose size is beyond `limit` seconds either way, including ones `parse` cannot hold
    /// (`1e19`, `1e400`, `inf`, twenty-digit numbers, `99999999999999999:00:00`): so
    /// that such a time is reported with its bound rather than as "not a time".
    static func isTooLarge(_ text: String, limit: Double) -> Bool {
        outOfRange(text, limit: limit) != nil
    }

    /// The value (in seconds, possibly infinite) of a time `text` whose size is beyond
    /// `limit`, as `isTooLarge` reads it; nil when it is within or not a number at all.
    static func outOfRange(_ text: String, limit: Double) -> Double? {
        var t = Substring(text.trimmingWhitespace())
        var scale = 1.0
        if t.hasSuffix("ms") { t = t.dropLast(2); scale = 0.001 } else if t.hasSuffix("s") { t = t.dropLast() }
        t = Substring(String(t).trimmingWhitespace())
        let value: Double
        if t.contains(":") {
            // Clock times: every part digits (the seconds may have a fraction).
            var total = 0.0
            for part in t.split(separator: ":", omittingEmptySubsequences: false) {
                guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let n = Double(part) else { return nil }
                total = total * 60 + n
            }
            value = total
        } else if let slash = t.firstIndex(of: "/") {
            guard let n = Double(t[..<slash]), let d = Double(t[t.index(after: slash)...]), d > 0 else { return nil }
            value = n / d
        } else {
            guard let n = Double(t) else { return nil }
            value = n
        }
        return !value.isNaN && abs(value * scale) > limit ? value * scale : nil
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
