import Foundation
import DropcutMediaIO
import Testing
import TestSupport
@testable import DropcutRender
@testable import DropcutTimeline

/// The table HLG outputs bring SDR and PQ pictures in with, against the exact conversion
/// it is built from, on 8-bit SDR and 10-bit PQ frames.
@Suite struct HLGConversionLUTTests {
    static let pq = ColorDescription(primaries: .bt2020, transfer: .pq, matrix: .bt2020)

    /// A fixed pseudo-random walk (a 64-bit LCG), so runs agree.
    struct Walk {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    /// Runs `colours` (video-range codes of `bitDepth` bits, one per 2×2 block) through the
    /// table; the 10-bit codes out.
    static func run(_ table: HLGConversionLUT, _ colours: [(Int, Int, Int)], bitDepth: Int) throws -> [(y: Int, cb: Int, cr: Int)] {
        let frame = try VideoFrame(width: 2 * colours.count, height: 2, pixelFormat: bitDepth > 8 ? .yuv420p10 : .yuv420p)
        func store(_ plane: Int, row: Int, index: Int, _ value: Int) {
            frame.withPlane(plane) { buffer, stride in
                let line = buffer.baseAddress! + row * stride
                if bitDepth > 8 {
                    line.assumingMemoryBound(to: UInt16.self)[index] = UInt16(value)
                } else {
                    line.assumingMemoryBound(to: UInt8.self)[index] = UInt8(value)
                }
            }
        }
        for (i, c) in colours.enumerated() {
            for row in 0..<2 { for dx in 0..<2 { store(0, row: row, index: 2 * i + dx, c.0) } }
            store(1, row: 0, index: i, c.1)
            store(2, row: 0, index: i, c.2)
        }
        let output = try VideoFrame(width: 2 * colours.count, height: 2, pixelFormat: .yuv420p10)
        table.convert(frame, region: PixelRect(size: frame.size), into: output)
        var result: [(y: Int, cb: Int, cr: Int)] = []
        output.withPlane(0) { y, _ in
            output.withPlane(1) { u, _ in
                output.withPlane(2) { v, _ in
                    let y = y.baseAddress!.assumingMemoryBound(to: UInt16.self), u = u.baseAddress!.assumingMemoryBound(to: UInt16.self)
                    let v = v.baseAddress!.assumingMemoryBound(to: UInt16.self)
                    for i in colours.indices { result.append((Int(y[2 * i]), Int(u[i]), Int(v[i]))) }
                }
            }
        }
        return result
    }

    @Test(arguments: [false, true])
    func tableMatchesTheExactConversion(pq: Bool) throws {
        let description = pq ? Self.pq : ColorDescription.bt709
        let bitDepth = pq ? 10 : 8
        let table = pq ? HLGConversionLUT(source: description) : HLGConversionLUT.bt709
        let exact = HLGConversion(source: description)
        var walk = Walk()
        // Colours across the cube, as the source's own video-range codes.
        let unit = Double(1 << (bitDepth - 8))
        var colours: [(Int, Int, Int)] = []
        for _ in 0..<1000 {
            let (r, g, b) = (walk.next(), walk.next(), walk.next())
            let (kr, kb) = HDRToSDRConversion.matrixWeights(description.matrix)
            let y = kr * r + (1 - kr - kb) * g + kb * b
            colours.append((Int(((16 + 219 * y) * unit).rounded()), Int(((128 + 224 * (b - y) / (2 * (1 - kb))) * unit).rounded()),
                            Int(((128 + 224 * (r - y) / (2 * (1 - kr))) * unit).rounded())))
        }
        let out = try Self.run(table, colours, bitDepth: bitDepth)
        var errors: [Int] = [], worst = ""
        for (c, o) in zip(colours, out) {
            let e = exact.convert(y: (Double(c.0) / unit - 16) / 219, cb: (Double(c.1) / unit - 128) / 224, cr: (Double(c.2) / unit - 128) / 224)
            let want = (64 + 876 * e.y, 512 + 896 * e.cb, 512 + 896 * e.cr)
            let error = Int(max(abs(Double(o.y) - want.0), abs(Double(o.cb) - want.1), abs(Double(o.cr) - want.2)).rounded(.up))
            if error > (errors.max() ?? 0) { worst = "\(c) -> \(o), exact \(want)" }
            errors.append(error)
        }
        errors.sort()
        let typical = errors[errors.count * 95 / 100], nearlyAll = errors[errors.count * 99 / 100]
        print("HLGConversionLUT \(pq ? "PQ" : "SDR"): 95 % within \(typical), 99 % within \(nearlyAll), worst \(errors.last ?? 0) 10-bit codes (\(worst))")
        #expect(typical <= 2 && nearlyAll <= 4 && (errors.last ?? 0) <= 12)
    }

    /// Exact along the grey axis (tetrahedral interpolation): SDR white at code 721, HLG
    /// 75 %; PQ 203 cd/m² the same.
    @Test func referenceWhiteLandsAtHLG75Percent() throws {
        let sdr = try Self.run(HLGConversionLUT.bt709, [(235, 128, 128), (16, 128, 128)], bitDepth: 8)
        #expect(sdr[0] == (721, 512, 512) && sdr[1] == (64, 512, 512), "\(sdr)")
        let code = Int((64 + 876 * TransferFunction.pqInverseEOTF(203)).rounded())
        let pq = try Self.run(HLGConversionLUT(source: Self.pq), [(code, 512, 512)], bitDepth: 10)
        #expect(abs(pq[0].y - 721) <= 2 && pq[0].cb == 512 && pq[0].cr == 512, "\(pq)")
        // A single colour, as backgrounds and overlays are converted.
        #expect(HLGConversionLUT.codes(HLGConversionLUT.bt709.convert(red: 1, green: 1, blue: 1)) == (721, 512, 512))
    }
}
