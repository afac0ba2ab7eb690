import Testing
import Timeline

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

    @Test func theDescriptionNamesBothLimits() {
        #expect(PictureLimits.description == "at most 16384 pixels a side and 100 megapixels")
    }
}
