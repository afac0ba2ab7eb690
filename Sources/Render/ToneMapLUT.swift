import Foundation
import MediaIO
import Timeline

/// HDR-to-SDR conversion as a 3D lookup table, built once per source colour description
/// from the exact (slow) `HDRToSDRConversion`, so a frame costs a few table reads per
/// pixel instead of `pow`/`exp` per component.
///
/// The table maps the source's non-linear R'G'B' to SDR R'G'B' — the smooth part of the
/// conversion (transfer, tone curve, gamut): on Y'CbCr the same function folds over the
/// edges of the colour cube and a table of this size could not follow it. The matrices
/// on either side are linear and done per pixel; in 4:2:0 the chroma part of the input
/// matrix is computed once per 2×2 block and the output chroma from the block's mean
/// R'G'B', as a 4:2:0 downsample of the converted picture would. The table is read by
/// tetrahedral interpolation (four taps, exact along the grey axis). Writes 8-bit
/// video-range BT.709 4:2:0 (highlights may reach the super-whites). No allocation after
/// `init`.
final class ToneMapLUT {
    let source: ColorDescription
    let bitDepth: Int
    let gridSize: Int
    /// SDR R'G'B' (lane 3 unused) per node, index `(r·n + g)·n + b`.
    private let table: [SIMD4<Float>]

    /// Builds the table for frames described by `source` (an HDR description, resolved)
    /// whose samples have `bitDepth` bits.
    init(source: ColorDescription, bitDepth: Int, gridSize: Int = ToneMapLUT.defaultGridSize) {
        self.source = source
        self.bitDepth = bitDepth
        self.gridSize = gridSize
        let conversion = HDRToSDRConversion(source: source)
        let n = gridSize
        var table = [SIMD4<Float>](repeating: .zero, count: n * n * n)
        func value(_ node: Int) -> Double { Double(node) / Double(n - 1) }
        func clean(_ v: Double) -> Float { v.isFinite ? Float(min(max(v, 0), 1.09)) : 0 }
        for r in 0..<n {
            for g in 0..<n {
                for b in 0..<n {
                    let out = conversion.convert(rgb: (value(r), value(g), value(b)))
                    table[(r * n + g) * n + b] = SIMD4(clean(out.0), clean(out.1), clean(out.2), 0)
                }
            }
        }
        self.table = table
    }

    /// Nodes per axis: 65 keeps 95 % of colours within about one 8-bit code of the exact
    /// conversion (33 leaves PQ reference white 3 % low); 4.4 MB, built in well under a
    /// second in release builds.
    static let defaultGridSize = 65

