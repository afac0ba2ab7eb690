import Foundation
import Logging
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// Core Animation's group opacity: a translucent group is its children flattened first,
/// then faded — where children overlap, the lower one does not show through the upper —
/// and groups nest, each child's place, turn, scale and opacity composed with every group
/// around it.
@Suite struct GroupOpacityTests {
    /// 8-bit BT.709 video-range codes of an sRGB colour (0...255 a channel), as the raster
    /// makes them: Y', Cb, Cr.
    static func codes(red: Double, green: Double, blue: Double) -> (y: Double, cb: Double, cr: Double) {
        let r = red / 255, g = green / 255, b = blue / 255
        let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
        return (16 + 219 * l, 128 + 224 * (b - l) / 1.8556, 128 + 224 * (r - l) / 1.5748)
    }

    /// `top` at `alpha` over `bottom`.
    static func over(_ top: (y: Double, cb: Double, cr: Double), _ alpha: Double,
                     _ bottom: (y: Double, cb: Double, cr: Double)) -> (y: Double, cb: Double, cr: Double) {
        (top.y * alpha + bottom.y * (1 - alpha), top.cb * alpha + bottom.cb * (1 - alpha), top.cr * alpha + bottom.cr * (1 - alpha))
    }

    static let black = (y: 16.0, cb: 128.0, cr: 128.0)
    static let red = codes(red: 255, green: 0, blue: 0), blue = codes(red: 0, green: 0, blue: 255)

