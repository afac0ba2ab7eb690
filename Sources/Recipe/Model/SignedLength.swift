/// A length that may be negative — a move to the left or up: `-40`, `"-40px"`, `"-5%"`.
/// Kept apart from `Length` (sizes, margins), which is never negative.
public enum SignedLength: Sendable, Hashable, CustomStringConvertible {
    case pixels(Double)
    case percent(Double)

    /// Pixels, given what 100 % is.
    public func pixels(of reference: Double) -> Double {
        switch self {
        case let .pixels(v): return v
        case let .percent(p): return reference * p / 100
        }
    }

    public var description: String {
        switch self {
        case let .pixels(v): return "\(formatNumber(v))px"
        case let .percent(p): return "\(formatNumber(p))%"
        }
    }
}
