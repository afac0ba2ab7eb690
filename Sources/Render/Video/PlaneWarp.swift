import DropcutTimeline

/// A `LayerWarp` as one plane's sample loop needs it: for each canvas sample `(i, j)` of
/// the plane, the source sample position to read (in the sampled picture's plane, sample
/// `k` at position `k`), and four edge functions whose value clamped to 0...1 is how much
/// of the sample the layer covers across that edge. All are affine in `(i, j)`, so the
/// loop steps them by adding one coefficient per sample.
///
/// Chroma of 4:2:0 sits, in luma pixel coordinates, at `x = 2i + 0.5` ("left", MPEG-2's
/// siting and the default) or `2i + 1` ("centre"), and at `y = 2j + 1`.
struct PlaneWarp {
    /// `value(i, j) = p·i + q·j + r`.
    struct Linear {
        var p, q, r: Double
        func value(_ i: Double, _ j: Double) -> Double { p * i + q * j + r }
    }

    var sourceX: Linear
    var sourceY: Linear
    /// Left, right, top and bottom: coverage `clamp(value, 0, 1)`, 0.5 on the edge itself.
    var edges: (Linear, Linear, Linear, Linear)

    /// Plane `plane` (0: luma) of `warp`; `sourceCentred`/`canvasCentred` say where the
    /// source's and the canvas's chroma sit.
    init(_ warp: LayerWarp, plane: Int, sourceCentred: Bool, canvasCentred: Bool) {
        let chroma = plane == 1 || plane == 2
        // Canvas sample (i, j) at luma position (f·i + ox, f·j + oy).
        let f = chroma ? 2.0 : 1.0
        let ox = chroma ? (canvasCentred ? 1.0 : 0.5) : 0.5, oy = chroma ? 1.0 : 0.5
        // A luma-position function L(X, Y) = p·X + q·Y + r as a function of (i, j).
        func planar(_ p: Double, _ q: Double, _ r: Double, ox: Double = ox) -> Linear {
            Linear(p: p * f, q: q * f, r: p * ox + q * oy + r)
        }
        let m = warp.inverse
        // Sampled luma position (U, V) → source sample index: (U - 0.5, V - 0.5) for luma,
        // ((U - sx) / 2, (V - 1) / 2) for chroma.
        let g = chroma ? 0.5 : 1.0
        let hx = chroma ? (sourceCentred ? 0.5 : 0.25) : 0.5, hy = 0.5
        sourceX = planar(m.a * g, m.c * g, m.tx * g - hx)
        sourceY = planar(m.b * g, m.d * g, m.ty * g - hy)
        // Signed distances to the visible area's sides in canvas luma pixels (U and V
        // change by their gradient's length per canvas pixel), over the sample's footprint:
        // for chroma the 2×2 block it stands for, centred at (2i + 1, 2j + 1) whatever the
        // siting (a left-sited sample at a layer's left edge still covers its block whole).
        let centre = chroma ? 1.0 : 0.5
        let gradientU = (m.a * m.a + m.c * m.c).squareRoot() * f, gradientV = (m.b * m.b + m.d * m.d).squareRoot() * f
        let e = warp.edges
        edges = (planar(m.a / gradientU, m.c / gradientU, (m.tx - e.x) / gradientU + 0.5, ox: centre),
                 planar(-m.a / gradientU, -m.c / gradientU, (e.maxX - m.tx) / gradientU + 0.5, ox: centre),
                 planar(m.b / gradientV, m.d / gradientV, (m.ty - e.y) / gradientV + 0.5, ox: centre),
                 planar(-m.b / gradientV, -m.d / gradientV, (e.maxY - m.ty) / gradientV + 0.5, ox: centre))
    }

    /// The columns of `columns` in row `j` where every edge function is positive (the
    /// layer covers something), found from the four lines rather than tested per sample.
    func span(row j: Int, within columns: Range<Int>) -> Range<Int> {
        var lo = Double(columns.lowerBound), hi = Double(columns.upperBound), empty = false
        // (Four calls, not a loop over an array literal: no allocation per row.)
        func limit(_ edge: Linear) {
            let base = edge.q * Double(j) + edge.r
            if edge.p > 1e-12 {
                lo = max(lo, ((-base) / edge.p).rounded(.down))
            } else if edge.p < -1e-12 {
                hi = min(hi, ((-base) / edge.p).rounded(.up) + 1)
            } else if base <= 0 {
                empty = true
            }
        }
        limit(edges.0); limit(edges.1); limit(edges.2); limit(edges.3)
        guard !empty else { return columns.lowerBound..<columns.lowerBound }
        guard lo < hi else { return columns.lowerBound..<columns.lowerBound }
        return Int(lo)..<Int(hi)
    }
}
