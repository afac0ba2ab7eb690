import Foundation

/// How a keyframe segment paces its change from one value to the next: Core Animation's
/// named `CAMediaTimingFunction` curves, or a hold (`calculationMode = .discrete`).
public enum TimingFunction: String, Sendable, Hashable, CaseIterable {
    case linear
    /// Cubic Bézier (0.42, 0) (1, 1): starts slowly.
    case easeIn = "ease-in"
    /// Cubic Bézier (0, 0) (0.58, 1): ends slowly.
    case easeOut = "ease-out"
    /// Cubic Bézier (0.42, 0) (0.58, 1): starts and ends slowly.
    case easeInEaseOut = "ease-in-out"
    /// Keeps the segment's start value until its end, then jumps.
    case hold
    /// A damped spring released at the start value, as CASpringAnimation with its defaults
    /// (mass 1, stiffness 100, damping 10, no initial velocity): it overshoots the end
    /// value by 16 % and settles. The segment stands for `springSettlingSeconds` of the
    /// spring's time, so the bounce looks the same whatever the segment's length is scaled to.
    case spring

    /// The curve's inner control points (the outer ones are (0, 0) and (1, 1)); nil for
    /// `linear` and `hold`, which are not Béziers here.
    public var controlPoints: (x1: Double, y1: Double, x2: Double, y2: Double)? {
        switch self {
        case .easeIn: return (0.42, 0, 1, 1)
        case .easeOut: return (0, 0, 0.58, 1)
        case .easeInEaseOut: return (0.42, 0, 0.58, 1)
        case .linear, .hold, .spring: return nil
        }
    }

    /// The eased fraction of the change at `fraction` (0...1) of the segment's time:
    /// y of the Bézier at the parameter where its x is `fraction`.
    public func progress(_ fraction: Double) -> Double {
        let t = min(1, max(0, fraction))
        switch self {
        case .linear: return t
        case .hold: return t >= 1 ? 1 : 0
        case .spring: return t >= 1 ? 1 : Self.springProgress(seconds: t * Self.springSettlingSeconds)
        case .easeIn, .easeOut, .easeInEaseOut:
            let (x1, y1, x2, y2) = controlPoints!
            let s = Self.solve(x: t, x1: x1, x2: x2)
            return Self.bezier(s, y1, y2)
        }
    }

    /// Core Animation's default spring: ω0 = √(stiffness / mass) = 10 rad/s, damping ratio
    /// ζ = damping / (2 √(stiffness · mass)) = 0.5.
    static let springNaturalFrequency = 10.0, springDampingRatio = 0.5

    /// When the spring's swing stays within 0.1 % of the travel: e^(-ζω0 t) · √(1 + B²) ≤
    /// 0.001 with B = ζ / √(1 - ζ²), i.e. t = ln(1000 · √(4/3)) / 5 ≈ 1.41 s. The curve
    /// ends there (the last 0.1 % is a jump no one sees).
    public static let springSettlingSeconds = log(1000 * (4.0 / 3).squareRoot()) / 5

    /// The underdamped spring's way from 0 to 1 after `seconds`: 1 - e^(-ζω0 t)(cos ωd t +
    /// ζω0/ωd sin ωd t), ωd = ω0 √(1 - ζ²).
    static func springProgress(seconds t: Double) -> Double {
        let decay = springDampingRatio * springNaturalFrequency
        let damped = springNaturalFrequency * (1 - springDampingRatio * springDampingRatio).squareRoot()
        return 1 - exp(-decay * t) * (cos(damped * t) + decay / damped * sin(damped * t))
    }

    /// One coordinate of the cubic Bézier from 0 to 1 with inner control values `p1`, `p2`.
    static func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - s
        return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
    }

    /// The parameter where the curve's x is `x`, to 1e-12: Newton's method from `x` (quick
    /// where the slope is healthy, as WebKit's UnitBezier and Core Animation do), then
    /// bisection where the slope vanishes (ease-in's and ease-out's flat ends), which
    /// always converges because x(s) is monotonic for control x in 0...1.
    static func solve(x: Double, x1: Double, x2: Double) -> Double {
        let tolerance = 1e-12
        var s = x
        for _ in 0..<8 {
            let error = bezier(s, x1, x2) - x
            if abs(error) < tolerance { return s }
            let u = 1 - s
            let slope = 3 * u * u * x1 + 6 * u * s * (x2 - x1) + 3 * s * s * (1 - x2)
            guard abs(slope) > 1e-6 else { break }
            s -= error / slope
            guard (0...1).contains(s) else { break }
        }
        var low = 0.0, high = 1.0
        s = x
        for _ in 0..<64 {
            let value = bezier(s, x1, x2)
            if abs(value - x) < tolerance { return s }
            if value < x { low = s } else { high = s }
            s = (low + high) / 2
        }
        return s
    }
}
