import Foundation
import DropcutMediaIO
import Testing
import TestSupport
@testable import DropcutRender
@testable import DropcutTimeline

/// The lookup table the renderer tone maps with, against the exact conversion it is built
/// from and against the targets: skin within ΔE2000 3 of its SDR original, saturated
/// BT.2020 colours within 5° of their hue, reference white at SDR white.
@Suite struct ToneMapLUTTests {
    static let hlg = ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020)
    static let pq = ColorDescription(primaries: .bt2020, transfer: .pq, matrix: .bt2020, peakLuminance: 1000)

    /// Normalised Y'CbCr → 10-bit video-range codes.
    static func codes(_ c: (y: Double, cb: Double, cr: Double)) -> (UInt16, UInt16, UInt16) {
        func code(_ v: Double, _ offset: Double, _ scale: Double) -> UInt16 { UInt16(min(max((offset + scale * v).rounded(), 0), 1023)) }
        return (code(c.y, 64, 876), code(c.cb, 512, 896), code(c.cr, 512, 896))
    }

    /// Runs `colours` (one per 2×2 block, in a row) through the table; the 8-bit codes out.
    static func run(_ table: ToneMapLUT, _ colours: [(UInt16, UInt16, UInt16)]) throws -> [(y: Double, cb: Double, cr: Double)] {
        let frame = try VideoFrame(width: 2 * colours.count, height: 2, pixelFormat: .yuv420p10)
        frame.withPlane(0) { plane, stride in
            for (i, c) in colours.enumerated() {
                for row in 0..<2 {
                    let line = (plane.baseAddress! + row * stride).assumingMemoryBound(to: UInt16.self)
                    line[2 * i] = c.0
                    line[2 * i + 1] = c.0
                }
            }
        }
        for (plane, pick) in [(1, { (c: (UInt16, UInt16, UInt16)) in c.1 }), (2, { c in c.2 })] {
            frame.withPlane(plane) { buffer, _ in
                let line = buffer.baseAddress!.assumingMemoryBound(to: UInt16.self)
                for (i, c) in colours.enumerated() { line[i] = pick(c) }
            }
        }
        let output = try VideoFrame(width: 2 * colours.count, height: 2)
        table.convert(frame, region: PixelRect(size: frame.size), into: output)
        var result: [(y: Double, cb: Double, cr: Double)] = []
        output.withPlane(0) { y, _ in
            output.withPlane(1) { u, _ in
                output.withPlane(2) { v, _ in
                    for i in colours.indices { result.append((Double(y[2 * i]), Double(u[i]), Double(v[i]))) }
                }
            }
        }
        return result
    }

    /// 8-bit SDR codes → normalised.
    static func normalised(_ c: (y: Double, cb: Double, cr: Double)) -> (y: Double, cb: Double, cr: Double) {
        ((c.y - 16) / 219, (c.cb - 128) / 224, (c.cr - 128) / 224)
    }

    @Test(arguments: [false, true])
    func tableMatchesTheExactConversion(pq: Bool) throws {
        let description = pq ? Self.pq : Self.hlg
        let table = ToneMapLUT(source: description, bitDepth: 10)
        let exact = HDRToSDRConversion(source: description)
        // SDR colours across the cube, placed in HDR by BT.2408.
        var colours: [(UInt16, UInt16, UInt16)] = []
        // A fixed pseudo-random walk over the cube (a 64-bit LCG), so runs agree.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<1000 {
            let rgb = (next(), next(), next())
            colours.append(Self.codes(HDRPatterns.encode(sdr: rgb, as: pq ? .pq : .hlg)))
        }
        let out = try Self.run(table, colours)
        var worstY = 0.0, worstC = 0.0, worst = "", errors: [Double] = []
        for (c, o) in zip(colours, out) {
            let e = exact.convert(y: (Double(c.0) - 64) / 876, cb: (Double(c.1) - 512) / 896, cr: (Double(c.2) - 512) / 896)
            let errorY = abs(o.y - (16 + 219 * e.y))
            let errorC = max(abs(o.cb - (128 + 224 * e.cb)), abs(o.cr - (128 + 224 * e.cr)))
            if max(errorY, errorC) > max(worstY, worstC) {
                worst = "\(c) -> \(o), exact \((16 + 219 * e.y, 128 + 224 * e.cb, 128 + 224 * e.cr))"
            }
            errors.append(max(errorY, errorC))
            worstY = max(worstY, errorY)
            worstC = max(worstC, errorC)
        }
        print("worst: \(worst)")
        errors.sort()
        let typical = errors[errors.count * 95 / 100], nearlyAll = errors[errors.count * 99 / 100]
        print("ToneMapLUT \(pq ? "PQ" : "HLG"): error against the exact conversion: 95 % within \(typical), 99 % within \(nearlyAll), worst Y \(worstY), CbCr \(worstC) (8-bit codes)")
        // Most colours within two codes; the worst are saturated colours at the edge of
        // BT.709, where the gamut mapping starts and the function has a crease the grid
        // smooths over.
        #expect(typical <= 2)
        #expect(nearlyAll <= 6)
        #expect(worstY <= 24 && worstC <= 24)
    }

    @Test(arguments: [false, true])
    func skinAndSaturatedColoursMeetTheTargets(pq: Bool) throws {
        let description = pq ? Self.pq : Self.hlg
        let table = ToneMapLUT(source: description, bitDepth: 10)
        let transfer: HDRPatterns.Transfer = pq ? .pq : .hlg
        let skins = try Self.run(table, HDRPatterns.skinTones.map { Self.codes(HDRPatterns.encode(sdr: $0, as: transfer)) })
        for (skin, out) in zip(HDRPatterns.skinTones, skins) {
            let difference = HDRPatterns.deltaE2000(HDRPatterns.linearBT709(sdrYCbCr: Self.normalised(out)),
                                                    HDRPatterns.linearBT709(sdrRGB: skin))
            print("skin \(skin) through the \(pq ? "PQ" : "HLG") table: ΔE2000 \(difference)")
            #expect(difference <= 3)
        }
        let saturated: [(Double, Double, Double)] = [(0, 1, 0), (0, 0.4, 1), (1, 0, 0), (1, 0.5, 0), (0, 1, 1), (0.8, 0, 1), (2, 0, 0)]
        let outs = try Self.run(table, saturated.map { Self.codes(HDRPatterns.encode(displayBT2020: $0, as: transfer)) })
        for (colour, out) in zip(saturated, outs) {
            let hueIn = Oklab(linearBT709: HDRPatterns.bt2020ToBT709(colour)).hue
            let hueOut = Oklab(linearBT709: HDRPatterns.linearBT709(sdrYCbCr: Self.normalised(out))).hue
            let shift = abs((hueOut - hueIn + 540).truncatingRemainder(dividingBy: 360) - 180)
            print("BT.2020 \(colour) through the \(pq ? "PQ" : "HLG") table: hue \(hueIn) -> \(hueOut)")
            #expect(shift <= 5)
        }
        // Reference white (HLG 75 %, PQ 203 cd/m²) at SDR white within 2 %.
        let white = try Self.run(table, [Self.codes(HDRPatterns.encode(sdr: (1, 1, 1), as: transfer))])[0]
        #expect(white.y >= 235 - 4.4 && white.y <= 235 + 4.4, "reference white at \(white)")
    }
}

