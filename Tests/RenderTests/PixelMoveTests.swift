import PropertyBased
import Testing
import DropcutTimeline
@testable import DropcutRender

/// The exact pixel moves: every orientation, on planes of every small shape, against
/// the mapping written out pixel by pixel; and the transform classification that picks them.
@Suite struct PixelMoveTests {
    /// Where source pixel (x, y) of a w×h plane lands, straight from the definitions.
    static func expectedPosition(_ o: Orientation, x: Int, y: Int, w: Int, h: Int) -> (Int, Int) {
        switch o {
        case .identity: return (x, y)
        case .mirrorX: return (w - 1 - x, y)
        case .mirrorY: return (x, h - 1 - y)
        case .rotate180: return (w - 1 - x, h - 1 - y)
        case .transpose: return (y, x)
        case .rotate90: return (h - 1 - y, x)
        case .rotate270: return (y, w - 1 - x)
        case .antiTranspose: return (h - 1 - y, w - 1 - x)
        }
    }

    @Test func everyOrientationMovesEveryPixelWhereTheDefinitionSays() async {
        let shapes = zip(Gen.int(in: 1...37), Gen.int(in: 1...29), Gen.int(in: 0...7))
        await propertyCheck(count: 200, input: shapes) { w, h, which in
            let orientation = Orientation.allCases[which]
            let sourceStride = w + 3
            var source = [UInt8](repeating: 0, count: sourceStride * h)
            for y in 0..<h { for x in 0..<w { source[y * sourceStride + x] = UInt8(truncatingIfNeeded: (y * 131 + x * 7) ^ (x >> 2)) } }
            let (ow, oh) = orientation.swapsAxes ? (h, w) : (w, h)
            let destinationStride = ow + 5
            var destination = [UInt8](repeating: 0xEE, count: destinationStride * oh)
            source.withUnsafeBufferPointer { s in
                destination.withUnsafeMutableBufferPointer { d in
                    PlaneOperations.orient(orientation, source: s.baseAddress!, sourceStride: sourceStride, width: w, height: h,
                                           destination: d.baseAddress!, destinationStride: destinationStride)
                }
            }
            var wrong = 0
            for y in 0..<h {
                for x in 0..<w {
                    let (u, v) = Self.expectedPosition(orientation, x: x, y: y, w: w, h: h)
                    if destination[v * destinationStride + u] != source[y * sourceStride + x] { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(orientation) on \(w)x\(h): \(wrong) pixels misplaced")
            // Padding beyond each row stays untouched.
            for v in 0..<oh { #expect(destination[v * destinationStride + ow] == 0xEE) }
        }
    }

    /// Each orientation's inverse puts every pixel of every small shape back where it was
    /// (what a spliced clip's encoded pieces are stored with: turned back from upright).
    @Test(arguments: Orientation.allCases) func theInverseUndoesEachOrientation(_ orientation: Orientation) {
        for (w, h) in [(1, 1), (2, 3), (5, 4), (7, 9)] {
            for x in 0..<w {
                for y in 0..<h {
                    let (u, v) = Self.expectedPosition(orientation, x: x, y: y, w: w, h: h)
                    let (ow, oh) = orientation.swapsAxes ? (h, w) : (w, h)
                    let back = Self.expectedPosition(orientation.inverse, x: u, y: v, w: ow, h: oh)
                    #expect(back == (x, y), "\(orientation) then \(orientation.inverse) on \(w)x\(h)")
                }
            }
        }
        #expect(orientation.inverse.inverse == orientation)
    }

    @Test func quarterTurnsAndMirrorsAreRecognisedFromTheirTransforms() {
        let size = PixelSize(width: 320, height: 240)
        let expected: [Orientation] = [.identity, .rotate90, .rotate180, .rotate270]
        for turns in 0..<4 {
            let t = AffineTransform.orientation(quarterTurns: turns, naturalSize: size)
            #expect(Orientation.of(a: t.a, b: t.b, c: t.c, d: t.d)?.0 == expected[turns])
            // Scaled by 2 then: same orientation, scales 2.
            let scaled = t.concatenating(AffineTransform(scaleX: 2, y: 3))
            let found = Orientation.of(a: scaled.a, b: scaled.b, c: scaled.c, d: scaled.d)
            #expect(found?.0 == expected[turns])
            #expect(found?.scaleX == 2 && found?.scaleY == 3)
        }
        let mirror = AffineTransform(scaleX: -1, y: 1)
        #expect(Orientation.of(a: mirror.a, b: mirror.b, c: mirror.c, d: mirror.d)?.0 == .mirrorX)
        let transpose = AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        #expect(Orientation.of(a: transpose.a, b: transpose.b, c: transpose.c, d: transpose.d)?.0 == .transpose)
        // 45°: not a pixel move.
        let r = 0.5.squareRoot()
        #expect(Orientation.of(a: r, b: r, c: -r, d: r) == nil)
    }

    @Test func blendMixesByOpacityAndCopiesAtFullOpacity() {
        var source: [UInt8] = [200, 100, 0, 255]
        var destination: [UInt8] = [0, 100, 255, 255]
        func run(_ opacity: Double) -> [UInt8] {
            var out = destination
            source.withUnsafeMutableBufferPointer { s in
                out.withUnsafeMutableBufferPointer { d in
                    PlaneOperations.blend(source: s.baseAddress!, sourceStride: 4, destination: d.baseAddress!, destinationStride: 4,
                                          width: 4, height: 1, opacity: opacity)
                }
            }
            return out
        }
        #expect(run(1) == source)
        #expect(run(0) == destination)
        let half = run(0.5)
        for i in 0..<4 {
            let exact = (Double(source[i]) + Double(destination[i])) / 2
            #expect(abs(Double(half[i]) - exact) <= 1, "pixel \(i): \(half[i]) vs \(exact)")
        }
        destination = [10, 10, 10, 10]
        #expect(run(0.25) == [58, 33, 8, 71])
    }
}
