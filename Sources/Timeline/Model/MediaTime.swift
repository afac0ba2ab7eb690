/// An exact point or length in media time: `value / timescale` seconds, like CMTime.
///
/// Arithmetic is exact: sums and differences across timescales use the least common
/// multiple of the timescales, products with a rational use the exact quotient. Only when
/// an exact result does not fit (`Int64` value, `Int32` timescale) is it rounded, to a
/// multiple of the larger operand timescale near 1 GHz, and `hasBeenRounded` says so. Seconds as `Double` exist only
/// at the edges (`seconds`, `init(seconds:preferredTimescale:)`).
///
/// Non-numeric times follow CMTime: `invalid`, `indefinite`, `positiveInfinity`,
/// `negativeInfinity`. Ordering follows `CMTimeCompare`:
/// -inf < numeric < indefinite < +inf < invalid.
public struct MediaTime: Sendable, Hashable, Comparable {
    /// What a time is, beyond its numeric value.
    public enum Kind: UInt8, Sendable, Hashable {
        case numeric
        case invalid
        case indefinite
        case positiveInfinity
        case negativeInfinity
    }

    public let value: Int64
    public let timescale: Int32
    public let kind: Kind
    /// True when this time came out of an operation whose exact result did not fit.
    public let hasBeenRounded: Bool

