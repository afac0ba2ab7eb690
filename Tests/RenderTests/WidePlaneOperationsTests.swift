import PropertyBased
import Testing
import DropcutTimeline
@testable import DropcutRender

/// The 16-bit plane loops (HLG canvases): every orientation against the mapping written out
/// pixel by pixel, and blending against its formula.
@Suite struct WidePlaneOperationsTests {
    @Test func everyOrientationMovesEveryPixelWhereTheDefinitionSays() async {
        let shapes = zip(Gen.int(in: 1...37), Gen.int(in: 1...29), Gen.int(in: 0...7))
        await propertyCheck(count: 200, input: shapes) { w, h, which in
            let orientation = Orientation.allCases[which]
            let sourceStride = w + 3
            var source = [UInt16](repeating: 0, count: sourceStride * h)
            for y in 0..<h { for x in 0..<w { source[y * sourceStride + x] = UInt16(truncatingIfNeeded: (y * 1031 + x * 7) ^ (x << 9)) } }
            let (ow, oh) = orientation.swapsAxes ? (h, w) : (w, h)
            let destinationStride = ow + 5
            var destination = [UInt16](repeating: 0xEEEE, count: destinationStride * oh)
            source.withUnsafeBufferPointer { s in
                destination.withUnsafeMutableBufferPointer { d in
                    PlaneOperations.orient(orientation, source: s.baseAddress!, sourceStride: sourceStride, width: w, height: h,
                                           destination: d.baseAddress!, destinationStride: destinationStride)
                }
            }
            var wrong = 0
            for y in 0..<h {
                for x in 0..<w {
                    let (u, v) = PixelMoveTests.expectedPosition(orientation, x: x, y: y, w: w, h: h)
                    if destination[v * destinationStride + u] != source[y * sourceStride + x] { wrong += 1 }
                }
            }
            // Nothing written past each row.
            for v in 0..<oh { for u in ow..<destinationStride where destination[v * destinationStride + u] != 0xEEEE { wrong += 1 } }
            #expect(wrong == 0, "\(orientation) \(w)x\(h): \(wrong) samples wrong")
        }
    }

    @Test func blendMixesByOpacityAndCopiesAtFull() {
        let source: [UInt16] = [940, 64, 512, 1023]
        for (opacity, want) in [(1.0, source), (0.0, [100, 100, 100, 100]), (0.5, [520, 82, 306, 562]), (0.25, [310, 91, 203, 331])] {
            var destination = [UInt16](repeating: 100, count: 4)
            source.withUnsafeBufferPointer { s in
                destination.withUnsafeMutableBufferPointer { d in
                    PlaneOperations.blend(source: s.baseAddress!, sourceStride: 4, destination: d.baseAddress!, destinationStride: 4,
                                          width: 4, height: 1, opacity: opacity)
                }
            }
            #expect(destination == want, "opacity \(opacity): \(destination)")
        }
    }
}
