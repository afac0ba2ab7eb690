import Foundation
import DropcutMediaIO
internal import CDropcutRenderKernels
import DropcutTimeline

/// HDR-to-SDR conversion as a 3D lookup table, built once per source colour description
/// from the exact (slow) `HDRToSDRConversion`, so a frame costs a few table reads per
/// 2×2 block instead of `pow`/`exp` per component.
///
/// The table is indexed by the source's non-linear R'G'B' — the smooth part of the
/// conversion (transfer, tone curve, gamut): on Y'CbCr the same function folds over the
/// edges of the colour cube and a table of this size could not follow it — and holds the
/// SDR result as BT.709 Y'CbCr in 8-bit code units, so nothing is converted after the
/// read. The input matrix is linear and done per pixel. The table is read by tetrahedral
/// interpolation (four taps, exact along the grey axis).
///
/// Most 2×2 blocks of a picture are nearly flat, and that is what makes this fast. In
/// 4:2:0 the four pixels of a block share their chroma, so in R'G'B' they lie on one line
/// parallel to the grey axis; inside one tetrahedron the interpolated function is affine,
/// and its slope along that diagonal is simply `c3 − c0` (all three fractions move
/// together, so the tetrahedron does not change). A block whose luma spread is within one
/// grid cell is read once, at its mean, and each pixel's luma is that value plus the slope
/// times its distance from the mean — exact while the pixels share the tetrahedron, and off
/// by the table's own curvature over less than a cell when they straddle a node (textured
/// blocks stay within the table's error: `ToneMapLUTBlockTests`). The output chroma is the
/// value at the mean, which for an affine function is the mean of the four pixels' values,
/// as a 4:2:0 downsample of the converted picture would give. Flat blocks go four at a
/// time, one block per vector lane; blocks with more spread (edges, texture) or reaching
/// past the colour cube are read per pixel.
///
/// On x86-64 CPUs with AVX2, 16-bit samples go through a C kernel (`RenderKernels`'
/// `dropcut_tone_map_row_u16`) eight blocks at a time, repeating this loop's arithmetic
/// operation for operation — every block read at its mean, the textured ones (or those
/// reaching past the cube) queued and read pixel by pixel, eight pixels a lookup — so both
/// give the same bytes (tested). It loads each lane's corners and transposes them in
/// registers and packs the codes in vectors, which Swift's `SIMD4` on baseline x86-64
/// (SSE2) compiles to lane-by-lane shuffles and spills: a 1080p frame costs about 4.7 ms of
/// CPU (11 ms with heavy noise), where the Swift loop takes 6–8 ms.
///
/// Writes 8-bit video-range BT.709 4:2:0 (highlights may reach the super-whites). No
/// allocation after `init`.
final class ToneMapLUT {
    let source: ColorDescription
    let bitDepth: Int
    let gridSize: Int
    /// Whether 16-bit samples go eight blocks at a time through the AVX2 kernel;
    /// on by default where the CPU has it (tests switch it off to compare the two).
    var usesWideKernel = ToneMapLUT.wideKernelAvailable