    /// A numeric time of `value / timescale` seconds. A timescale ≤ 0 gives `invalid`.
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.init(raw: value, timescale, .numeric, rounded: false)
        } else {
            self.init(raw: 0, 0, .invalid, rounded: false)
        }
    }

    private init(raw value: Int64, _ timescale: Int32, _ kind: Kind, rounded: Bool) {
        self.value = value
        self.timescale = timescale
        self.kind = kind
        self.hasBeenRounded = rounded
    }

    public static let zero = MediaTime(value: 0, timescale: 1)
    public static let invalid = MediaTime(raw: 0, 0, .invalid, rounded: false)
    public static let indefinite = MediaTime(raw: 0, 0, .indefinite, rounded: false)
    public static let positiveInfinity = MediaTime(raw: 0, 0, .positiveInfinity, rounded: false)
    public static let negativeInfinity = MediaTime(raw: 0, 0, .negativeInfinity, rounded: false)

    public var isNumeric: Bool { kind == .numeric }
    public var isValid: Bool { kind != .invalid }
    public var isIndefinite: Bool { kind == .indefinite }

    /// The time in seconds, for display and for APIs that want a `Double`.
    /// Non-numeric times give NaN or ±infinity.
    public var seconds: Double {
        switch kind {
        case .numeric: return Double(value) / Double(timescale)
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .invalid, .indefinite: return .nan
        }
    }

    /// A time from seconds, rounded to the nearest tick of `preferredTimescale`.
    /// NaN gives `invalid`, infinities give the infinite times.
    public init(seconds: Double, preferredTimescale: Int32) {
        if seconds.isNaN || preferredTimescale <= 0 {
            self = .invalid
        } else if seconds.isInfinite {
            self = seconds > 0 ? .positiveInfinity : .negativeInfinity
        } else {
            let ticks = (seconds * Double(preferredTimescale)).rounded(.toNearestOrAwayFromZero)
            if let v = Int64(exactly: ticks) {
                self.init(value: v, timescale: preferredTimescale)
            } else {
                self = seconds > 0 ? .positiveInfinity : .negativeInfinity
            }
        }
    }

    /// Whole seconds (or any integer count of `1/timescale` ticks) written shortly.
    public init(seconds: Int64) { self.init(value: seconds, timescale: 1) }

    // MARK: Exact construction from a rational

    /// The exact time `numerator / denominator` seconds, expressed in `preferredTimescale`
    /// when that represents it exactly, else in the reduced denominator, else rounded to a
    /// multiple of `preferredTimescale` near 1 GHz (with `hasBeenRounded`).
    static func exact(_ numerator: Int128, over denominator: Int128, preferredTimescale: Int32,
                      rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> MediaTime {
        precondition(denominator != 0)
        var n = numerator, d = denominator
        if d < 0 { n = -n; d = -d }
        let g = gcd(n.magnitude, d.magnitude)
        if g > 1 { n /= Int128(g); d /= Int128(g) }
        let preferred = Int128(Swift.max(preferredTimescale, 1))
        // Products are checked: `n` may be any Int128 (sums and products of Int64 values and
        // Int32 timescales), and one that overflows here is far outside Int64 anyway.
        if preferred % d == 0, case let (scaled, false) = n.multipliedReportingOverflow(by: preferred / d),
           let v = Int64(exactly: scaled) {
            return MediaTime(raw: v, Int32(preferred), .numeric, rounded: false)
        }
        if let ts = Int32(exactly: d), let v = Int64(exactly: n) {
            return MediaTime(raw: v, ts, .numeric, rounded: false)
        }
        // Not representable exactly: round to the multiple of the preferred timescale
        // nearest below 1 GHz, so precision stays near a nanosecond and times in the
        // preferred timescale still add to it exactly.
        let fine = preferred * Swift.max(1, 1_000_000_000 / preferred)
        guard let scaled = multiplyDivide(n, fine, d, rounding: rounding), let v = Int64(exactly: scaled) else {
            return n > 0 ? .positiveInfinity : .negativeInfinity
        }
        return MediaTime(raw: v, Int32(fine), .numeric, rounded: true)
    }

    /// `n * m / d` rounded by `rule`, for `0 < m <= 2^32` and `d > 0`, without overflowing
    /// where `n * m` would not fit an Int128; nil when the quotient itself does not.
    static func multiplyDivide(_ n: Int128, _ m: Int128, _ d: Int128,
                               rounding rule: FloatingPointRoundingRule) -> Int128? {
        if case let (product, false) = n.multipliedReportingOverflow(by: m) { return divide(product, by: d, rounding: rule) }
        // n = q*d + r, so n*m/d = q*m + r*m/d, where |r*m/d| < m: only q*m can overflow,
        // and r*m is computed in 256 bits.
        let q = n / d, r = n % d
        guard case let (whole, false) = q.multipliedReportingOverflow(by: m) else { return nil }
        let (partQuotient, partRemainder) = d.dividingFullWidth(r.multipliedFullWidth(by: m))
        let part = rounded(quotient: partQuotient, remainder: partRemainder, divisor: d, rule)
        guard case let (sum, false) = whole.addingReportingOverflow(part) else { return nil }
        return sum
    }

    /// `n / d` for `d > 0`, rounded by `rule`.
    static func divide(_ n: Int128, by d: Int128, rounding rule: FloatingPointRoundingRule) -> Int128 {
        rounded(quotient: n / d, remainder: n % d, divisor: d, rule)  // truncating: r has the sign of n
    }

    /// A truncated quotient `q` of some `n / d` (`d > 0`) rounded by `rule`, given the
    /// remainder `r`, which has the sign of `n`.
    static func rounded(quotient q: Int128, remainder r: Int128, divisor d: Int128,
                        _ rule: FloatingPointRoundingRule) -> Int128 {
        if r == 0 { return q }
        let negative = r < 0
        let twiceR = r.magnitude * 2, dm = d.magnitude
        switch rule {
        case .towardZero:
            return q
        case .awayFromZero:
            return negative ? q - 1 : q + 1
        case .down:
            return negative ? q - 1 : q
        case .up:
            return negative ? q : q + 1
        case .toNearestOrAwayFromZero:
            if twiceR >= dm { return negative ? q - 1 : q + 1 }
            return q
        case .toNearestOrEven:
            if twiceR > dm || (twiceR == dm && q % 2 != 0) { return negative ? q - 1 : q + 1 }
            return q
        @unknown default:
            return q
        }
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func lcm(_ a: Int32, _ b: Int32) -> Int128 {
        let g = gcd(UInt128(a), UInt128(b))
        return Int128(a) / Int128(g) * Int128(b)
    }

    // MARK: Conversion

    /// This time in another timescale, rounded by `rule` when it is not exact.
    public func convertScale(_ newTimescale: Int32,
                             rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> MediaTime {
        guard kind == .numeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        let n = Int128(value) * Int128(newTimescale)
        let exactDivision = n % Int128(timescale) == 0
        let scaled = MediaTime.divide(n, by: Int128(timescale), rounding: rule)
        guard let v = Int64(exactly: scaled) else {
            return scaled > 0 ? .positiveInfinity : .negativeInfinity
        }
        return MediaTime(raw: v, newTimescale, .numeric, rounded: hasBeenRounded || !exactDivision)
    }

    /// The value of this time in ticks of `timescale`, rounded by `rule`
    /// (e.g. a PTS in a stream's time base). Nil for non-numeric times.
    public func ticks(in timescale: Int32,
                      rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64? {
        guard kind == .numeric else { return nil }
        let converted = convertScale(timescale, rounding: rule)
        return converted.isNumeric ? converted.value : nil
    }

    // MARK: Arithmetic

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if let special = nonNumericSum(lhs, rhs, subtracting: false) { return special }
        let l = lcm(lhs.timescale, rhs.timescale)
        let n = Int128(lhs.value) * (l / Int128(lhs.timescale)) + Int128(rhs.value) * (l / Int128(rhs.timescale))
        return exact(n, over: l, preferredTimescale: Swift.max(lhs.timescale, rhs.timescale))
            .markedRounded(lhs.hasBeenRounded || rhs.hasBeenRounded)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        if let special = nonNumericSum(lhs, rhs, subtracting: true) { return special }
        let l = lcm(lhs.timescale, rhs.timescale)
        let n = Int128(lhs.value) * (l / Int128(lhs.timescale)) - Int128(rhs.value) * (l / Int128(rhs.timescale))
        return exact(n, over: l, preferredTimescale: Swift.max(lhs.timescale, rhs.timescale))
            .markedRounded(lhs.hasBeenRounded || rhs.hasBeenRounded)
    }

    public static prefix func - (time: MediaTime) -> MediaTime {
        switch time.kind {
        case .numeric:
            // -Int64.min has no Int64: the exact negation, in another timescale or rounded.
            guard time.value != .min else {
                return exact(-Int128(time.value), over: Int128(time.timescale), preferredTimescale: time.timescale).markedRounded(time.hasBeenRounded)
            }
            return MediaTime(raw: -time.value, time.timescale, .numeric, rounded: time.hasBeenRounded)
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        case .invalid, .indefinite: return time
        }
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// This time multiplied by `numerator / denominator`, exactly where it fits
    /// (like CMTimeMultiplyByRatio, but without rounding when the result is representable).
    public func multiplied(by numerator: Int64, dividedBy denominator: Int64,
                           rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> MediaTime {
        guard denominator != 0 else { return .invalid }
        switch kind {
        case .invalid, .indefinite: return self
        case .positiveInfinity, .negativeInfinity:
            if numerator == 0 { return .invalid }
            return (numerator < 0) != (denominator < 0) ? -self : self
        case .numeric:
            return MediaTime.exact(Int128(value) * Int128(numerator), over: Int128(timescale) * Int128(denominator),
                                   preferredTimescale: timescale, rounding: rule)
                .markedRounded(hasBeenRounded)
        }
    }

    /// This time multiplied by the exact ratio `ratio.numerator / ratio.denominator`
    /// of two times (e.g. target duration / source duration).
    public func multiplied(by ratio: (numerator: MediaTime, denominator: MediaTime),
                           rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> MediaTime {
        guard kind == .numeric, ratio.numerator.isNumeric, ratio.denominator.isNumeric,
              ratio.denominator.value != 0 else { return .invalid }
        // (v/ts) * (a/ta) / (b/tb) = v*a*tb / (ts*ta*b): up to 2^157, past Int128. When a
        // product overflows, each side is first reduced by what it shares with the other;
        // what still overflows is computed through Double (53 bits, ~1e-16 relative) and
        // marked rounded. (The common case stays three multiplications: builders call this
        // for every segment boundary.)
        let rounded = hasBeenRounded || ratio.numerator.hasBeenRounded || ratio.denominator.hasBeenRounded
        let preferred = Swift.max(timescale, ratio.numerator.timescale, ratio.denominator.timescale)
        var top = (Int128(value), Int128(ratio.numerator.value), Int128(ratio.denominator.timescale))
        var bottom = (Int128(timescale), Int128(ratio.numerator.timescale), Int128(ratio.denominator.value))
        func products() -> (Int128, Int128)? {
            guard case let (ab, false) = top.0.multipliedReportingOverflow(by: top.1),
                  case let (num, false) = ab.multipliedReportingOverflow(by: top.2),
                  case let (cd, false) = bottom.0.multipliedReportingOverflow(by: bottom.1),
                  case let (den, false) = cd.multipliedReportingOverflow(by: bottom.2) else { return nil }
            return (num, den)
        }
        if products() == nil {
            func reduce(_ x: inout Int128, _ y: inout Int128) {
                let g = Int128(MediaTime.gcd(x.magnitude, y.magnitude))
                if g > 1 { x /= g; y /= g }
            }
            reduce(&top.0, &bottom.0); reduce(&top.0, &bottom.1); reduce(&top.0, &bottom.2)
            reduce(&top.1, &bottom.0); reduce(&top.1, &bottom.1); reduce(&top.1, &bottom.2)
            reduce(&top.2, &bottom.0); reduce(&top.2, &bottom.1); reduce(&top.2, &bottom.2)
        }
        if let (num, den) = products() {
            return MediaTime.exact(num, over: den, preferredTimescale: preferred, rounding: rule).markedRounded(rounded)
        }
        let seconds = Double(top.0) * Double(top.1) * Double(top.2) / (Double(bottom.0) * Double(bottom.1) * Double(bottom.2))
        let fine = Int32(Swift.max(1, 1_000_000_000 / Int(preferred)) * Int(preferred))
        return MediaTime(seconds: seconds, preferredTimescale: fine).markedRounded(true)
    }

    /// The exact quotient `self / other` as a reduced fraction, or nil when either is
    /// non-numeric or `other` is zero.
    public func ratio(to other: MediaTime) -> (numerator: Int128, denominator: Int128)? {
        guard isNumeric, other.isNumeric, other.value != 0 else { return nil }
        var n = Int128(value) * Int128(other.timescale)
        var d = Int128(timescale) * Int128(other.value)
        if d < 0 { n = -n; d = -d }
        let g = MediaTime.gcd(n.magnitude, d.magnitude)
        return (n / Int128(g), d / Int128(g))
    }

    private func markedRounded(_ rounded: Bool) -> MediaTime {
        guard rounded, !hasBeenRounded, kind == .numeric else { return self }
        return MediaTime(raw: value, timescale, kind, rounded: true)
    }

    /// CMTimeAdd's rules for non-numeric operands; nil when both are numeric.
    private static func nonNumericSum(_ a: MediaTime, _ b: MediaTime, subtracting: Bool) -> MediaTime? {
        if a.kind == .numeric && b.kind == .numeric { return nil }
        if a.kind == .invalid || b.kind == .invalid { return .invalid }
        let kinds = [a.kind, subtracting ? (-b).kind : b.kind]
        let positive = kinds.contains(.positiveInfinity), negative = kinds.contains(.negativeInfinity)
        if positive && negative { return .invalid }  // +inf + -inf has no value
        if positive { return .positiveInfinity }
        if negative { return .negativeInfinity }
        return .indefinite
    }

    // MARK: Comparison

    private var orderRank: Int {
        switch kind {
        case .negativeInfinity: return 0
        case .numeric: return 1
        case .indefinite: return 2
        case .positiveInfinity: return 3
        case .invalid: return 4
        }
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.kind == .numeric && rhs.kind == .numeric {
            return Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
        }
        return lhs.orderRank < rhs.orderRank
    }

    /// Equal when they denote the same time, whatever the timescales (1/2 == 300/600).
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        if lhs.kind == .numeric && rhs.kind == .numeric {
            return Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
        }
        return lhs.kind == rhs.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        if kind == .numeric {
            // Hash the reduced fraction so equal times in different timescales hash alike.
            let g = MediaTime.gcd(UInt128(value.magnitude), UInt128(timescale))
            hasher.combine(value / Int64(g))
            hasher.combine(timescale / Int32(g))
        }
    }

    public static func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
    public static func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b : a }
}

extension MediaTime: CustomStringConvertible, CustomDebugStringConvertible {
    /// Seconds with three decimals, as AVFoundation prints segment times: `2.475`.
    public var description: String { formatted(decimals: 3) }

    public var debugDescription: String {
        switch kind {
        case .numeric: return "\(value)/\(timescale) = \(formatted(decimals: 6))\(hasBeenRounded ? " (rounded)" : "")"
        default: return formatted(decimals: 0)
        }
    }

    /// Exact decimal rendering with `decimals` places, rounded half away from zero
    /// (computed from the rational value, never through `Double`, so output is deterministic).
    public func formatted(decimals: Int) -> String {
        switch kind {
        case .invalid: return "INVALID"
        case .indefinite: return "INDEFINITE"
        case .positiveInfinity: return "+INFINITY"
        case .negativeInfinity: return "-INFINITY"
        case .numeric: break
        }
        var pow10: Int128 = 1
        for _ in 0..<decimals { pow10 *= 10 }
        let scaled = MediaTime.divide(Int128(value) * pow10, by: Int128(timescale), rounding: .toNearestOrAwayFromZero)
        let negative = scaled < 0
        let magnitude = scaled.magnitude
        let whole = magnitude / UInt128(pow10)
        let frac = magnitude % UInt128(pow10)
        var text = (negative ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(frac)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }
}

extension MediaTime: ExpressibleByIntegerLiteral {
    /// Whole seconds: `let t: MediaTime = 6`.
    public init(integerLiteral seconds: Int64) { self.init(value: seconds, timescale: 1) }
}

extension MediaTime {
    /// Parses `"value/timescale"` or decimal seconds such as `"87.785"` exactly
    /// (decimal digits become a power-of-ten timescale). Nil when malformed or too long.
    public init?(exactly text: String) {
        if let slash = text.firstIndex(of: "/") {
            guard let v = Int64(text[..<slash]), let ts = Int32(text[text.index(after: slash)...]), ts > 0 else { return nil }
            self.init(value: v, timescale: ts)
            return
        }
        var body = Substring(text)
        var negative = false
        if body.first == "-" { negative = true; body = body.dropFirst() } else if body.first == "+" { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !body.isEmpty,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty)) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 9 else { return nil }
        var timescale: Int32 = 1
        for _ in 0..<fraction.count { timescale *= 10 }
        guard let whole = parts[0].isEmpty ? 0 : Int64(parts[0]),
              let fracValue = fraction.isEmpty ? 0 : Int64(fraction) else { return nil }
        let (scaled, o1) = whole.multipliedReportingOverflow(by: Int64(timescale))
        let (sum, o2) = scaled.addingReportingOverflow(fracValue)
        guard !o1, !o2 else { return nil }
        self.init(value: negative ? -sum : sum, timescale: timescale)
    }
}
