import Foundation
import DropcutMediaIO
import Testing
import DropcutTimeline
@testable import DropcutRender

/// The AVX2 warp kernel (`RenderKernels/WarpRow.c`) against the Swift loop it repeats:
/// the same bytes for every sample — inside the layer, on its anti-aliased rim, where the
/// taps reach past the source and the Swift loop clamps them, and in the tail of a row —
/// for 8- and 16-bit planes, luma and chroma, opaque and translucent layers.
@Suite struct WarpKernelTests {
    /// A deterministic noise plane: every tap weight shows in the result.
    static func noise<Sample: FixedWidthInteger & UnsignedInteger>(_ count: Int, maximum: Int, seed: UInt64) -> [Sample] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Sample(Int(state >> 33) % (maximum + 1))
        }
    }

    /// Warps plane `plane` of a noise source onto a noise canvas, through the kernel or
    /// not, and returns the canvas.
    static func warped<Sample: FixedWidthInteger & UnsignedInteger>(
        _: Sample.Type, transform: AffineTransform, plane: Int, opacity: Double, kernel: Bool
    ) -> [Sample] {
        let maximum = Sample.bitWidth == 8 ? 255 : 1023
        // Odd sizes: rows end in a tail shorter than a block.
        let frame = PixelSize(width: 203, height: 157), canvasSize = PixelSize(width: 230, height: 190)
        let centre = AffineTransform(translationX: -101.5, y: -78.5).concatenating(transform)
            .concatenating(AffineTransform(translationX: 115, y: 95))
        // Built directly rather than by `LayerWarp.make`, which would take a quarter turn
        // or mirror out first: here the map reads the source as it is, so the kernel meets
        // lanes that walk down columns (gathers) and backwards as well as along rows.
        guard let inverse = centre.inverted else { return [] }
        let warp = LayerWarp(crop: PixelRect(size: frame), orientation: .identity, sampledSize: frame, inverse: inverse,
                             edges: Rect(x: 0, y: 0, width: Double(frame.width), height: Double(frame.height)),
                             destination: PixelRect(size: canvasSize))
        let chroma = plane > 0
        let (sw, sh) = chroma ? ((frame.width + 1) / 2, (frame.height + 1) / 2) : (frame.width, frame.height)
        let (cw, ch) = chroma ? (canvasSize.width / 2, canvasSize.height / 2) : (canvasSize.width, canvasSize.height)
        let source: [Sample] = noise(sw * sh, maximum: maximum, seed: 7 + UInt64(plane))
        var canvas: [Sample] = noise(cw * ch, maximum: maximum, seed: 99)
        let map = PlaneWarp(warp, plane: plane, sourceCentred: false, canvasCentred: false)
        source.withUnsafeBufferPointer { s in
            canvas.withUnsafeMutableBufferPointer { d in
                guard let s = s.baseAddress, let d = d.baseAddress else { return }
                PlaneOperations.warp(map, source: s, sourceStride: sw, sourceWidth: sw, sourceHeight: sh,
                                     destination: d, destinationStride: cw, columns: 0..<cw, rows: 0..<ch,
                                     opacity: opacity, maximum: maximum, kernel: kernel)
            }
        }
        return canvas
    }

    static let transforms: [(String, AffineTransform)] = [
        ("10° turn, 1.2× zoom", LayerWarpTests.turn(10, scale: 1.2)),
        ("45° turn", LayerWarpTests.turn(45)),
        ("93° turn, 0.7×", LayerWarpTests.turn(93, scale: 0.7)),
        ("shear", AffineTransform(a: 1, b: 0.2, c: 0.35, d: 0.9, tx: 0.3, ty: -0.2)),
        ("mirrored turn", AffineTransform(a: -0.98, b: 0.17, c: 0.17, d: 0.98, tx: 0, ty: 0)),
    ]

    @Test(arguments: [8, 16], [1.0, 0.6])
    func kernelWritesTheSameBytesAsTheSwiftLoop(bits: Int, opacity: Double) {
        // The machines this project runs on (x86-64 with AVX2); elsewhere there is nothing
        // to compare, and the Swift loop is what runs.
        #if arch(x86_64)
        #expect(PlaneOperations.warpKernelAvailable)
        #endif
        guard PlaneOperations.warpKernelAvailable else { return }
        for (name, transform) in Self.transforms {
            for plane in 0..<3 {
                func compare<Sample: FixedWidthInteger & UnsignedInteger>(_ type: Sample.Type) {
                    let before: [Sample] = Self.noise(plane == 0 ? 230 * 190 : 115 * 95, maximum: bits == 8 ? 255 : 1023, seed: 99)
                    let swift = Self.warped(type, transform: transform, plane: plane, opacity: opacity, kernel: false)
                    let kernel = Self.warped(type, transform: transform, plane: plane, opacity: opacity, kernel: true)
                    let differing = zip(swift, kernel).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(name), plane \(plane), \(bits)-bit, opacity \(opacity): \(differing) of \(swift.count) samples differ")
                    // Not a vacuous comparison: most of the canvas was drawn over.
                    let drawn = zip(before, swift).filter { $0 != $1 }.count
                    #expect(drawn > swift.count / 3, "\(name), plane \(plane): only \(drawn) samples drawn")
                }
                if bits == 8 { compare(UInt8.self) } else { compare(UInt16.self) }
            }
        }
    }
}