/// The fast paths of the table's loop — nearly flat 2×2 blocks read once at their mean,
/// four blocks at a time — against the exact conversion of every pixel, on blocks whose
/// four lumas differ (as in real pictures), not only on flat ones.
@Suite struct ToneMapLUTBlockTests {
    @Test(arguments: [false, true])
    func textureWithinBlocksStaysAsAccurateAsFlatBlocks(pq: Bool) throws {
        let description = pq ? ToneMapLUTTests.pq : ToneMapLUTTests.hlg
        let table = ToneMapLUT(source: description, bitDepth: 10)
        let exact = HDRToSDRConversion(source: description)
        let width = 64, height = 32
        let frame = try VideoFrame(width: width, height: height, pixelFormat: .yuv420p10)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        // Per block: an SDR colour placed in HDR; per pixel: its luma moved by up to ±8
        // codes (flat blocks, blocks straddling a table node, and some spanning two cells).
        var lumas = [[UInt16]](repeating: [UInt16](repeating: 0, count: width), count: height)
        var chroma = [[(UInt16, UInt16)]](repeating: [(UInt16, UInt16)](repeating: (0, 0), count: width / 2), count: height / 2)
        for by in 0..<height / 2 {
            for bx in 0..<width / 2 {
                let c = ToneMapLUTTests.codes(HDRPatterns.encode(sdr: (next(), next(), next()), as: pq ? .pq : .hlg))
                chroma[by][bx] = (c.1, c.2)
                let spread = [0, 2, 8, 24][(bx + by) % 4]
                for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    let moved = Int(c.0) + Int((next() * Double(2 * spread + 1)).rounded(.down)) - spread
                    lumas[2 * by + dy][2 * bx + dx] = UInt16(min(max(moved, 64), 940))
                }
            }
        }
        frame.withPlane(0) { plane, stride in
            for y in 0..<height {
                let line = (plane.baseAddress! + y * stride).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width { line[x] = lumas[y][x] }
            }
        }
        for plane in 1...2 {
            frame.withPlane(plane) { buffer, stride in
                for y in 0..<height / 2 {
                    let line = (buffer.baseAddress! + y * stride).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width / 2 { line[x] = plane == 1 ? chroma[y][x].0 : chroma[y][x].1 }
                }
            }
        }
        let output = try VideoFrame(width: width, height: height)
        table.convert(frame, region: PixelRect(size: frame.size), into: output)
        var lumaErrors: [Double] = [], chromaErrors: [Double] = []
        output.withPlane(0) { oy, oyStride in
            output.withPlane(1) { ou, ouStride in
                output.withPlane(2) { ov, ovStride in
                    for by in 0..<height / 2 {
                        for bx in 0..<width / 2 {
                            let (cb, cr) = chroma[by][bx]
                            var meanCb = 0.0, meanCr = 0.0
                            for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                                let y = 2 * by + dy, x = 2 * bx + dx
                                let e = exact.convert(y: (Double(lumas[y][x]) - 64) / 876, cb: (Double(cb) - 512) / 896,
                                                      cr: (Double(cr) - 512) / 896)
                                lumaErrors.append(abs(Double(oy[y * oyStride + x]) - min(16 + 219 * e.y, 254)))
                                meanCb += 0.25 * (128 + 224 * e.cb)
                                meanCr += 0.25 * (128 + 224 * e.cr)
                            }
                            chromaErrors.append(max(abs(Double(ou[by * ouStride + bx]) - meanCb), abs(Double(ov[by * ovStride + bx]) - meanCr)))
                        }
                    }
                }
            }
        }
        lumaErrors.sort()
        chromaErrors.sort()
        func percentile(_ errors: [Double], _ p: Int) -> Double { errors[errors.count * p / 100] }
        print("ToneMapLUT \(pq ? "PQ" : "HLG") textured blocks: luma 95 % within \(percentile(lumaErrors, 95)), 99 % within \(percentile(lumaErrors, 99)); chroma 95 % within \(percentile(chromaErrors, 95)), 99 % within \(percentile(chromaErrors, 99))")
        // The same bounds as the table against the exact conversion on flat blocks.
        #expect(percentile(lumaErrors, 95) <= 2 && percentile(chromaErrors, 95) <= 2)
        #expect(percentile(lumaErrors, 99) <= 6 && percentile(chromaErrors, 99) <= 6)
    }
}

