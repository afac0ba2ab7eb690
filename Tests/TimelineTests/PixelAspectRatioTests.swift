import PropertyBased
import Testing
@testable import DropcutTimeline

/// A track's display size from its stored size and pixel shape.
@Suite struct PixelAspectRatioTests {
    @Test func knownFormatsShowAtTheirDisplaySizes() throws {
        let wide = try #require(PixelAspectRatio(horizontalSpacing: 16, verticalSpacing: 9))
        #expect(wide.displaySize(of: PixelSize(width: 640, height: 480)) == PixelSize(width: 1138, height: 480))
        let dv = try #require(PixelAspectRatio(horizontalSpacing: 10, verticalSpacing: 11))
        #expect(dv.displaySize(of: PixelSize(width: 720, height: 480)) == PixelSize(width: 654, height: 480))
        let pal = try #require(PixelAspectRatio(horizontalSpacing: 64, verticalSpacing: 45))
        #expect(pal.displaySize(of: PixelSize(width: 720, height: 576)) == PixelSize(width: 1024, height: 576))
        #expect(PixelAspectRatio.square.displaySize(of: PixelSize(width: 321, height: 241)) == PixelSize(width: 321, height: 241))
        // What ffmpeg's scale leaves on a 318x178 picture made 317x177: shown as stored.
        let rounding = try #require(PixelAspectRatio(horizontalSpacing: 56286, verticalSpacing: 56109))
        #expect(!rounding.isSquare && rounding.isEffectivelySquare)
        #expect(rounding.displaySize(of: PixelSize(width: 317, height: 177)) == PixelSize(width: 317, height: 177))
    }

    @Test func unknownAndImplausibleRatiosAreRefused() {
        #expect(PixelAspectRatio(horizontalSpacing: 0, verticalSpacing: 1) == nil)     // FFmpeg's "unknown"
        #expect(PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 0) == nil)
        #expect(PixelAspectRatio(horizontalSpacing: -4, verticalSpacing: 3) == nil)
        #expect(PixelAspectRatio(horizontalSpacing: 65535, verticalSpacing: 1) == nil)
        #expect(PixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 9) == nil)
        #expect(PixelAspectRatio(horizontalSpacing: 32, verticalSpacing: 18) == PixelAspectRatio(horizontalSpacing: 16, verticalSpacing: 9))
        #expect(PixelAspectRatio(horizontalSpacing: 7, verticalSpacing: 7)?.isSquare == true)
    }

    /// The display size keeps the height, and its width is the stored width times the
    /// ratio to within one pixel, even, at least 2: the shown aspect is the source's.
    @Test func displaySizeKeepsTheShownAspect() async {
        let input = zip(Gen.int(in: 1...64), Gen.int(in: 1...64), Gen.int(in: 1...8192), Gen.int(in: 1...8192))
        await propertyCheck(count: 1000, input: input) { h, v, width, height in
            guard let aspect = PixelAspectRatio(horizontalSpacing: h, verticalSpacing: v) else {
                #expect(!PixelAspectRatio.plausibleRange.contains(Double(h) / Double(v)))
                return
            }
            let shown = aspect.displaySize(of: PixelSize(width: width, height: height))
            #expect(shown.height == height)
            if aspect.isEffectivelySquare {
                #expect(shown.width == width)
            } else {
                #expect(shown.width % 2 == 0 && shown.width >= 2)
                #expect(abs(Double(shown.width) - Double(width) * Double(h) / Double(v)) <= 1.000001 || shown.width == 2)
            }
        }
    }
}
