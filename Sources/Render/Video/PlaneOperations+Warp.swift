import Dispatch
import Foundation
internal import CDropcutRenderKernels

/// The general layer warp: for each canvas sample the layer can touch, the source
/// position by `PlaneWarp`, a bicubic (Catmull-Rom) sample there, and a blend weighted by
/// opacity times the edge coverage — so a turned layer's border is a one-pixel ramp into
/// what lies behind, not a staircase.
///
/// Rows are independent, so they go in bands over the cores. Within a row, sample `k`'s
/// position and coverage are the row's start plus `k` steps, computed afresh (not
/// accumulated), in `Float`: every sample is a function of its own index alone, which
/// lets the AVX2 kernel (`WarpRow.c`) take eight at a time and give the same bytes as the
/// loop here. The kernel takes the blocks whose taps all lie inside the source; this loop
/// does the rest (the layer's rim, and every sample on CPUs without AVX2).
extension PlaneOperations {
    /// True when this CPU runs the AVX2 warp kernel.
    static let warpKernelAvailable = dropcut_warp_row_available()

    /// Warps the `sourceWidth × sourceHeight` plane at `source` onto the plane at
    /// `destination` (sample (0, 0) of the canvas plane), over the samples in `rows` ×
    /// `columns` that the layer covers. `maximum` is the largest sample value (255, 1023).
    /// Generic over the sample type so 8-bit and 16-bit canvases share one loop (each
    /// call is specialised). `kernel`: whether blocks go through the AVX2 kernel (tests
    /// switch it off to compare the two).
    static func warp<Sample: FixedWidthInteger & UnsignedInteger>(
        _ map: PlaneWarp, source: UnsafePointer<Sample>, sourceStride: Int, sourceWidth: Int, sourceHeight: Int,
        destination: UnsafeMutablePointer<Sample>, destinationStride: Int, columns: Range<Int>, rows: Range<Int>,
        opacity: Double, maximum: Int, kernel: Bool = warpKernelAvailable
    ) {
        guard sourceWidth > 0, sourceHeight > 0, opacity > 0, !rows.isEmpty, !columns.isEmpty else { return }
        // The kernel's offsets are 32-bit and its sample indices exact in a Float.
        let samples = sourceHeight.multipliedReportingOverflow(by: sourceStride)
        let kernel = kernel && (Sample.self == UInt8.self || Sample.self == UInt16.self)
            && !samples.overflow && samples.partialValue < Int(Int32.max) && columns.count < 1 << 24
        var row = dropcut_warp_row()
        row.source = UnsafeRawPointer(source)
        row.stride = Int32(clamping: sourceStride)
        row.lastX = Int32(clamping: sourceWidth - 1)
        row.lastY = Int32(clamping: sourceHeight - 1)
        row.dx = Float(map.sourceX.p)
        row.dy = Float(map.sourceY.p)
        row.edgeSteps = (Float(map.edges.0.p), Float(map.edges.1.p), Float(map.edges.2.p), Float(map.edges.3.p))
        row.opacity = Float(min(opacity, 1))
        row.maximum = Float(maximum)
        // Read-only source and settings; each band writes its own rows only.
        nonisolated(unsafe) let destination = destination
        nonisolated(unsafe) let template = row
        let bands = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, rows.count / 16))
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let first = rows.lowerBound + rows.count * band / bands, end = rows.lowerBound + rows.count * (band + 1) / bands
            // Tile by tile rather than row by row: a layer turned by about a quarter (a
            // portrait phone clip's display matrix) reads its source down the columns, and
            // a whole canvas row would then walk the full height of the source, missing the
            // cache at every tap. A tile's source footprint stays in the L1 cache.
            withUnsafeTemporaryAllocation(of: dropcut_warp_row.self, capacity: warpTile.rows) { starts in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: warpTile.rows) { spans in
                guard let starts = starts.baseAddress, let spans = spans.baseAddress else { return }
                var top = first
                while top < end {
                    let bottom = min(top + warpTile.rows, end)
                    for j in top..<bottom {
                        let span = map.span(row: j, within: columns)
                        var start = template
                        if !span.isEmpty {
                            let fj = Double(j), fi = Double(span.lowerBound)
                            start.x = Float(map.sourceX.value(fi, fj))
                            start.y = Float(map.sourceY.value(fi, fj))
                            start.edges = (Float(map.edges.0.value(fi, fj)), Float(map.edges.1.value(fi, fj)),
                                           Float(map.edges.2.value(fi, fj)), Float(map.edges.3.value(fi, fj)))
                        }
                        (starts + (j - top)).initialize(to: start)
                        (spans + (j - top)).initialize(to: span)
                    }
                    var left = columns.lowerBound
                    while left < columns.upperBound {
                        let right = min(left + warpTile.columns, columns.upperBound)
                        for j in top..<bottom {
                            let span = spans[j - top]
                            let from = max(span.lowerBound, left), to = min(span.upperBound, right)
                            guard from < to else { continue }
                            warpRow(starts[j - top], into: destination + j * destinationStride + span.lowerBound,
                                    samples: (from - span.lowerBound)..<(to - span.lowerBound), kernel: kernel)
                        }
                        left = right
                    }
                    top = bottom
                }
            }
            }
        }
    }

    /// Canvas samples warped together (see the bands above).
    private static let warpTile = (columns: 64, rows: 32)

    /// Samples `samples` of one row (`out` is its sample 0): whole blocks of eight through
    /// the kernel while their taps are inside the source, a block (or the tail) at a time
    /// here otherwise.
    private static func warpRow<Sample: FixedWidthInteger & UnsignedInteger>(
        _ row: dropcut_warp_row, into out: UnsafeMutablePointer<Sample>, samples: Range<Int>, kernel: Bool
    ) {
        var k = samples.lowerBound
        let count = samples.upperBound
        while k < count {
            if kernel {
                let total = Int32(count)
                let done = withUnsafePointer(to: row) { settings in
                    if Sample.self == UInt8.self {
                        return out.withMemoryRebound(to: UInt8.self, capacity: count) { dropcut_warp_row_u8(settings, $0, Int32(k), total) }
                    }
                    return out.withMemoryRebound(to: UInt16.self, capacity: count) { dropcut_warp_row_u16(settings, $0, Int32(k), total) }
                }
                k = Int(done)
                if k >= count { break }
            }
            let end = min(k + 8, count)
            for m in k..<end { sample(row, m, into: out) }
            k = end
        }
    }

    /// Sample `k` of `row`: what the kernel computes for each lane, with each tap clamped
    /// into the source (its edge samples repeated outward).
    @inline(__always)
    private static func sample<Sample: FixedWidthInteger & UnsignedInteger>(
        _ row: dropcut_warp_row, _ k: Int, into out: UnsafeMutablePointer<Sample>
    ) {
        let kf = Float(k)
        let e = row.edges, s = row.edgeSteps
        let coverage = clampUnit(e.0 + kf * s.0) * clampUnit(e.1 + kf * s.1) * clampUnit(e.2 + kf * s.2) * clampUnit(e.3 + kf * s.3)
        guard coverage > 0 else { return }
        let x = row.x + kf * row.dx, y = row.y + kf * row.dy
        // (A position beyond Float's range leaves the sample as it is.)
        guard x.isFinite, y.isFinite else { return }
        let lastX = Int(row.lastX), lastY = Int(row.lastY)
        let value = bicubic(row.source.assumingMemoryBound(to: Sample.self), stride: Int(row.stride),
                            x: x, y: y, lastX: lastX, lastY: lastY)
        let alpha = coverage * row.opacity
        let old = Float(out[k])
        let mixed = alpha >= 1 ? value : old + (value - old) * alpha
        out[k] = Sample(min(max(mixed, 0), row.maximum).rounded(.toNearestOrEven))
    }

    @inline(__always)
    private static func clampUnit(_ value: Float) -> Float { min(max(value, 0), 1) }

    /// Catmull-Rom over the 4×4 samples around `(x, y)`, edges repeated outward.
    @inline(__always)
    private static func bicubic<Sample: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafePointer<Sample>, stride: Int, x: Float, y: Float, lastX: Int, lastY: Int
    ) -> Float {
        // Clamped far outside first, so the conversions cannot trap.
        let cx = min(max(x, -4), Float(lastX + 4)), cy = min(max(y, -4), Float(lastY + 4))
        let fx = cx.rounded(.down), fy = cy.rounded(.down)
        let wx = weights(cx - fx), wy = weights(cy - fy)
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