    /// True when this CPU runs the AVX2 kernel.
    static let wideKernelAvailable = dropcut_tone_map_row_available()
    /// SDR Y'CbCr in 8-bit code units (lane 3 unused) per node, index `(r·n + g)·n + b`.
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
        @Sendable func clean(_ v: Double) -> Double { v.isFinite ? min(max(v, 0), 1.09) : 0 }
        table.withUnsafeMutableBufferPointer { buffer in
            // One plane of red per iteration on every core: a build costs 274,625 exact
            // conversions (a few tenths of a second on one core), paid before the first frame.
            nonisolated(unsafe) let nodes = buffer.baseAddress
            DispatchQueue.concurrentPerform(iterations: n) { r in
                guard let nodes else { return }
                for g in 0..<n {
                    for b in 0..<n {
                        let rgb = conversion.convert(rgb: (Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1)))
                        let (red, green, blue) = (clean(rgb.0), clean(rgb.1), clean(rgb.2))
                        let luma = 0.2126 * red + 0.7152 * green + 0.0722 * blue
                        nodes[(r * n + g) * n + b] = SIMD4(Float(16 + 219 * luma), Float(128 + 224 * (blue - luma) / 1.8556),
                                                           Float(128 + 224 * (red - luma) / 1.5748), 0)
                    }
                }
            }
        }
        self.table = table
    }

    /// Nodes per axis: 65 keeps 95 % of colours within about one 8-bit code of the exact
    /// conversion (33 leaves PQ reference white 3 % low); 4.4 MB.
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

    /// The largest luma spread of a 2×2 block (in grid cells) read once at its mean.
    static let flatSpread: Float = 1

    /// Adding this to a float in 0 ..< 2²² rounds it to an integer (to nearest, ties to
    /// even) held in the low mantissa bits: float → integer without the checked conversion.
    private static let roundingBias: Float = 12_582_912   // 1.5 · 2²³

    /// The table's geometry and memory, read-only: what a lookup needs, outside the
    /// generic loop so the lookup is compiled once and inlined into it.
    private struct Grid: @unchecked Sendable {
        let nodes: UnsafePointer<SIMD4<Float>>
        let n: Int
        let top: Float

        init(nodes: UnsafePointer<SIMD4<Float>>, n: Int) {
            self.nodes = nodes
            self.n = n
            top = Float(n - 1)
        }

        /// The tetrahedron around the point `(r, g, b)` (grid units; clamped to the cube):
        /// the interpolated Y'CbCr there, and the luma's slope along the grey diagonal.
        ///
        /// Written for the code it compiles to: scalar index arithmetic without overflow
        /// checks (the coordinates are clamped first, so the index is within the table),
        /// the tetrahedron chosen by arithmetic on the comparisons instead of branches (a
        /// branch on picture data mispredicts often), vector loads and arithmetic only
        /// for the table's values.
        @inline(__always) func lookup(_ r: Float, _ g: Float, _ b: Float) -> (value: SIMD4<Float>, slope: Float) {
            let bias = ToneMapLUT.roundingBias, biasBits = Int32(bitPattern: bias.bitPattern)
            let xr = Swift.min(Swift.max(r, 0), top), xg = Swift.min(Swift.max(g, 0), top), xb = Swift.min(Swift.max(b, 0), top)
            // The cell's lower node: x − ½ rounded to nearest, kept within 0 ... n − 2, so a
            // coordinate on the top face reads the last cell with fraction 1.
            @inline(__always) func cell(_ x: Float) -> Float { (Swift.min(Swift.max(x - 0.5, 0), top - 1) + bias) - bias }
            let ir = cell(xr), ig = cell(xg), ib = cell(xb)
            let fr = xr - ir, fg = xg - ig, fb = xb - ib
            let strideR = n &* n, strideG = n
            let index = Int(Int32(bitPattern: (ir * Float(strideR) + ig * Float(strideG) + ib + bias).bitPattern) &- biasBits)
            // The path from the cell's lower corner to its upper one goes along the axis of
            // the largest fraction first and the smallest last. Ties go red, green, blue
            // for the largest and blue, green, red for the smallest, so the two are never
            // the same axis; the value is the same whichever tied axis is taken.
            let rg = Int(unsafeBitCast(fr >= fg, to: UInt8.self)), rb = Int(unsafeBitCast(fr >= fb, to: UInt8.self))
            let gb = Int(unsafeBitCast(fg >= fb, to: UInt8.self))
            let redFirst = rg & rb, redLast = (1 &- rg) & (1 &- rb)
            let first = redFirst &* strideR &+ (1 &- redFirst) &* (gb &* strideG &+ (1 &- gb))
            let last = redLast &* strideR &+ (1 &- redLast) &* ((1 &- gb) &* strideG &+ gb)
            let hi = Swift.max(fr, Swift.max(fg, fb)), lo = Swift.min(fr, Swift.min(fg, fb)), mid = fr + fg + fb - hi - lo
            let corner = strideR &+ strideG &+ 1
            let p = nodes + index
            let c0 = p[0], c1 = p[first], c2 = p[corner &- last], c3 = p[corner]
            // Summed in this order in every path (and in the C kernel), so a block reads
            // the same whichever path takes it.
            let value = c0 + hi * (c1 - c0)
            return (value + (mid * (c2 - c1) + lo * (c3 - c2)), c3.x - c0.x)
        }
    }

    // Vector min, max and clamp as compare-and-select: branch-free on every lane. The
    // standard library's `pointwiseMin`/`clamped` are not inlined across modules (a call
    // per use), and per-lane `min`/`max` on scalars became chains of branches.

    /// The lane-by-lane smaller of `a` and `b`.
    @inline(__always) private static func smaller(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        a.replacing(with: b, where: b .< a)
    }

    /// The lane-by-lane larger of `a` and `b`.
    @inline(__always) private static func larger(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        a.replacing(with: b, where: b .> a)
    }

    /// `values` clamped lane by lane to `low ... high`.
    @inline(__always) private static func clamp(_ values: SIMD4<Float>, _ low: Float, _ high: Float) -> SIMD4<Float> {
        smaller(larger(values, SIMD4(repeating: low)), SIMD4(repeating: high))
    }

    /// Codes in `values` rounded, clamped to `low ... high`, as 32-bit integers (the
    /// rounding bias leaves the integer in the low bits).
    @inline(__always) private static func codes(_ values: SIMD4<Float>, _ low: Float, _ high: Float) -> SIMD4<Int32> {
        unsafeBitCast(clamp(values, low, high) + roundingBias, to: SIMD4<Int32>.self) &- Int32(bitPattern: roundingBias.bitPattern)
    }

    /// The conversion loop over 2×2 blocks, for one sample type.
    private func run<Sample: FixedWidthInteger & UnsignedInteger & SIMDScalar>(_: Sample.Type, _ planes: Planes, region: PixelRect) {
        guard let yBase = planes.y, let uBase = planes.u, let vBase = planes.v,
              let outY = planes.outY, let outU = planes.outU, let outV = planes.outV,
              region.width > 0, region.height > 0 else { return }
        let n = gridSize, top = Float(n - 1), flatSpread = Self.flatSpread
        // Input codes → grid units: luma code `c` is at `(c − yOffset) · lumaScale` on every
        // axis; chroma adds a per-block offset.
        let unit = Float(1 << (bitDepth - 8)), maxCode = Float((1 << bitDepth) - 1)
        let yOffset = source.fullRange ? 0 : 16 * unit
        let lumaScale = top * (source.fullRange ? 1 / maxCode : 1 / (219 * unit))
        let cOffset = 128 * unit, cScale = top * (source.fullRange ? 1 / maxCode : 1 / (224 * unit))
        // Y'CbCr → R'G'B' (the source's matrix) in grid units: chroma moves each of R, G, B
        // by its own offset from the luma.
        let (krD, kbD) = HDRToSDRConversion.matrixWeights(source.matrix)
        let kr = Float(krD), kb = Float(kbD), kg = 1 - kr - kb
        let crToR = 2 * (1 - kr) * cScale, cbToB = 2 * (1 - kb) * cScale
        let crToG = -kr * crToR / kg, cbToG = -kb * cbToB / kg
        let width = region.width, height = region.height
        let blocksX = (width + 1) / 2, blocksY = (height + 1) / 2
        let bias = Self.roundingBias, biasBits = Int32(bitPattern: bias.bitPattern)
        let strideR = n * n, strideG = n, corner = strideR + strideG + 1
        let wide = usesWideKernel && Sample.self == UInt16.self
        table.withUnsafeBufferPointer { buffer in
            // Read-only table and planes, each band writing its own rows: shared with the
            // bands below without copies.
            guard let tableBase = buffer.baseAddress else { return }
            let grid = Grid(nodes: tableBase, n: n)
            // The same numbers for the C kernel (the table seen as four floats a node).
            var kernelGrid = dropcut_tone_map_grid(
                nodes: UnsafeRawPointer(tableBase).assumingMemoryBound(to: Float.self), n: Int32(n),
                yOffset: yOffset, lumaScale: lumaScale, cOffset: cOffset,
                crToR: crToR, crToG: crToG, cbToG: cbToG, cbToB: cbToB, flatSpread: flatSpread)
            nonisolated(unsafe) let planes = planes
            nonisolated(unsafe) let (yBase, uBase, vBase) = (yBase, uBase, vBase)
            nonisolated(unsafe) let (outY, outU, outV) = (outY, outU, outV)
            // Bands of block rows on every core: the table is read-only, each band writes
            // its own rows, so the result is the same however the bands are scheduled.
            let bands = min(max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, blocksY / 8))
            withUnsafePointer(to: &kernelGrid) { kernelGrid in
            nonisolated(unsafe) let kernelGrid = kernelGrid
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

                /// One block, `bx`: read once at its mean when nearly flat, else per pixel.
                @inline(__always) func block(_ bx: Int) {
                    let x0 = 2 * bx, x1 = min(2 * bx + 1, width - 1)
                    // The block's four lumas in grid units, and its chroma as an offset
                    // along each of R, G, B.
                    let lumas = (SIMD4<Float>(Float(y0[x0]), Float(y0[x1]), Float(y1[x0]), Float(y1[x1])) - yOffset) * lumaScale
                    let cb = Float(u[bx]) - cOffset, cr = Float(v[bx]) - cOffset
                    let dr = crToR * cr, dg = crToG * cr + cbToG * cb, db = cbToB * cb
                    let low = min(min(lumas.x, lumas.y), min(lumas.z, lumas.w))
                    let high = max(max(lumas.x, lumas.y), max(lumas.z, lumas.w))
                    let lowestOffset = min(dr, min(dg, db)), highestOffset = max(dr, max(dg, db))
                    var luma: SIMD4<Float>, chroma: SIMD4<Float>
                    if high - low <= flatSpread, low + lowestOffset >= 0, high + highestOffset <= top {
                        let mean = (lumas.x + lumas.y + lumas.z + lumas.w) * 0.25   // `fourFlatBlocks`' order
                        let (value, slope) = grid.lookup(mean + dr, mean + dg, mean + db)
                        luma = value.x + slope * (lumas - mean)
                        chroma = value
                    } else {
                        let p0 = grid.lookup(lumas.x + dr, lumas.x + dg, lumas.x + db).value
                        let p1 = grid.lookup(lumas.y + dr, lumas.y + dg, lumas.y + db).value
                        let p2 = grid.lookup(lumas.z + dr, lumas.z + dg, lumas.z + db).value
                        let p3 = grid.lookup(lumas.w + dr, lumas.w + dg, lumas.w + db).value
                        luma = SIMD4(p0.x, p1.x, p2.x, p3.x)
                        chroma = (p0 + p1 + p2 + p3) * 0.25
                    }
                    let lumaCodes = ToneMapLUT.codes(luma, 16, 254), chromaCodes = ToneMapLUT.codes(chroma, 16, 240)
                    o0[x0] = UInt8(truncatingIfNeeded: lumaCodes.x)
                    o0[x1] = UInt8(truncatingIfNeeded: lumaCodes.y)
                    o1[x0] = UInt8(truncatingIfNeeded: lumaCodes.z)
                    o1[x1] = UInt8(truncatingIfNeeded: lumaCodes.w)
                    ou[bx] = UInt8(truncatingIfNeeded: chromaCodes.y)
                    ov[bx] = UInt8(truncatingIfNeeded: chromaCodes.z)
                }

                /// Four blocks from `bx` at once, the lanes of each vector being the blocks,
                /// when all four are nearly flat (the common case); false, having written
                /// nothing, otherwise. The same arithmetic as `block`'s flat case.
                @inline(__always) func fourFlatBlocks(_ bx: Int) -> Bool {
                    let top0 = UnsafeRawPointer(y0 + 2 * bx).loadUnaligned(as: SIMD8<Sample>.self)
                    let top1 = UnsafeRawPointer(y1 + 2 * bx).loadUnaligned(as: SIMD8<Sample>.self)
                    @inline(__always) func gridUnits(_ samples: SIMD4<Sample>) -> SIMD4<Float> {
                        (SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: samples)) - yOffset) * lumaScale
                    }
                    let a = gridUnits(top0.evenHalf), b = gridUnits(top0.oddHalf), c = gridUnits(top1.evenHalf), d = gridUnits(top1.oddHalf)
                    let cb = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(u + bx).loadUnaligned(as: SIMD4<Sample>.self))) - cOffset
                    let cr = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(v + bx).loadUnaligned(as: SIMD4<Sample>.self))) - cOffset
                    let dr = crToR * cr, dg = crToG * cr + cbToG * cb, db = cbToB * cb
                    let low = ToneMapLUT.smaller(ToneMapLUT.smaller(a, b), ToneMapLUT.smaller(c, d))
                    let high = ToneMapLUT.larger(ToneMapLUT.larger(a, b), ToneMapLUT.larger(c, d))
                    let lowestOffset = ToneMapLUT.smaller(dr, ToneMapLUT.smaller(dg, db))
                    let highestOffset = ToneMapLUT.larger(dr, ToneMapLUT.larger(dg, db))
                    guard all((high - low .<= flatSpread) .& (low + lowestOffset .>= 0) .& (high + highestOffset .<= top)) else { return false }
                    // The mean of each block, inside the cube (checked above): its cell,
                    // fractions and tetrahedron, as in `Grid.lookup`.
                    let mean = (a + b + c + d) * 0.25
                    let xr = mean + dr, xg = mean + dg, xb = mean + db
                    @inline(__always) func cell(_ x: SIMD4<Float>) -> SIMD4<Float> { (ToneMapLUT.clamp(x - 0.5, 0, top - 1) + bias) - bias }
                    let ir = cell(xr), ig = cell(xg), ib = cell(xb)
                    let fr = xr - ir, fg = xg - ig, fb = xb - ib
                    let index = unsafeBitCast(ir * Float(strideR) + ig * Float(strideG) + ib + bias, to: SIMD4<Int32>.self) &- biasBits
                    let rg = fr .>= fg, rb = fr .>= fb, gb = fg .>= fb
                    let first = SIMD4<Int32>(repeating: 1).replacing(with: Int32(strideG), where: gb).replacing(with: Int32(strideR), where: rg .& rb)
                    let last = SIMD4<Int32>(repeating: Int32(strideG)).replacing(with: 1, where: gb).replacing(with: Int32(strideR), where: .!rg .& .!rb)
                    let hi = ToneMapLUT.larger(fr, ToneMapLUT.larger(fg, fb)), lo = ToneMapLUT.smaller(fr, ToneMapLUT.smaller(fg, fb))
                    let mid = fr + fg + fb - hi - lo
                    @inline(__always) func interpolate(_ k: Int) -> SIMD4<Float> {
                        let p = grid.nodes + Int(index[k])
                        let c0 = p[0], c1 = p[Int(first[k])], c2 = p[corner &- Int(last[k])], c3 = p[corner]
                        let h: Float = hi[k], m: Float = mid[k], l: Float = lo[k]
                        var value: SIMD4<Float> = c0 + h * (c1 - c0)
                        value += m * (c2 - c1) + l * (c3 - c2)
                        value.w = c3.x - c0.x   // the luma's slope along the diagonal
                        return value
                    }
                    let v0 = interpolate(0), v1 = interpolate(1), v2 = interpolate(2), v3 = interpolate(3)
                    let value = SIMD4(v0.x, v1.x, v2.x, v3.x), slope = SIMD4(v0.w, v1.w, v2.w, v3.w)
                    let ca = ToneMapLUT.codes(value + slope * (a - mean), 16, 254), cbCodes = ToneMapLUT.codes(value + slope * (b - mean), 16, 254)
                    let cc = ToneMapLUT.codes(value + slope * (c - mean), 16, 254), cd = ToneMapLUT.codes(value + slope * (d - mean), 16, 254)
                    let blue = ToneMapLUT.codes(SIMD4(v0.y, v1.y, v2.y, v3.y), 16, 240)
                    let red = ToneMapLUT.codes(SIMD4(v0.z, v1.z, v2.z, v3.z), 16, 240)
                    for k in 0..<4 {
                        o0[2 * (bx + k)] = UInt8(truncatingIfNeeded: ca[k])
                        o0[2 * (bx + k) + 1] = UInt8(truncatingIfNeeded: cbCodes[k])
                        o1[2 * (bx + k)] = UInt8(truncatingIfNeeded: cc[k])
                        o1[2 * (bx + k) + 1] = UInt8(truncatingIfNeeded: cd[k])
                        ou[bx + k] = UInt8(truncatingIfNeeded: blue[k])
                        ov[bx + k] = UInt8(truncatingIfNeeded: red[k])
                    }
                    return true
                }

                /// Blocks `bx ..< bx + 4` in Swift: together when all four are flat, else one by one.
                @inline(__always) func fourBlocks(_ bx: Int) {
                    if !fourFlatBlocks(bx) {
                        for k in 0..<4 { block(bx + k) }
                    }
                }

                var bx = 0
                // Groups of eight blocks through the AVX2 kernel while sixteen whole
                // columns remain (it reads flat and textured blocks alike).
                if wide {
                    let groups = width / 16
                    dropcut_tone_map_row_u16(
                        kernelGrid,
                        UnsafeRawPointer(y0).assumingMemoryBound(to: UInt16.self),
                        UnsafeRawPointer(y1).assumingMemoryBound(to: UInt16.self),
                        UnsafeRawPointer(u).assumingMemoryBound(to: UInt16.self),
                        UnsafeRawPointer(v).assumingMemoryBound(to: UInt16.self),
                        o0, o1, ou, ov, Int32(groups))
                    bx = 8 * groups
                }
                // Groups of four blocks while eight whole columns remain.
                while bx + 4 <= blocksX, 2 * bx + 8 <= width {
                    fourBlocks(bx)
                    bx += 4
                }
                while bx < blocksX {
                    block(bx)
                    bx += 1
                }
            }
            }
            }
        }
    }
}
