import DropcutMediaIO
import Testing
import DropcutTimeline
@testable import DropcutRender

/// Placing a layer: which part of the frame, which pixel move, where on the canvas, and
/// whether it must be scaled.
@Suite struct LayerPlacementTests {
    static let natural = PixelSize(width: 320, height: 240)

    @Test func portraitPhoneVideoIsAPureQuarterTurnIntoASwappedCanvas() throws {
        let preferred = AffineTransform.orientation(quarterTurns: 1, naturalSize: Self.natural)
        let t = AffineTransform.placing(naturalSize: Self.natural, preferredTransform: preferred,
                                        in: PixelSize(width: 240, height: 320), mode: .fit)
        let p = try #require(try LayerPlacement.place(frameSize: Self.natural, crop: .infinite, transform: t))
        #expect(p.crop == PixelRect(x: 0, y: 0, width: 320, height: 240))
        #expect(p.orientation == .rotate90)
        #expect(p.destination == PixelRect(x: 0, y: 0, width: 240, height: 320))
        #expect(!p.needsScaling)
    }

    @Test func fitLetterboxesAtAnEvenOffsetAndScales() throws {
        let render = PixelSize(width: 1080, height: 1920)
        let t = AffineTransform.placing(naturalSize: Self.natural, preferredTransform: .identity, in: render, mode: .fit)
        let p = try #require(try LayerPlacement.place(frameSize: Self.natural, crop: .infinite, transform: t))
        #expect(p.orientation == .identity)
        #expect(p.destination.width == 1080 && p.destination.height == 810)
        #expect(p.destination.x == 0)
        #expect(p.destination.y % 2 == 0 && abs(p.destination.y - 555) <= 1)
        #expect(p.needsScaling)
    }

    @Test func fillOverflowsTheCanvasSymmetrically() throws {
        let render = PixelSize(width: 240, height: 240)
        let t = AffineTransform.placing(naturalSize: Self.natural, preferredTransform: .identity, in: render, mode: .fill)
        let p = try #require(try LayerPlacement.place(frameSize: Self.natural, crop: .infinite, transform: t))
        #expect(p.destination == PixelRect(x: -40, y: 0, width: 320, height: 240))
        #expect(!p.needsScaling)
    }

    @Test func cropTakesPartOfTheFrameAndMovesItsDestinationWithIt() throws {
        // The right half of the frame, shown where it was.
        let p = try #require(try LayerPlacement.place(frameSize: Self.natural, crop: Rect(x: 160, y: 0, width: 160, height: 240),
                                                      transform: .identity))
        #expect(p.crop == PixelRect(x: 160, y: 0, width: 160, height: 240))
        #expect(p.destination == PixelRect(x: 160, y: 0, width: 160, height: 240))
        // A crop beyond the frame is clipped to it; one entirely outside leaves nothing.
        let clipped = try #require(try LayerPlacement.place(frameSize: Self.natural, crop: Rect(x: -50, y: -50, width: 100, height: 100),
                                                            transform: .identity))
        #expect(clipped.crop == PixelRect(x: 0, y: 0, width: 50, height: 50))
        #expect(try LayerPlacement.place(frameSize: Self.natural, crop: Rect(x: 400, y: 0, width: 10, height: 10), transform: .identity) == nil)
        #expect(try LayerPlacement.place(frameSize: Self.natural, crop: Rect(x: 0, y: 0, width: 0, height: 240), transform: .identity) == nil)
    }

    /// A 640×480 frame of 16:9 pixels is shown 1138×480: the whole stored frame is taken
    /// and scaled to the display size; a portrait turn of it swaps the display size.
    @Test func anamorphicFramesAreScaledToTheirDisplaySize() throws {
        let stored = PixelSize(width: 640, height: 480), shown = PixelSize(width: 1138, height: 480)
        let upright = try #require(try LayerPlacement.place(frameSize: stored, displaySize: shown, crop: .infinite, transform: .identity))
        #expect(upright.crop == PixelRect(size: stored))
        #expect(upright.destination == PixelRect(size: shown))
        #expect(upright.needsScaling)
        let turn = AffineTransform.orientation(quarterTurns: 1, naturalSize: shown)
        let portrait = try #require(try LayerPlacement.place(frameSize: stored, displaySize: shown, crop: .infinite, transform: turn))
        #expect(portrait.orientation == .rotate90 && portrait.orientedSize == PixelSize(width: 480, height: 640))
        #expect(portrait.destination == PixelRect(x: 0, y: 0, width: 480, height: 1138))
    }

    /// A crop in display pixels takes the same part of the stored frame.
    @Test func anamorphicCropsAreTakenInStoredPixels() throws {
        let stored = PixelSize(width: 720, height: 480), shown = PixelSize(width: 654, height: 480)
        // The middle half of the display width.
        let p = try #require(try LayerPlacement.place(frameSize: stored, displaySize: shown,
                                                      crop: Rect(x: 163.5, y: 0, width: 327, height: 480), transform: .identity))
        #expect(abs(p.destination.width - 327) <= 2)
        #expect(abs(p.crop.x - 180) <= 2 && abs(p.crop.maxX - 540) <= 2 && p.crop.x % 2 == 0)
        #expect(p.crop.height == 480)
    }

    @Test func shearIsRefusedWithTheTransformNamed() {
        let shear = AffineTransform(a: 1, b: 0, c: 0.5, d: 1, tx: 0, ty: 0)
        #expect(throws: LayerPlacement.Unsupported.self) {
            try LayerPlacement.place(frameSize: Self.natural, crop: .infinite, transform: shear)
        }
    }

    @Test func backgroundColoursBecomeVideoRangeBT709() {
        #expect(CanvasPlanes.videoRangeYUV(.black) == (16, 128, 128))
        #expect(CanvasPlanes.videoRangeYUV(.white) == (235, 128, 128))
        let red = CanvasPlanes.videoRangeYUV(Color(red: 1, green: 0, blue: 0))
        #expect(red == (63, 102, 240))
    }
}
