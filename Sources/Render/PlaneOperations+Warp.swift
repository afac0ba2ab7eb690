/// The general layer warp: for each canvas sample the layer can touch, the source
/// position by `PlaneWarp` (stepped, not recomputed), a bicubic (Catmull-Rom) sample
/// there, and a blend weighted by opacity times the edge coverage — so a turned layer's
/// border is a one-pixel ramp into what lies behind, not a staircase.
extension PlaneOperations {
    /// Warps the `sourceWidth × sourceHeight` plane at `source` onto the plane at
    /// `destination` (sample (0, 0) of the canvas plane), over the samples in `rows` ×
    /// `columns` that the layer covers. `maximum` is the largest sample value (255, 1023).
    /// Generic over the sample type so 8-bit and 16-bit canvases share one loop (each
    /// call is specialised).
    static func warp<Sample: FixedWidthInteger & UnsignedInteger>(
        _ map: PlaneWarp, source: UnsafePointer<Sample>, sourceStride: Int, sourceWidth: Int, sourceHeight: Int,
        destination: UnsafeMutablePointer<Sample>, destinationStride: Int, columns: Range<Int>, rows: Range<Int>,
        opacity: Double, maximum: Int
    ) {
        guard sourceWidth > 0, sourceHeight > 0, opacity > 0 else { return }
        let lastX = sourceWidth - 1, lastY = sourceHeight - 1
        let top = Float(maximum)
        for j in rows {
            let span = map.span(row: j, within: columns)
            guard !span.isEmpty else { continue }
            let fj = Double(j), fi = Double(span.lowerBound)
            var sx = map.sourceX.value(fi, fj), sy = map.sourceY.value(fi, fj)
            var e0 = map.edges.0.value(fi, fj), e1 = map.edges.1.value(fi, fj)
            var e2 = map.edges.2.value(fi, fj), e3 = map.edges.3.value(fi, fj)
            let out = destination + j * destinationStride
            for i in span {
                defer {
                    sx += map.sourceX.p; sy += map.sourceY.p
                    e0 += map.edges.0.p; e1 += map.edges.1.p; e2 += map.edges.2.p; e3 += map.edges.3.p
                }
                let coverage = clampUnit(e0) * clampUnit(e1) * clampUnit(e2) * clampUnit(e3)
                guard coverage > 0 else { continue }
                let value = bicubic(source, stride: sourceStride, x: sx, y: sy, lastX: lastX, lastY: lastY)
                let alpha = Float(coverage * opacity)
                let old = Float(out[i])
                let mixed = alpha >= 1 ? value : old + (value - old) * alpha
                out[i] = Sample(min(max(mixed, 0), top).rounded())
            }
        }
    }

    @inline(__always)
    private static func clampUnit(_ value: Double) -> Double { min(max(value, 0), 1) }

    /// Catmull-Rom over the 4×4 samples around `(x, y)`, edges repeated outward.
    @inline(__always)
    private static func bicubic<Sample: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafePointer<Sample>, stride: Int, x: Double, y: Double, lastX: Int, lastY: Int
    ) -> Float {
        // Clamped far outside first, so the conversions cannot trap.
        let cx = min(max(x, -4), Double(lastX + 4)), cy = min(max(y, -4), Double(lastY + 4))
        let fx = cx.rounded(.down), fy = cy.rounded(.down)
        let wx = weights(Float(cx - fx)), wy = weights(Float(cy - fy))
        let ix = Int(fx), iy = Int(fy)
        let x0 = min(max(ix - 1, 0), lastX), x1 = min(max(ix, 0), lastX)
        let x2 = min(max(ix + 1, 0), lastX), x3 = min(max(ix + 2, 0), lastX)
        @inline(__always) func row(_ yy: Int) -> Float {
            let r = source + min(max(yy, 0), lastY) * stride
            return Float(r[x0]) * wx.0 + Float(r[x1]) * wx.1 + Float(r[x2]) * wx.2 + Float(r[x3]) * wx.3
        }
        return row(iy - 1) * wy.0 + row(iy) * wy.1 + row(iy + 1) * wy.2 + row(iy + 2) * wy.3
    }

    /// Catmull-Rom (Keys, a = -0.5) weights for the samples at -1, 0, 1, 2 of a point `t`
    /// (0...1) past sample 0; they sum to 1.
    @inline(__always)
    static func weights(_ t: Float) -> (Float, Float, Float, Float) {
        let t2 = t * t, t3 = t2 * t
        return (-0.5 * t3 + t2 - 0.5 * t,
                1.5 * t3 - 2.5 * t2 + 1,
                -1.5 * t3 + 2 * t2 + 0.5 * t,
                0.5 * t3 - 0.5 * t2)
    }
}
