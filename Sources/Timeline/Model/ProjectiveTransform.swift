import Foundation

/// A plane-to-plane projective map (a 3×3 homography acting on (x, y, 1)), what a
/// CATransform3D with a perspective term (`m34 = -1/distance`) does to a layer lying in
/// the z = 0 plane. Affine maps (translation, scale, 2D rotation) are the special case
/// with a bottom row of (0, 0, 1). Coordinates are output pixels, y down.
public struct ProjectiveTransform: Sendable, Hashable {
    public var row0: SIMD3<Double>
    public var row1: SIMD3<Double>
    public var row2: SIMD3<Double>

    public init(_ row0: SIMD3<Double>, _ row1: SIMD3<Double>, _ row2: SIMD3<Double>) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    public static let identity = ProjectiveTransform(SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    public static func translation(x: Double, y: Double) -> ProjectiveTransform {
        ProjectiveTransform(SIMD3(1, 0, x), SIMD3(0, 1, y), SIMD3(0, 0, 1))
    }

    /// Both axes times `factor`, about the origin.
    public static func scale(_ factor: Double) -> ProjectiveTransform {
        ProjectiveTransform(SIMD3(factor, 0, 0), SIMD3(0, factor, 0), SIMD3(0, 0, 1))
    }

    /// `degrees` clockwise on screen (y down) about the origin.
    public static func rotation(degrees: Double) -> ProjectiveTransform {
        let (s, c) = sinCos(degrees)
        return ProjectiveTransform(SIMD3(c, -s, 0), SIMD3(s, c, 0), SIMD3(0, 0, 1))
    }

    /// An axis a layer spins about, through its anchor point.
    public enum Axis: String, Sendable, Hashable, CaseIterable {
        case x, y
    }

    /// `degrees` about the X or Y axis through the origin, seen from `distance` pixels away
    /// — CATransform3DMakeRotation then a perspective `m34 = -1/distance`: for a turn about
    /// Y, (x, y) goes to (x cos a, y) / (1 + x sin a / distance), so the edge turning away
    /// shrinks and at 90° the layer is edge-on.
    public static func spin(about axis: Axis, degrees: Double, distance: Double) -> ProjectiveTransform {
        let (s, c) = sinCos(degrees)
        switch axis {
        case .y: return ProjectiveTransform(SIMD3(c, 0, 0), SIMD3(0, 1, 0), SIMD3(s / distance, 0, 1))
        case .x: return ProjectiveTransform(SIMD3(1, 0, 0), SIMD3(0, c, 0), SIMD3(0, -s / distance, 1))
        }
    }

    /// sin and cos of `degrees`, exact at the multiples of 90° (so 90° is truly edge-on and
    /// 180° truly mirrored, not off by 1e-16).
    static func sinCos(_ degrees: Double) -> (sin: Double, cos: Double) {
        let turns = degrees.truncatingRemainder(dividingBy: 360)
        let d = turns < 0 ? turns + 360 : turns
        switch d {
        case 0: return (0, 1)
        case 90: return (1, 0)
        case 180: return (0, -1)
        case 270: return (-1, 0)
        default:
            let r = d * .pi / 180
            return (Foundation.sin(r), Foundation.cos(r))
        }
    }

    /// `self` after `other`: `(self * other).apply(p) == self.apply(other.apply(p))`.
    public static func * (lhs: ProjectiveTransform, rhs: ProjectiveTransform) -> ProjectiveTransform {
        let columns = (SIMD3(rhs.row0.x, rhs.row1.x, rhs.row2.x), SIMD3(rhs.row0.y, rhs.row1.y, rhs.row2.y),
                       SIMD3(rhs.row0.z, rhs.row1.z, rhs.row2.z))
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3((r * columns.0).sum(), (r * columns.1).sum(), (r * columns.2).sum())
        }
        return ProjectiveTransform(row(lhs.row0), row(lhs.row1), row(lhs.row2))
    }

    /// Where `point` goes, with the homogeneous weight it had (≤ 0: behind the eye, not drawn).
    public func applyHomogeneous(_ point: Point) -> (point: Point, weight: Double) {
        let v = SIMD3(point.x, point.y, 1)
        let w = (row2 * v).sum()
        return (Point(x: (row0 * v).sum() / w, y: (row1 * v).sum() / w), w)
    }

    /// Where `point` goes.
    public func apply(_ point: Point) -> Point { applyHomogeneous(point).point }

    /// The inverse map, or nil when the plane collapses to a line (a layer seen edge-on).
    public var inverse: ProjectiveTransform? {
        let (a, b, c) = (row0.x, row0.y, row0.z), (d, e, f) = (row1.x, row1.y, row1.z), (g, h, i) = (row2.x, row2.y, row2.z)
        let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
        let det = a * A + b * B + c * C
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        let k = 1 / det
        return ProjectiveTransform(SIMD3(A, -(b * i - c * h), b * f - c * e) * k,
                                   SIMD3(B, a * i - c * g, -(a * f - c * d)) * k,
                                   SIMD3(C, -(a * h - b * g), a * e - b * d) * k)
    }

    /// True when the map is affine (no perspective): a bottom row of (0, 0, 1).
    public var isAffine: Bool { row2 == SIMD3(0, 0, 1) }
}
