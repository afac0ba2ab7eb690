/// The eight ways a picture can be laid on the canvas without resampling: rotations by
/// quarter turns and mirror images (the dihedral group of the square). Moving pixels by
/// one of these is exact; display matrices of phone video are always one of them.
///
/// Each case maps a source pixel `(x, y)` of a `w × h` picture to `(u, v)`.
public enum Orientation: Sendable, Hashable, CaseIterable {
    /// `(x, y)`
    case identity
    /// `(w-1-x, y)`
    case mirrorX
    /// `(x, h-1-y)`
    case mirrorY
    /// `(w-1-x, h-1-y)`
    case rotate180
    /// `(y, x)`
    case transpose
    /// `(h-1-y, x)`: a quarter turn clockwise.
    case rotate90
    /// `(y, w-1-x)`: a quarter turn counter-clockwise.
    case rotate270
    /// `(h-1-y, w-1-x)`
    case antiTranspose

    /// True when width and height trade places.
    public var swapsAxes: Bool {
        switch self {
        case .transpose, .rotate90, .rotate270, .antiTranspose: return true
        default: return false
        }
    }

    /// The orientation of a transform's linear part `[a b; c d]` (CGAffineTransform
    /// order: `x' = a·x + c·y`, `y' = b·x + d·y`), with the scales left after it; nil when
    /// the transform shears or turns by other than a quarter (not a pixel move).
    static func of(a: Double, b: Double, c: Double, d: Double) -> (Orientation, scaleX: Double, scaleY: Double)? {
        let tiny = 1e-9
        if abs(b) < tiny && abs(c) < tiny, abs(a) > tiny, abs(d) > tiny {
            switch (a > 0, d > 0) {
            case (true, true): return (.identity, a, d)
            case (false, true): return (.mirrorX, -a, d)
            case (true, false): return (.mirrorY, a, -d)
            case (false, false): return (.rotate180, -a, -d)
            }
        }
        if abs(a) < tiny && abs(d) < tiny, abs(b) > tiny, abs(c) > tiny {
            // The oriented picture's x comes from the source's y (scaled by |c|), its y from x (|b|).
            switch (c > 0, b > 0) {
            case (true, true): return (.transpose, c, b)
            case (false, true): return (.rotate90, -c, b)
            case (true, false): return (.rotate270, c, -b)
            case (false, false): return (.antiTranspose, -c, -b)
            }
        }
        return nil
    }
}
