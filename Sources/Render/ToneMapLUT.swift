import MediaIO
import Timeline

/// HDR-to-SDR conversion as a 3D lookup table on the source's Y'CbCr codes, built once
/// per source colour description from the exact (slow) `HDRToSDRConversion`, so a frame
/// costs a few table reads per pixel instead of `pow`/`exp` per component.
///
/// The table has `gridSize`³ nodes spread over the whole code range of each component.
/// A 4:2:0 block shares one Cb, Cr pair, so the chroma half of the interpolation weights
/// is computed once per block and reused for its four luma samples; each output luma is
/// a trilinear read (eight taps) of the luma table, each output chroma pair one trilinear
/// read of the chroma table at the block's mean luma. Writes 8-bit video-range BT.709
/// 4:2:0. No allocation after `init`.
final class ToneMapLUT {
    let source: ColorDescription
    let bitDepth: Int
    let gridSize: Int
    /// Output Y' codes (8-bit video range, may reach the super-whites) per node, index
    /// `(k·n + j)·n + i` for luma node i, Cb node j, Cr node k.
    private let luma: [Float]
    /// Output Cb, Cr codes per node, interleaved, same order.
    private let chroma: [Float]

    /// Builds the table for frames described by `source` (an HDR description, resolved)
    /// whose samples have `bitDepth` bits.
    init(source: ColorDescription, bitDepth: Int, gridSize: Int = 33) {
        self.source = source
        self.bitDepth = bitDepth
        self.gridSize = gridSize
        let conversion = HDRToSDRConversion(source: source)
        let n = gridSize, maxCode = Double((1 << bitDepth) - 1), unit = Double(1 << (bitDepth - 8))
        func code(_ node: Int) -> Double { Double(node) * maxCode / Double(n - 1) }
        func normalisedLuma(_ c: Double) -> Double { source.fullRange ? c / maxCode : (c - 16 * unit) / (219 * unit) }
        func normalisedChroma(_ c: Double) -> Double {
            source.fullRange ? (c - 128 * unit) / maxCode : (c - 128 * unit) / (224 * unit)
        }
        func byte(_ value: Double, _ low: Double, _ high: Double, fallback: Double) -> Float {
            value.isFinite ? Float(min(max(value, low), high)) : Float(fallback)
        }
        var luma = [Float](repeating: 16, count: n * n * n)
        var chroma = [Float](repeating: 128, count: 2 * n * n * n)
        for k in 0..<n {
            let cr = normalisedChroma(code(k))
            for j in 0..<n {
                let cb = normalisedChroma(code(j))
                for i in 0..<n {
                    let out = conversion.convert(y: normalisedLuma(code(i)), cb: cb, cr: cr)
                    let index = (k * n + j) * n + i
                    luma[index] = byte(16 + 219 * out.y, 16, 254, fallback: 16)
                    chroma[2 * index] = byte(128 + 224 * out.cb, 16, 240, fallback: 128)
                    chroma[2 * index + 1] = byte(128 + 224 * out.cr, 16, 240, fallback: 128)
                }
            }
        }
        self.luma = luma
        self.chroma = chroma
    }

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
        let n = gridSize, n2 = gridSize * gridSize
        let maxCode = Sample((1 << bitDepth) - 1)
        let step = Float(n - 1) / Float(maxCode)
        let last = n - 2
        let width = region.width, height = region.height
        let blocksX = (width + 1) / 2, blocksY = (height + 1) / 2
        luma.withUnsafeBufferPointer { lumaTable in
            chroma.withUnsafeBufferPointer { chromaTable in
                guard let L = lumaTable.baseAddress, let C = chromaTable.baseAddress else { return }
                /// Grid cell and fraction of a code.
                @inline(__always) func cell(_ code: Sample) -> (Int, Float) {
                    let g = Float(min(code, maxCode)) * step
                    let i = min(Int(g), last)
                    return (i, g - Float(i))
                }
                for by in 0..<blocksY {
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
                        let (j, fj) = cell(u[bx]), (k, fk) = cell(v[bx])
                        let w00 = (1 - fj) * (1 - fk), w10 = fj * (1 - fk), w01 = (1 - fj) * fk, w11 = fj * fk
                        let c00 = (k * n + j) * n, c10 = c00 + n, c01 = c00 + n2, c11 = c01 + n
                        @inline(__always) func lumaAt(_ code: Sample) -> Float {
                            let (i, fi) = cell(code)
                            let a = L[c00 + i] + fi * (L[c00 + i + 1] - L[c00 + i])
                            let b = L[c10 + i] + fi * (L[c10 + i + 1] - L[c10 + i])
                            let c = L[c01 + i] + fi * (L[c01 + i + 1] - L[c01 + i])
                            let d = L[c11 + i] + fi * (L[c11 + i + 1] - L[c11 + i])
                            return w00 * a + w10 * b + w01 * c + w11 * d
                        }
                        let x0 = 2 * bx, x1 = min(2 * bx + 1, width - 1)
                        let s00 = y0[x0], s01 = y0[x1], s10 = y1[x0], s11 = y1[x1]
                        o0[x0] = UInt8(lumaAt(s00) + 0.5)
                        o0[x1] = UInt8(lumaAt(s01) + 0.5)
                        o1[x0] = UInt8(lumaAt(s10) + 0.5)
                        o1[x1] = UInt8(lumaAt(s11) + 0.5)
                        // Chroma at the block's mean luma.
                        let mean = Sample((UInt32(s00) + UInt32(s01) + UInt32(s10) + UInt32(s11) + 2) / 4)
                        let (i, fi) = cell(mean)
                        @inline(__always) func chromaAt(_ component: Int) -> Float {
                            @inline(__always) func along(_ corner: Int) -> Float {
                                let p = 2 * (corner + i) + component
                                return C[p] + fi * (C[p + 2] - C[p])
                            }
                            return w00 * along(c00) + w10 * along(c10) + w01 * along(c01) + w11 * along(c11)
                        }
                        ou[bx] = UInt8(chromaAt(0) + 0.5)
                        ov[bx] = UInt8(chromaAt(1) + 0.5)
                    }
                }
            }
        }
    }
}
