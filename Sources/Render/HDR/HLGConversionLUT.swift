import Foundation
import DropcutMediaIO
import DropcutTimeline

/// The conversion into HLG (`HLGConversion`: SDR mapped up with its white at HLG 75 %, PQ
/// placed by display light) as a 3D lookup table, built once per source colour
/// description, so a frame costs a few table reads per pixel instead of `pow`/`exp`/`log`
/// per component.
///
/// Like `ToneMapLUT` (whose structure it follows) the table maps the source's non-linear
/// R'G'B' to HLG R'G'B' in BT.2020 and is read by tetrahedral interpolation (four taps,
/// exact along the grey axis); the Y'CbCr matrices on either side are done per pixel, the
/// input chroma once per 2×2 block, the output chroma from the block's mean R'G'B'. Writes
/// 10-bit video-range BT.2020 4:2:0 (`yuv420p10`). No allocation after `init`; read-only
/// afterwards, so one table can serve several threads (the overlays' and the video's).
final class HLGConversionLUT: Sendable {
    let source: ColorDescription
    let gridSize: Int
    /// HLG R'G'B' (lane 3 unused) per node, index `(r·n + g)·n + b`.
    private let table: [SIMD4<Float>]

    /// Builds the table for pictures described by `source` (resolved).
    init(source: ColorDescription, gridSize: Int = HLGConversionLUT.defaultGridSize) {
        self.source = source
        self.gridSize = gridSize
        let conversion = HLGConversion(source: source)
        let n = gridSize
        var table = [SIMD4<Float>](repeating: .zero, count: n * n * n)
        func value(_ node: Int) -> Double { Double(node) / Double(n - 1) }
        func clean(_ v: Double) -> Float { v.isFinite ? Float(min(max(v, 0), 1)) : 0 }
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

    /// Nodes per axis, as `ToneMapLUT`'s: 4.4 MB.
    static let defaultGridSize = 65

    /// The table for SDR BT.709 colours — overlays, text, backgrounds, BT.709 clips — built
    /// on first use and shared by every export of the process.
    static let bt709 = HLGConversionLUT(source: .bt709)

    /// HLG R'G'B' (BT.2020, each 0...1; lane 3 zero) of the source's R'G'B' (each clamped
    /// to 0...1).
    func convert(red: Float, green: Float, blue: Float) -> SIMD4<Float> {
        table.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .zero }
            return Self.lookup(base, gridSize: gridSize, red, green, blue)
        }
    }

    /// 10-bit video-range BT.2020 Y'CbCr codes of HLG R'G'B'.
    static func codes(_ rgb: SIMD4<Float>) -> (y: UInt16, cb: UInt16, cr: UInt16) {
        let luma = 0.2627 * rgb.x + 0.6780 * rgb.y + 0.0593 * rgb.z
        return (lumaCode(luma), chromaCode((rgb.z - luma) / 1.8814), chromaCode((rgb.x - luma) / 1.4746))
    }

    @inline(__always) static func lumaCode(_ luma: Float) -> UInt16 {
        UInt16(min(max(64 + 876 * luma, 4), 1019) + 0.5)
    }

    @inline(__always) static func chromaCode(_ difference: Float) -> UInt16 {
        UInt16(min(max(512 + 896 * difference, 64), 960) + 0.5)
    }

    /// HLG R'G'B' of R'G'B' (each clamped to 0...1), by tetrahedral interpolation in the
    /// table at `table`.
    @inline(__always)
    private static func lookup(_ table: UnsafePointer<SIMD4<Float>>, gridSize n: Int,
                               _ r: Float, _ g: Float, _ b: Float) -> SIMD4<Float> {
        let top = Float(n - 1), last = n - 2
        let strideR = n * n, strideG = n
        let x = min(max(r, 0), 1) * top, y = min(max(g, 0), 1) * top, z = min(max(b, 0), 1) * top
        let i = min(Int(x), last), j = min(Int(y), last), k = min(Int(z), last)
        let fr = x - Float(i), fg = y - Float(j), fb = z - Float(k)
        let p = table + (i * strideR + j * strideG + k)
        // The tetrahedron picked by sorting the fractions, with selects rather than a
        // six-way branch on picture data.
        let hi = max(fr, max(fg, fb)), lo = min(fr, min(fg, fb)), mid = fr + fg + fb - hi - lo
        let first = fr >= fg && fr >= fb ? strideR : (fg >= fb ? strideG : 1)
        let lastAxis = fr < fg && fr < fb ? strideR : (fg < fb ? strideG : 1)
        let corner = strideR + strideG + 1
        let c0 = p[0], c1 = p[first], c2 = p[corner - lastAxis], c3 = p[corner]
        return c0 + hi * (c1 - c0) + mid * (c2 - c1) + lo * (c3 - c2)
    }

    /// Converts `region` of `frame` (planar 4:2:0, 8 to 16 bits, described by `source`)
    /// into `destination`, a `yuv420p10` frame of the region's size.
    func convert(_ frame: VideoFrame, region: PixelRect, into destination: VideoFrame) {
        let bitDepth = frame.pixelFormat.bitDepth
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
                                    run(UInt16.self, planes, bitDepth: bitDepth, region: region)
                                } else {
                                    run(UInt8.self, planes, bitDepth: 8, region: region)
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

    /// The conversion loop over 2×2 blocks, for one input sample type.
    private func run<Sample: FixedWidthInteger & UnsignedInteger>(_: Sample.Type, _ planes: Planes, bitDepth: Int,
                                                                  region: PixelRect) {
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
        let n = gridSize
        let width = region.width, height = region.height
        let blocksX = (width + 1) / 2, blocksY = (height + 1) / 2
        table.withUnsafeBufferPointer { buffer in
            // Read-only table and planes, each band writing its own rows: shared with the
            // bands below without copies.
            guard let tableBase = buffer.baseAddress else { return }
            nonisolated(unsafe) let table = tableBase
            nonisolated(unsafe) let planes = planes
            nonisolated(unsafe) let (yBase, uBase, vBase) = (yBase, uBase, vBase)
            nonisolated(unsafe) let (outY, outU, outV) = (outY, outU, outV)
            let bands = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, blocksY / 8))
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                for by in (blocksY * band / bands)..<(blocksY * (band + 1) / bands) {
                    let row0 = region.y + 2 * by, row1 = region.y + min(2 * by + 1, height - 1)
                    let chromaRow = (region.y >> 1) + by
                    let y0 = (yBase + row0 * planes.strides.0).assumingMemoryBound(to: Sample.self) + region.x
                    let y1 = (yBase + row1 * planes.strides.0).assumingMemoryBound(to: Sample.self) + region.x
                    let u = (uBase + chromaRow * planes.strides.1).assumingMemoryBound(to: Sample.self) + (region.x >> 1)
                    let v = (vBase + chromaRow * planes.strides.2).assumingMemoryBound(to: Sample.self) + (region.x >> 1)
                    let o0 = (outY + 2 * by * planes.outStrides.0).assumingMemoryBound(to: UInt16.self)
                    let o1 = (outY + min(2 * by + 1, height - 1) * planes.outStrides.0).assumingMemoryBound(to: UInt16.self)
                    let ou = (outU + by * planes.outStrides.1).assumingMemoryBound(to: UInt16.self)
                    let ov = (outV + by * planes.outStrides.2).assumingMemoryBound(to: UInt16.self)
                    for bx in 0..<blocksX {
                        let cb = (Float(u[bx]) - cOffset) * cScale, cr = (Float(v[bx]) - cOffset) * cScale
                        let dr = crToR * cr, dg = crToG * cr + cbToG * cb, db = cbToB * cb
                        @inline(__always) func pixel(_ code: Sample) -> SIMD4<Float> {
                            let luma = (Float(code) - yOffset) * yScale
                            return Self.lookup(table, gridSize: n, luma + dr, luma + dg, luma + db)
                        }
                        @inline(__always) func luma(_ rgb: SIMD4<Float>) -> UInt16 {
                            Self.lumaCode(0.2627 * rgb.x + 0.6780 * rgb.y + 0.0593 * rgb.z)
                        }
                        let x0 = 2 * bx, x1 = min(2 * bx + 1, width - 1)
                        let p00 = pixel(y0[x0]), p01 = pixel(y0[x1]), p10 = pixel(y1[x0]), p11 = pixel(y1[x1])
                        o0[x0] = luma(p00)
                        o0[x1] = luma(p01)
                        o1[x0] = luma(p10)
                        o1[x1] = luma(p11)
                        let mean = (p00 + p01 + p10 + p11) * 0.25
                        let meanLuma = 0.2627 * mean.x + 0.6780 * mean.y + 0.0593 * mean.z
                        ou[bx] = Self.chromaCode((mean.z - meanLuma) / 1.8814)
                        ov[bx] = Self.chromaCode((mean.x - meanLuma) / 1.4746)
                    }
                }
            }
        }
    }
}
