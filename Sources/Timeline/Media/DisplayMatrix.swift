/// A video track's display matrix, as ISO/IEC 14496-12 (`tkhd`) and libavutil/display.h
/// define it: a source pixel `(p, q)` is shown at
/// `p' = a·p + c·q + x`, `q' = b·p + d·q + y` (origin top-left, y down), stored as nine
/// numbers `(a, b, u, c, d, v, x, y, w)` in 16.16 fixed point (`u`, `v`, `w` in 2.30).
///
/// That is CGAffineTransform's own convention (`x' = a·x + c·y + tx`), which is why
/// AVFoundation hands the matrix out as `preferredTransform` unchanged. dropcut does the
/// same, reading the linear part straight from the matrix — a mirrored file is not a
/// rotation angle plus a flag whose order must be guessed. Only two things are normalised:
/// the linear part snaps to the nearest of the eight exact quarter-turn/mirror moves
/// (phones write nothing else; a matrix a hair off, or turned by another angle, is shown
/// by the nearest one rather than refused), and the translation is recomputed so the
/// shown picture starts at the origin (files and muxers disagree about it).
package struct DisplayMatrix: Sendable, Hashable {
    /// The linear part, in the matrix's own units (1.0 = 65536 in the file).
    package var a, b, c, d: Double

    package init(a: Double, b: Double, c: Double, d: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d
    }

    /// The matrix from its nine stored numbers (`(a, b, u, c, d, v, x, y, w)`, 16.16 fixed
    /// point for the four read here); nil when fewer than nine are given.
    package init?(fixedPoint values: [Int32]) {
        guard values.count >= 9 else { return nil }
        let unit = 65536.0
        self.init(a: Double(values[0]) / unit, b: Double(values[1]) / unit, c: Double(values[3]) / unit, d: Double(values[4]) / unit)
    }

    /// The eight exact linear parts, each with its decomposition: mirrored left-right
    /// first (when `mirrored`), then turned clockwise by `turns` quarter turns.
    static let exactMoves: [(a: Double, b: Double, c: Double, d: Double, turns: Int, mirrored: Bool)] = [
        (1, 0, 0, 1, 0, false),     // identity
        (0, 1, -1, 0, 1, false),    // (x, y) -> (h - y, x): a quarter turn clockwise
        (-1, 0, 0, -1, 2, false),   // half turn
        (0, -1, 1, 0, 3, false),    // (x, y) -> (y, w - x): a quarter turn counter-clockwise
        (-1, 0, 0, 1, 0, true),     // left-right mirror
        (0, -1, -1, 0, 1, true),    // (x, y) -> (h - y, w - x): the anti-transpose
        (1, 0, 0, -1, 2, true),     // top-bottom mirror (a left-right mirror turned half way)
        (0, 1, 1, 0, 3, true),      // (x, y) -> (y, x): the transpose
    ]

    /// The nearest exact move: the one whose columns point most nearly where the matrix's
    /// own (normalised) columns do. Identity for a degenerate (zero-column) matrix.
    private var nearest: (a: Double, b: Double, c: Double, d: Double, turns: Int, mirrored: Bool) {
        let first = (a * a + b * b).squareRoot(), second = (c * c + d * d).squareRoot()
        guard first > 0, second > 0, first.isFinite, second.isFinite else { return Self.exactMoves[0] }
        let (na, nb, nc, nd) = (a / first, b / first, c / second, d / second)
        var best = Self.exactMoves[0], bestScore = -Double.infinity
        for move in Self.exactMoves {
            let score = move.a * na + move.b * nb + move.c * nc + move.d * nd
            if score > bestScore { (best, bestScore) = (move, score) }
        }
        return best
    }

    /// Clockwise quarter turns (0...3) after the mirror, when `isMirrored`.
    package var clockwiseQuarterTurns: Int { nearest.turns }

    /// True when the matrix reflects the picture (a negative determinant): it is shown as
    /// mirrored left-right, then turned by `clockwiseQuarterTurns`.
    package var isMirrored: Bool { nearest.mirrored }

    /// The exact linear part (components 0 or ±1), without translation.
    package var exactLinearPart: AffineTransform {
        let move = nearest
        return AffineTransform(a: move.a, b: move.b, c: move.c, d: move.d, tx: 0, ty: 0)
    }

    /// The matrix as an AVFoundation `preferredTransform` for a picture of `naturalSize`:
    /// the exact linear part plus the translation that puts the shown picture's top-left
    /// corner at the origin (portrait iPhone video: `[0 1 -1 0 h 0]`).
    package func preferredTransform(naturalSize: PixelSize) -> AffineTransform {
        let linear = exactLinearPart
        let box = linear.boundingBox(of: Size(width: Double(naturalSize.width), height: Double(naturalSize.height)))
        return linear.concatenating(AffineTransform(translationX: -box.x, y: -box.y))
    }
}
