/// A point in output (render) coordinates: origin top-left, y down, in pixels.
public struct Point: Interpolatable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)

    public static func interpolate(from start: Point, to end: Point, fraction: Double) -> Point {
        Point(x: .interpolate(from: start.x, to: end.x, fraction: fraction), y: .interpolate(from: start.y, to: end.y, fraction: fraction))
    }

    public var timelineDescription: String { "(\(formatFixed(x, decimals: 2)),\(formatFixed(y, decimals: 2)))" }
}

/// A size in pixels, as doubles (for natural sizes and overlay extents).
public struct Size: Sendable, Hashable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
}

/// An integer pixel size: render sizes and frame sizes.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }

    /// 4:2:0 video stores one chroma sample per 2×2 pixels, so encoded pictures need even
    /// sides: the one rule every part of dropcut checks or rounds with.
    public var isEven: Bool { width % 2 == 0 && height % 2 == 0 }

    /// The largest even size that fits (at least 2×2): what a source size becomes as an
    /// output size.
    public var evenRoundedDown: PixelSize {
        PixelSize(width: Swift.max(2, width - width % 2), height: Swift.max(2, height - height % 2))
    }
}

/// A rectangle (CGRect): crop rectangles in a source frame's pixel coordinates.
public struct Rect: Interpolatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// "No crop": larger than any frame (CGRect.infinite). Intersect with the frame to use.
    public static let infinite = Rect(x: -1e15, y: -1e15, width: 2e15, height: 2e15)
    public var isInfinite: Bool { width >= 2e15 && height >= 2e15 }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    public static func interpolate(from start: Rect, to end: Rect, fraction: Double) -> Rect {
        Rect(x: Double.interpolate(from: start.x, to: end.x, fraction: fraction),
             y: Double.interpolate(from: start.y, to: end.y, fraction: fraction),
             width: Double.interpolate(from: start.width, to: end.width, fraction: fraction),
             height: Double.interpolate(from: start.height, to: end.height, fraction: fraction))
    }

    public var timelineDescription: String {
        if isInfinite { return "{none}" }
        return "{\(formatFixed(x, decimals: 1)),\(formatFixed(y, decimals: 1)),\(formatFixed(width, decimals: 1)),\(formatFixed(height, decimals: 1))}"
    }
}

/// An affine transform with CGAffineTransform's conventions:
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`. Ramps interpolate the six components
/// linearly, as AVFoundation does for transform ramps.
public struct AffineTransform: Interpolatable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A rotation by `quarterTurns × 90°` (clockwise on screen, with y down), with exact
    /// 0/±1 components, never a sine's rounding error.
    public init(quarterTurns: Int) {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: self.init(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        case 2: self.init(a: -1, b: 0, c: 0, d: -1, tx: 0, ty: 0)
        case 3: self.init(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 0)
        default: self = .identity
        }
    }

    public init(translationX x: Double, y: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y) }
    public init(scaleX sx: Double, y sy: Double) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }

    /// First this transform, then `other` (CGAffineTransformConcat(self, other)).
    public func concatenating(_ other: AffineTransform) -> AffineTransform {
        AffineTransform(a: a * other.a + b * other.c,
                        b: a * other.b + b * other.d,
                        c: c * other.a + d * other.c,
                        d: c * other.b + d * other.d,
                        tx: tx * other.a + ty * other.c + other.tx,
                        ty: tx * other.b + ty * other.d + other.ty)
    }

    public func apply(to p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    public var determinant: Double { a * d - b * c }

    /// The inverse, or nil when the transform is singular.
    public var inverted: AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        return AffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                               tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    public static func interpolate(from s: AffineTransform, to e: AffineTransform, fraction f: Double) -> AffineTransform {
        AffineTransform(a: .interpolate(from: s.a, to: e.a, fraction: f), b: .interpolate(from: s.b, to: e.b, fraction: f),
                        c: .interpolate(from: s.c, to: e.c, fraction: f), d: .interpolate(from: s.d, to: e.d, fraction: f),
                        tx: .interpolate(from: s.tx, to: e.tx, fraction: f), ty: .interpolate(from: s.ty, to: e.ty, fraction: f))
    }

    public var timelineDescription: String {
        if self == .identity { return "identity" }
        let matrix = "[" + [a, b, c, d, tx, ty].map { formatFixed($0, decimals: 2) }.joined(separator: " ") + "]"
        guard let turn = turnDescription else { return matrix }
        return matrix + " (" + turn + ")"
    }

    /// For a transform that turns by other than a quarter (or shears) — one the compositor
    /// resamples — its angle (clockwise on screen, from the x axis's image) and scales
    /// (the lengths the unit axes become): `10.0° 1.20x`, or `10.0° 1.20x0.80` when they
    /// differ. Nil for pixel moves (quarter turns, mirrors, scales, moves), whose matrix
    /// alone reads plainly.
    public var turnDescription: String? {
        let tiny = 1e-9
        let axisAligned = abs(b) < tiny && abs(c) < tiny
        let quarter = abs(a) < tiny && abs(d) < tiny
        guard !axisAligned, !quarter else { return nil }
        let degrees = atan2Degrees(b, a)
        let sx = (a * a + b * b).squareRoot(), sy = (c * c + d * d).squareRoot()
        let scale = abs(sx - sy) < 0.005 ? formatFixed(sx, decimals: 2) + "x"
            : formatFixed(sx, decimals: 2) + "x" + formatFixed(sy, decimals: 2)
        return formatFixed(degrees, decimals: 1) + "° " + scale
    }
}

/// atan2 in degrees, written with the standard library only (Timeline imports no C):
/// the angle of `(x, y)` in -180...180.
func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    guard x != 0 || y != 0 else { return 0 }
    // Reduce to the first octant, where the series below converges fast enough.
    let ax = abs(x), ay = abs(y)
    let swapped = ay > ax
    let t = swapped ? ax / ay : ay / ax   // 0...1
    // atan(t) for t in 0...1 by halving the argument twice, then a short series.
    var u = t
    for _ in 0..<2 { u = u / (1 + (1 + u * u).squareRoot()) }
    let u2 = u * u
    var term = u, sum = 0.0
    for k in 0..<12 {
        sum += term / Double(2 * k + 1)
        term *= -u2
    }
    var angle = 4 * sum                      // atan(t), radians
    if swapped { angle = Double.pi / 2 - angle }
    if x < 0 { angle = Double.pi - angle }
    if y < 0 { angle = -angle }
    return angle * 180 / Double.pi
}

/// An RGBA colour with components in 0...1 (straight, not premultiplied alpha).
public struct Color: Sendable, Hashable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)

    /// True when every component lies in 0...1.
    public var isValid: Bool { [red, green, blue, alpha].allSatisfy { (0...1).contains($0) } }

    /// `#rrggbbaa`.
    public var description: String {
        "#" + [red, green, blue, alpha].map { component -> String in
            let byte = Int((min(max(component, 0), 1) * 255).rounded())
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