    /// Converts `region` of `frame` (planar 4:2:0, `bitDepth` bits) into `destination`, a
    /// yuv420p frame of the region's size.
    func convert(_ frame: VideoFrame, region: PixelRect, into destination: VideoFrame) {
        frame.withPlane(0) { y, yStride in
            frame.withPlane(1) { u, uStride in
                frame.withPlane(2) { v, vStride in
                    destination.withPlane(0) { oy, oyStride in
                        destination.withPlane(1) { ou, ouStride in
                            destination.withPlane(2) { ov, ovStride in
                                let planes = Planes(
                                    y: y.baseAddress, u: u.baseAddress, v: v.baseAddress, strides: (yStride, uStride, vStride),
                                    outY: oy.baseAddress, outU: ou.baseAddress, outV: ov.baseAddress,
                                    outStrides: (oyStride, ouStride, ovStride))
                                if bitDepth > 8 {
                                    run(UInt16.self, planes, region: region)
                                } else {
                                    run(UInt8.self, planes, region: region)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private struct Planes {
        var y, u, v: UnsafeMutableRawPointer?
        var strides: (Int, Int, Int)
        var outY, outU, outV: UnsafeMutableRawPointer?
        var outStrides: (Int, Int, Int)
    }

    /// The conversion loop over 2×2 blocks, for one sample type.
    private func run<Sample: FixedWidthInteger & UnsignedInteger>(_: Sample.Type, _ planes: Planes, region: PixelRect) {
        guard let yBase = planes.y, let uBase = planes.u, let vBase = planes.v,
              let outY = planes.outY, let outU = planes.outU, let outV = planes.outV,
              region.width > 0, region.height > 0 else { return }
        // Input codes → normalised Y', Cb, Cr.
        let unit = Float(1 << (bitDepth - 8)), maxCode = Float((1 << bitDepth) - 1)
        let yOffset = source.fullRange ? 0 : 16 * unit, yScale = source.fullRange ? 1 / maxCode : 1 / (219 * unit)
        let cOffset = 128 * unit, cScale = source.fullRange ? 1 / maxCode : 1 / (224 * unit)
        // Y'CbCr → R'G'B' (the source's matrix).
        let (krD, kbD) = HDRToSDRConversion.matrixWeights(source.matrix)
        let kr = Float(krD), kb = Float(kbD), kg = 1 - kr - kb
        let crToR = 2 * (1 - kr), cbToB = 2 * (1 - kb), crToG = -kr * crToR / kg, cbToG = -kb * cbToB / kg
        let n = gridSize, top = Float(n - 1), last = n - 2
        let strideR = n * n, strideG = n
        let width = region.width, height = region.height
        let blocksX = (width + 1) / 2, blocksY = (height + 1) / 2
        let lumaWeights = SIMD4<Float>(0.2126 * 219, 0.7152 * 219, 0.0722 * 219, 0)
        table.withUnsafeBufferPointer { buffer in
            // Read-only table and planes, each band writing its own rows: shared with the
            // bands below without copies.
            guard let tableBase = buffer.baseAddress else { return }
            nonisolated(unsafe) let T = tableBase
            nonisolated(unsafe) let planes = planes
            nonisolated(unsafe) let (yBase, uBase, vBase) = (yBase, uBase, vBase)
            nonisolated(unsafe) let (outY, outU, outV) = (outY, outU, outV)
            /// SDR R'G'B' of source R'G'B' (each clamped to 0...1), by tetrahedral interpolation.
            @Sendable @inline(__always) func lookup(_ r: Float, _ g: Float, _ b: Float) -> SIMD4<Float> {
                let x = min(max(r, 0), 1) * top, y = min(max(g, 0), 1) * top, z = min(max(b, 0), 1) * top
                let i = min(Int(x), last), j = min(Int(y), last), k = min(Int(z), last)
                let fr = x - Float(i), fg = y - Float(j), fb = z - Float(k)
                let p = T + (i * strideR + j * strideG + k)
                // Branch-free: the tetrahedron is picked by sorting the fractions (selects,
                // not jumps — a six-way branch on picture data mispredicts half the time).
                // Ties give the same value whichever of the tied axes goes first.
                let hi = max(fr, max(fg, fb)), lo = min(fr, min(fg, fb)), mid = fr + fg + fb - hi - lo
                let first = fr >= fg && fr >= fb ? strideR : (fg >= fb ? strideG : 1)
                let lastAxis = fr < fg && fr < fb ? strideR : (fg < fb ? strideG : 1)
                let corner = strideR + strideG + 1
                let c0 = p[0], c1 = p[first], c2 = p[corner - lastAxis], c3 = p[corner]
                return c0 + hi * (c1 - c0) + mid * (c2 - c1) + lo * (c3 - c2)
            }
            @Sendable @inline(__always) func lumaByte(_ rgb: SIMD4<Float>) -> UInt8 {
                UInt8(min(16 + (rgb * lumaWeights).sum(), 254) + 0.5)
            }
            @Sendable @inline(__always) func chromaByte(_ value: Float) -> UInt8 {
                UInt8(min(max(128 + 224 * value, 16), 240) + 0.5)
            }
            // Bands of block rows on every core: the table is read-only, each band writes
            // its own rows, so the result is the same however the bands are scheduled.
            let bands = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, blocksY / 8))
            DispatchQueue.concurrentPerform(iterations: bands) { band in
            for by in (blocksY * band / bands)..<(blocksY * (band + 1) / bands) {
                let row0 = region.y + 2 * by, row1 = region.y + min(2 * by + 1, height - 1)
                let chromaRow = (region.y >> 1) + by
                let y0 = (yBase + row0 * planes.strides.0).assumingMemoryBound(to: Sample.self) + region.x
                let y1 = (yBase + row1 * planes.strides.0).assumingMemoryBound(to: Sample.self) + region.x
                let u = (uBase + chromaRow * planes.strides.1).assumingMemoryBound(to: Sample.self) + (region.x >> 1)
                let v = (vBase + chromaRow * planes.strides.2).assumingMemoryBound(to: Sample.self) + (region.x >> 1)
                let o0 = (outY + 2 * by * planes.outStrides.0).assumingMemoryBound(to: UInt8.self)
                let o1 = (outY + min(2 * by + 1, height - 1) * planes.outStrides.0).assumingMemoryBound(to: UInt8.self)
                let ou = (outU + by * planes.outStrides.1).assumingMemoryBound(to: UInt8.self)
                let ov = (outV + by * planes.outStrides.2).assumingMemoryBound(to: UInt8.self)
                for bx in 0..<blocksX {
                    let cb = (Float(u[bx]) - cOffset) * cScale, cr = (Float(v[bx]) - cOffset) * cScale
                    let dr = crToR * cr, dg = crToG * cr + cbToG * cb, db = cbToB * cb
                    @inline(__always) func pixel(_ code: Sample) -> SIMD4<Float> {
                        let luma = (Float(code) - yOffset) * yScale
                        return lookup(luma + dr, luma + dg, luma + db)
                    }
                    let x0 = 2 * bx, x1 = min(2 * bx + 1, width - 1)
                    let p00 = pixel(y0[x0]), p01 = pixel(y0[x1]), p10 = pixel(y1[x0]), p11 = pixel(y1[x1])
                    o0[x0] = lumaByte(p00)
                    o0[x1] = lumaByte(p01)
                    o1[x0] = lumaByte(p10)
                    o1[x1] = lumaByte(p11)
                    let mean = (p00 + p01 + p10 + p11) * 0.25
                    let meanLuma = 0.2126 * mean.x + 0.7152 * mean.y + 0.0722 * mean.z
                    ou[bx] = chromaByte((mean.z - meanLuma) / 1.8556)
                    ov[bx] = chromaByte((mean.x - meanLuma) / 1.5748)
                }
            }
            }
        }
    }
}
