import Testing
import DropcutTimeline

/// `PictureLimits`: the sides and the pixel count, at and just past each bound, and no
/// overflow for any side a header can state (up to 65535 in a JPEG or PNG, and beyond).
@Suite struct PictureLimitsTests {
    @Test(arguments: [
        (16384, 6103, true), (16384, 6104, false),      // 99,991,552 and 100,007,936 pixels
        (16385, 1, false), (1, 16385, false), (0, 100, false), (100, 0, false), (-1, 5, false),
        (12000, 1000, true), (10000, 10000, true), (10000, 10001, false),
        (65535, 65535, false), (Int.max, Int.max, false), (Int.min, 1, false),
    ])
    func sidesAndPixelsAreBounded(width: Int, height: Int, allowed: Bool) {
        #expect(PictureLimits.allow(PixelSize(width: width, height: height)) == allowed, "\(width)x\(height)")
    }

    @Test func theDescriptionNamesEveryLimit() {
        #expect(PictureLimits.description == "at most 16384 pixels a side, 100 megapixels and 400 MB decoded")
    }

    /// Issue 28: a refusal says which limit the picture breaks, in words — before, a
    /// picture FFmpeg would not size read "no size (truncated or damaged)".
    @Test(arguments: [
        (16384, 16384, 4, "it is 268.4 megapixels, more than 100"),
        (65000, 65000, 3, "it is 65000 pixels wide, more than 16384"),
        (100, 65000, 3, "it is 65000 pixels tall, more than 16384"),
        (0, 100, 3, "its width is zero"), (100, 0, 3, "its height is zero"), (-5, 100, 3, "its width is -5"),
        (16384, 6103, 8, "it takes 799 MB decoded (8 bytes a pixel), more than 400 MB"),   // a 16-bit RGBA PNG bomb
    ])
    func theProblemNamesTheLimitBroken(width: Int, height: Int, bytesPerPixel: Int, problem: String) {
        #expect(PictureLimits.problem(PixelSize(width: width, height: height), bytesPerPixel: bytesPerPixel) == problem)
    }

    /// Bytes bound 16-bit pictures, never 8-bit ones inside the pixel limit.
    @Test(arguments: [(16384, 6103, 4, true), (10000, 5000, 8, true), (10000, 5001, 8, false), (10000, 10000, 6, false)])
    func decodedBytesAreBounded(width: Int, height: Int, bytesPerPixel: Int, allowed: Bool) {
        #expect((PictureLimits.problem(PixelSize(width: width, height: height), bytesPerPixel: bytesPerPixel) == nil) == allowed)
    }
}