    /// A solid `color` PNG of `size` (ffmpeg's lavfi colour source, RGBA).
    static func square(_ dir: TemporaryDirectory, _ color: String, size: String = "40x40") throws -> String {
        let path = dir.file("\(color)-\(size).png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=\(color):s=\(size)", "-frames:v", "1", "-pix_fmt", "rgba", path])
        return path
    }

    /// A 60x60 group centred on a 320x240 canvas at `opacity`: a blue 40x40 square at its
    /// top-left, a red one over it at its bottom-right. On the canvas blue covers
    /// [130, 170) × [90, 130), red [150, 190) × [110, 150); they overlap in [150, 170) × [110, 130).
    static func redOverBlue(_ dir: TemporaryDirectory, opacity: Double) throws -> OverlayLayer {
        let range = TimeRange(start: 0, duration: 10)
        let children = [OverlayLayer(content: .image(path: try square(dir, "blue")), anchor: .topLeft, margin: 0, timeRange: range),
                        OverlayLayer(content: .image(path: try square(dir, "red")), anchor: .bottomRight, margin: 0, timeRange: range)]
        var group = OverlayLayer(content: .group(children, size: Size(width: 60, height: 60)), anchor: .center, margin: 0, timeRange: range)
        try group.opacity.set(opacity, at: 0)
        return group
    }

    /// A black 320x240 canvas (8-bit, or 10-bit HLG with `wide`) with `layers` drawn at
    /// `time` by `renderer` (a new one when nil); its planes as numbers.
    static func draw(_ layers: [OverlayLayer], wide: Bool = false, at time: MediaTime = 1,
                     renderer: OverlayRenderer? = nil) throws -> (y: [Double], cb: [Double], cr: [Double]) {
        let canvas = try VideoFrame(width: 320, height: 240, pixelFormat: wide ? .yuv420p10 : .yuv420p)
        var planes: [[Double]] = []
        for plane in 0..<3 {
            let rows = plane == 0 ? 240 : 120, columns = plane == 0 ? 320 : 160
            let value = plane == 0 ? (wide ? 64 : 16) : (wide ? 512 : 128)
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns {
                    if wide { bytes.storeBytes(of: UInt16(value), toByteOffset: row * stride + 2 * column, as: UInt16.self) } else { bytes[row * stride + column] = UInt8(value) }
                } }
            }
        }
        let drawing = try renderer ?? OverlayRenderer(layers: layers, renderSize: PixelSize(width: 320, height: 240), dynamicRange: wide ? .hlg : .sdr)
        try drawing.draw(at: time, into: canvas)
        for plane in 0..<3 {
            let rows = plane == 0 ? 240 : 120, columns = plane == 0 ? 320 : 160
            var values = [Double](repeating: 0, count: rows * columns)
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns {
                    values[row * columns + column] = wide ? Double(bytes.load(fromByteOffset: row * stride + 2 * column, as: UInt16.self))
                        : Double(bytes[row * stride + column])
                } }
            }
            planes.append(values)
        }
        return (planes[0], planes[1], planes[2])
    }

    /// The codes at canvas pixel (`x`, `y`): its luma and its chroma site's.
    static func pixel(_ planes: (y: [Double], cb: [Double], cr: [Double]), _ x: Int, _ y: Int) -> (y: Double, cb: Double, cr: Double) {
        (planes.y[y * 320 + x], planes.cb[(y / 2) * 160 + x / 2], planes.cr[(y / 2) * 160 + x / 2])
    }

    static func near(_ a: (y: Double, cb: Double, cr: Double), _ b: (y: Double, cb: Double, cr: Double), within codes: Double) -> Bool {
        abs(a.y - b.y) <= codes && abs(a.cb - b.cb) <= codes && abs(a.cr - b.cr) <= codes
    }

    /// Red over blue in a group at 0.5 over black: where they overlap, red at 50 % over
    /// black — not red at 50 % over blue at 50 % over black, which each child faded on its
    /// own would give (and the old renderer drew); elsewhere each square at 50 %.
    @Test func overlappingChildrenFadeAsOnePicture() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let drawn = try Self.draw([try Self.redOverBlue(dir, opacity: 0.5)])
        let flattened = Self.over(Self.red, 0.5, Self.black)
        let compounded = Self.over(Self.red, 0.5, Self.over(Self.blue, 0.5, Self.black))
        let overlap = Self.pixel(drawn, 160, 120)
        #expect(Self.near(overlap, flattened, within: 2), "overlap \(overlap), red at 50 % over black \(flattened)")
        #expect(abs(overlap.cb - compounded.cb) > 20, "blue shows through: \(overlap) vs compounded \(compounded)")
        let blueOnly = Self.pixel(drawn, 140, 100), redOnly = Self.pixel(drawn, 180, 140)
        #expect(Self.near(blueOnly, Self.over(Self.blue, 0.5, Self.black), within: 2), "blue alone \(blueOnly)")
        #expect(Self.near(redOnly, Self.over(Self.red, 0.5, Self.black), within: 2), "red alone \(redOnly)")
        #expect(Self.pixel(drawn, 200, 100) == Self.black && Self.pixel(drawn, 120, 160) == Self.black)
    }

    /// Past the offscreen budget a translucent group is drawn without its picture: each
    /// child at the group's opacity, the blue showing through the red where they overlap,
    /// and nothing allocated. Within it (the default), the same group is flattened.
    @Test func pastTheOffscreenBudgetAGroupFadesChildByChild() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let group = try Self.redOverBlue(dir, opacity: 0.5)
        let size = PixelSize(width: 320, height: 240)
        // The group's box (60x60, even-aligned) needs 60·60·8 + 30·30·12 bytes.
        let needed = OverlayRaster.offscreenBytes(width: 60, height: 60)
        #expect(needed == 39_600)
        let tight = try OverlayRenderer(layers: [group], renderSize: size, offscreenBudget: needed - 1)
        let drawn = try Self.draw([group], renderer: tight)
        let compounded = Self.over(Self.red, 0.5, Self.over(Self.blue, 0.5, Self.black))
        #expect(Self.near(Self.pixel(drawn, 160, 120), compounded, within: 2), "\(Self.pixel(drawn, 160, 120)) vs \(compounded)")
        #expect(tight.offscreenCapacities.isEmpty, "\(tight.offscreenCapacities)")
        let enough = try OverlayRenderer(layers: [group], renderSize: size, offscreenBudget: needed)
        let flattened = try Self.draw([group], renderer: enough)
        #expect(Self.near(Self.pixel(flattened, 160, 120), Self.over(Self.red, 0.5, Self.black), within: 2))
        #expect(enough.offscreenCapacities.count == 1)
    }

    /// A group at opacity 1 inside a group at 0.5: the inner one's overlapping children are
    /// still flattened first (the outer group's fade reaches them unflattened otherwise).
    @Test func anOuterFadeFlattensTheGroupWhereTheOverlapIs() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let inner = try Self.redOverBlue(dir, opacity: 1)
        var outer = OverlayLayer(content: .group([inner], size: Size(width: 320, height: 240)), anchor: .center, margin: 0, timeRange: inner.timeRange)
        try outer.opacity.set(0.5, at: 0)
        let drawn = try Self.draw([outer])
        let overlap = Self.pixel(drawn, 160, 120)
        #expect(Self.near(overlap, Self.over(Self.red, 0.5, Self.black), within: 2), "\(overlap)")
        #expect(Self.near(Self.pixel(drawn, 140, 100), Self.over(Self.blue, 0.5, Self.black), within: 2))
    }

    /// On a 10-bit HLG canvas too: the overlap is what red alone in the group draws there.
    @Test func groupsFlattenOnTenBitCanvases() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let both = try Self.draw([try Self.redOverBlue(dir, opacity: 0.5)], wide: true)
        var redAlone = try Self.redOverBlue(dir, opacity: 0.5)
        if case let .group(children, size) = redAlone.content { redAlone.content = .group([children[1]], size: size) }
        let reference = try Self.draw([redAlone], wide: true)
        let overlap = Self.pixel(both, 160, 120), expected = Self.pixel(reference, 160, 120)
        #expect(Self.near(overlap, expected, within: 1) && expected.y > 64, "\(overlap) vs \(expected)")
        #expect(abs(Self.pixel(both, 140, 100).cb - 512) > 50, "blue where it is alone")
    }

    /// Opacity 1, or children apart, or a single child: each child blended on its own,
    /// with no offscreen picture; a translucent group with overlapping children keeps one
    /// picture (its planes grown once) from frame to frame.
    @Test func theOffscreenPictureIsMadeOnlyWhenNeededAndKept() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let size = PixelSize(width: 320, height: 240)
        let opaque = try OverlayRenderer(layers: [try Self.redOverBlue(dir, opacity: 1)], renderSize: size)
        _ = try Self.draw([], renderer: opaque)
        #expect(opaque.offscreenCapacities.isEmpty)
        let range = TimeRange(start: 0, duration: 10)
        let apart = [OverlayLayer(content: .image(path: try Self.square(dir, "blue")), anchor: .topLeft, margin: 0, timeRange: range),
                     OverlayLayer(content: .image(path: try Self.square(dir, "red")), anchor: .bottomRight, margin: 0, timeRange: range)]
        var spread = OverlayLayer(content: .group(apart, size: Size(width: 200, height: 100)), anchor: .center, margin: 0, timeRange: range)
        try spread.opacity.set(0.5, at: 0)
        let separate = try OverlayRenderer(layers: [spread], renderSize: size)
        _ = try Self.draw([], renderer: separate)
        #expect(separate.offscreenCapacities.isEmpty)

        // Moving about: the picture follows the group, the planes stay.
        var moving = try Self.redOverBlue(dir, opacity: 0.5)
        moving.animation.position = try KeyframeAnimation(keyframes: [.init(time: 0, value: Point(x: 0, y: 0)), .init(time: 4, value: Point(x: 1, y: 1))])
        let renderer = try OverlayRenderer(layers: [moving], renderSize: size)
        _ = try Self.draw([], at: 0, renderer: renderer)
        let first = renderer.offscreenCapacities
        #expect(first.count == 1 && first[0] >= 60 * 60)
        for step in 1...8 {
            let drawn = try Self.draw([], at: MediaTime(value: Int64(step), timescale: 2), renderer: renderer)
            #expect(renderer.offscreenCapacities == first)
            // The overlap's middle: the blue square's bottom-right corner region, red over black.
            let origin = (x: 260.0 * Double(step) / 8, y: 180.0 * Double(step) / 8)
            let x = Int(origin.x) + 30, y = Int(origin.y) + 30
            #expect(Self.near(Self.pixel(drawn, x, y), Self.over(Self.red, 0.5, Self.black), within: 2), "step \(step)")
        }
    }

    /// Group A (top-left, 20 px in, scale 2) holds group B (10 px into A's box, turned
    /// 90°) holding a 20x10 image, white on its left half and grey on its right: the
    /// image lands where the composed transforms put it, and the opacities (0.5 × 0.5)
    /// multiply.
    ///
    /// By hand: B's box is 40x20 at (10, 10) in A's, so the image's centre is B's centre
    /// (30, 20) in A's box; turned a quarter clockwise it spans [25, 35] × [10, 30] there,
    /// its left (white) half on top. A's 100x60 box at scale 2 with its top-left kept 20 px
    /// in maps (x, y) to (20 + 2x, 20 + 2y): the image covers [70, 90] × [40, 80] on the
    /// canvas, white over [40, 60], grey over [60, 80].
    @Test func nestedGroupsComposeTheirTransformsAndOpacities() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let image = dir.file("halves.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=20x10,drawbox=x=10:y=0:w=10:h=10:c=gray:t=fill",
                                          "-frames:v", "1", "-pix_fmt", "rgba", image])
        let range = TimeRange(start: 0, duration: 10)
        let picture = OverlayLayer(content: .image(path: image), anchor: .center, margin: 0, timeRange: range)
        var b = OverlayLayer(content: .group([picture], size: Size(width: 40, height: 20)), anchor: .topLeft, margin: 10, timeRange: range)
        b.rotation = 90
        try b.opacity.set(0.5, at: 0)
        var a = OverlayLayer(content: .group([b], size: Size(width: 100, height: 60)), anchor: .topLeft, margin: 0, timeRange: range)
        // Position (0, 0) within 20 px margins: top-left at (20, 20), whatever the scale.
        a.margin = 20
        try a.scale.set(2, at: 0)
        try a.opacity.set(0.5, at: 0)
        let drawn = try Self.draw([a])
        let white = Self.codes(red: 255, green: 255, blue: 255)
        // Coverage of the image in each pixel at 25 %, judged on its luma.
        func coverage(_ x: Int, _ y: Int) -> Double { (drawn.y[y * 320 + x] - 16) / (0.25 * (white.y - 16)) }
        var top = Int.max, bottom = Int.min, left = Int.max, right = Int.min
        for y in 0..<240 { for x in 0..<320 where coverage(x, y) > 0.3 {
            top = min(top, y); bottom = max(bottom, y + 1); left = min(left, x); right = max(right, x + 1)
        } }
        #expect(abs(left - 70) <= 1 && abs(right - 90) <= 1 && abs(top - 40) <= 1 && abs(bottom - 80) <= 1,
                "drawn over [\(left), \(right)] × [\(top), \(bottom)], expected [70, 90] × [40, 80]")
        // 0.5 × 0.5: white at 25 % over black in the top half, grey at 25 % in the bottom half.
        let upper = Self.pixel(drawn, 80, 50), lower = Self.pixel(drawn, 80, 70)
        #expect(Self.near(upper, Self.over(white, 0.25, Self.black), within: 2), "\(upper)")
        let grey = Self.codes(red: 128, green: 128, blue: 128)
        #expect(Self.near(lower, Self.over(grey, 0.25, Self.black), within: 2), "\(lower)")
    }

    /// Through a real export over a black clip (H.264, decoded by the ffmpeg CLI): the
    /// overlap of red over blue in a group at 0.5 is red at 50 % over black.
    @Test func aFadedGroupOverAnExportedClip() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let output = try await OverlayAnimationTests.exportOverBlackClip(in: dir, name: "grouped.mp4") { timeRange in
            var group = try Self.redOverBlue(dir, opacity: 0.5)
            group.timeRange = timeRange
            return [group]
        }
        let frame = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
        func at(_ x: Int, _ y: Int) -> (y: Double, cb: Double, cr: Double) {
            (Double(frame.y[y * 320 + x]), Double(frame.u[(y / 2) * 160 + x / 2]), Double(frame.v[(y / 2) * 160 + x / 2]))
        }
        #expect(Self.near(at(160, 120), Self.over(Self.red, 0.5, Self.black), within: 2), "overlap \(at(160, 120))")
        #expect(Self.near(at(140, 100), Self.over(Self.blue, 0.5, Self.black), within: 2), "blue \(at(140, 100))")
        #expect(Self.near(at(180, 140), Self.over(Self.red, 0.5, Self.black), within: 2), "red \(at(180, 140))")
    }
}
