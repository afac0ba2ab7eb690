import Foundation
import DropcutRender
import Testing

/// `best`'s score on made-up luma planes: sharp beats blurred, black and white score
/// nothing, a flat or low-contrast picture scores low.
@Suite struct PictureScoreTests {
    static func score(_ width: Int, _ height: Int, _ luma: (Int, Int) -> Int) -> PictureScore {
        var plane = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { plane[y * width + x] = UInt8(clamping: luma(x, y)) } }
        return plane.withUnsafeBytes { PictureScore(luma: $0, stride: width, width: width, height: height, bytesPerSample: 1) }
    }

    /// A checkerboard of 8-pixel squares, and the same with soft edges.
    static func checker(_ x: Int, _ y: Int) -> Int { ((x / 8 + y / 8) % 2 == 0) ? 40 : 210 }
    static func soft(_ x: Int, _ y: Int) -> Int {
        let fx = Double(x % 16) / 16, fy = Double(y % 16) / 16
        let wave: Double = sin(fx * 2 * Double.pi) * sin(fy * 2 * Double.pi)
        return Int(125 + 85 * wave)
    }

    @Test func sharpBeatsBlurred() {
        let sharp = Self.score(320, 240, Self.checker)
        let blurred = Self.score(320, 240, Self.soft)
        #expect(sharp.value > 10 * blurred.value, "sharp \(sharp), blurred \(blurred)")
        #expect(sharp.exposure == 1 && sharp.contrast == 1)
    }

    @Test func blackWhiteAndFlatScoreNothing() {
        #expect(Self.score(64, 64) { _, _ in 16 }.value == 0)
        #expect(Self.score(64, 64) { _, _ in 240 }.value == 0)
        // Sharp edges, but a picture almost black: exposure takes it down.
        let dark = Self.score(64, 64) { x, y in Self.checker(x, y) / 10 }
        #expect(dark.exposure == 0 && dark.value == 0)
        // A faded frame: the same edges at a tenth of the contrast.
        let faded = Self.score(64, 64) { x, y in 120 + (Self.checker(x, y) - 125) / 10 }
        #expect(faded.contrast < 0.3 && faded.value < Self.score(64, 64, Self.checker).value / 100)
    }

    @Test func tenBitSamplesAreTakenDownToEight() {
        let width = 64, height = 48
        var plane = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { plane[y * width + x] = UInt16(Self.checker(x, y) * 4) } }
        let ten = plane.withUnsafeBytes { PictureScore(luma: $0, stride: width * 2, width: width, height: height, bytesPerSample: 2) }
        let eight = Self.score(width, height, Self.checker)
        #expect(ten == eight)
    }

    @Test func tinyPicturesScoreZero() {
        #expect(Self.score(2, 2) { _, _ in 128 }.value == 0)
    }
}
