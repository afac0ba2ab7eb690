import Foundation
import DropcutTimeline

/// A gain in decibels (`-10dB`); `linear` is the amplitude factor 10^(dB/20).
public struct Gain: Sendable, Hashable, CustomStringConvertible {
    public var decibels: Double
    public init(decibels: Double) { self.decibels = decibels }
    public var linear: Double { pow(10, decibels / 20) }
    public var description: String { "\(formatNumber(decibels))dB" }

    /// `-10dB`, `-10 dB`, `0dB`; with `fullScale`, `-30dBFS`. A number too large for a
    /// `Double` (`1e400dB`) parses as ±infinity, so the caller's range check names the bound;
    /// NaN is not a level.
    static func parse(_ text: String, fullScale: Bool = false) -> Gain? {
        let suffix = fullScale ? "dbfs" : "db"
        let lower = text.trimmingWhitespace().lowercased()
        guard lower.hasSuffix(suffix), let value = Double(String(lower.dropLast(suffix.count)).trimmingWhitespace()),
              !value.isNaN else { return nil }
        return Gain(decibels: value)
    }
}

/// A length on the output: pixels, or a percentage of a reference the key defines
/// (the output width for `width`, the shorter side for `margin`, the height for `size`).
public enum Length: Sendable, Hashable, CustomStringConvertible {
    case pixels(Double)
    case percent(Double)

    /// `12`, `12px`, `4%`. Any size parses (`1e400px` as infinity) so that
    /// `RecipeReader.length` reports the bound; NaN is not a length.
    static func parse(_ text: String) -> Length? {
        let t = text.trimmingWhitespace()
        if t.hasSuffix("%"), let v = Double(String(t.dropLast()).trimmingWhitespace()), !v.isNaN { return .percent(v) }
        if t.hasSuffix("px"), let v = Double(String(t.dropLast(2)).trimmingWhitespace()), !v.isNaN { return .pixels(v) }
        if let v = Double(t), !v.isNaN { return .pixels(v) }
        return nil
    }

    /// Pixels, given what 100 % is.
    public func pixels(of reference: Double) -> Double {
        switch self {
        case let .pixels(v): return v
        case let .percent(p): return reference * p / 100
        }
    }

    var magnitude: Double {
        switch self {
        case let .pixels(v), let .percent(v): return v
        }
    }

    public var description: String {
        switch self {
        case let .pixels(v): return "\(formatNumber(v))px"
        case let .percent(v): return "\(formatNumber(v))%"
        }
    }
}

/// Colours as `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`.
enum ColorParser {
    static func parse(_ text: String) -> Color? {
        let t = text.trimmingWhitespace()
        guard t.hasPrefix("#") else { return nil }
        // ASCII only: `Character.isHexDigit` also accepts fullwidth digits (`＃ＦＦＦ`),
        // which `Int(_:radix:)` then refuses.
        let hex = Array(t.dropFirst())
        guard hex.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        func byte(_ s: [Character]) -> Double { Double(s.reduce(0) { $0 * 16 + ($1.hexDigitValue ?? 0) }) / 255 }
        switch hex.count {
        case 3, 4:
            let c = hex.map { byte([$0, $0]) }
            return Color(red: c[0], green: c[1], blue: c[2], alpha: hex.count == 4 ? c[3] : 1)
        case 6, 8:
            let c = stride(from: 0, to: hex.count, by: 2).map { byte(Array(hex[$0..<$0 + 2])) }
            return Color(red: c[0], green: c[1], blue: c[2], alpha: hex.count == 8 ? c[3] : 1)
        default:
            return nil
        }
    }
}

/// Bit rates as `160k`, `1.5M`, or bits per second.
enum BitrateParser {
    /// Bits per second, as written: not rounded and not range-checked, so that `1e19` (which
    /// no `Int` holds) is refused by the caller's range check instead of trapping here.
    /// NaN is not a bit rate; infinity parses, to be refused with the bound.
    static func parse(_ text: String) -> Double? {
        let t = text.trimmingWhitespace().lowercased()
        var multiplier = 1.0, number = Substring(t)
        if t.hasSuffix("k") { multiplier = 1000; number = number.dropLast() } else if t.hasSuffix("m") { multiplier = 1_000_000; number = number.dropLast() }
        guard let v = Double(number), !v.isNaN else { return nil }
        return v * multiplier
    }
}

/// `1080x1920`.
enum PixelSizeParser {
    /// Nil when not `WIDTHxHEIGHT`; sides too large for an `Int` (`99999999999999999999x1`)
    /// are `Int.max` so the caller's range check names the bound.
    static func parse(_ text: String) -> PixelSize? {
        let parts = text.trimmingWhitespace().lowercased().split(separator: "x", omittingEmptySubsequences: false)
        func side(_ s: Substring) -> Int? {
            if let n = Int(s) { return n }
            let digits = s.hasPrefix("-") || s.hasPrefix("+") ? s.dropFirst() : s
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return s.hasPrefix("-") ? Int.min : Int.max
        }
        guard parts.count == 2, let w = side(parts[0]), let h = side(parts[1]) else { return nil }
        return PixelSize(width: w, height: h)
    }
}

/// A number for messages: `2`, `0.25`, `-2`.
func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