/// The AVX2 kernel (`RenderKernels`) against the Swift loop it repeats: the same bytes for
/// every block — flat, textured, reaching past the colour cube, and the columns left over
/// at the right edge — on the CPUs that have it.
@Suite struct ToneMapLUTKernelTests {
    @Test(arguments: [false, true])
    func wideKernelWritesTheSameBytesAsTheSwiftLoop(pq: Bool) throws {
        // The machines this project runs on (x86-64 with AVX2); elsewhere there is nothing
        // to compare, and the Swift loop is what runs.
        #if arch(x86_64)
        #expect(ToneMapLUT.wideKernelAvailable)
        #endif
        guard ToneMapLUT.wideKernelAvailable else { return }
        let description = pq ? ToneMapLUTTests.pq : ToneMapLUTTests.hlg
        let table = ToneMapLUT(source: description, bitDepth: 10)
        // 150 × 38: nine groups of eight blocks a row, three blocks left over, an odd
        // region offset below.
        let width = 150, height = 38
        let frame = try VideoFrame(width: width, height: height, pixelFormat: .yuv420p10)
        var state: UInt64 = 0x5851_F42D_4C95_7F2D
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % bound
        }
        // Per block: a base colour anywhere in the 10-bit code space (video range and past
        // it, so some blocks reach outside the cube), and a luma spread from none to wide.
        var blocks: [(y: Int, cb: Int, cr: Int, spread: Int)] = []
        for _ in 0..<(width / 2) * (height / 2) {
            blocks.append((next(1024), next(1024), next(1024), [0, 0, 3, 12, 40][next(5)]))
        }
        frame.withPlane(0) { plane, stride in
            for y in 0..<height {
                let line = (plane.baseAddress! + y * stride).assumingMemoryBound(to: UInt16.self)
                for x in 0..<width {
                    let block = blocks[(y / 2) * (width / 2) + x / 2]
                    line[x] = UInt16(min(max(block.y + next(2 * block.spread + 1) - block.spread, 0), 1023))
                }
            }
        }
        for plane in 1...2 {
            frame.withPlane(plane) { buffer, stride in
                for y in 0..<height / 2 {
                    let line = (buffer.baseAddress! + y * stride).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width / 2 { line[x] = UInt16(plane == 1 ? blocks[y * (width / 2) + x].cb : blocks[y * (width / 2) + x].cr) }
                }
            }
        }
        func convert(wide: Bool, region: PixelRect) throws -> [[UInt8]] {
            table.usesWideKernel = wide
            let output = try VideoFrame(width: region.width, height: region.height)
            table.convert(frame, region: region, into: output)
            return (0..<3).map { plane in
                output.withPlane(plane) { buffer, stride in
                    let rows = plane == 0 ? region.height : (region.height + 1) / 2
                    let columns = plane == 0 ? region.width : (region.width + 1) / 2
                    return (0..<rows).flatMap { row in (0..<columns).map { buffer[row * stride + $0] } }
                }
            }
        }
        for region in [PixelRect(size: frame.size), PixelRect(x: 2, y: 4, width: 132, height: 30)] {
            let swift = try convert(wide: false, region: region), kernel = try convert(wide: true, region: region)
            for plane in 0..<3 {
                let differing = zip(swift[plane], kernel[plane]).filter { $0 != $1 }.count
                #expect(differing == 0, "plane \(plane) of \(region): \(differing) of \(swift[plane].count) samples differ")
            }
            // Not a vacuous comparison: the picture has flat and textured blocks, the
            // output is not all one value.
            #expect(Set(swift[0]).count > 100)
        }
    }
}
