import Foundation
import Logging
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// The animated parts of an overlay layer through a real export: keyframed scale, and
/// which picture of an image sequence shows when.
@Suite struct OverlayAnimationTests {
    @Test func sequencePicturesAdvanceAtTheirRateAndLoop() {
        let layer = OverlayLayer(content: .imageSequence(paths: ["a", "b", "c"], frameDuration: MediaTime(value: 1, timescale: 4)),
                                 anchor: .center, margin: 0, timeRange: TimeRange(start: 1, duration: 10))
        let shown = (0..<16).map { OverlayRenderer.sequenceIndex(layer, at: 1 + MediaTime(value: Int64($0), timescale: 8), count: 3) }
        #expect(shown == [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1])
    }

    @Test func keyframedScaleDrawsTheLogoLargerFromItsKeyframeOn() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let logo = dir.file("logo.png")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=40x24", "-frames:v", "1", logo])
        let output = try await Self.exportOverBlackClip(in: dir, name: "scaled.mp4") { timeRange in
            var layer = OverlayLayer(content: .image(path: logo), anchor: .topLeft, margin: 10, timeRange: timeRange)
            try layer.scale.set(2, at: MediaTime(value: 1, timescale: 2))   // discrete: doubles at 0.5 s
            return [layer]
        }

        func inkBox(frame index: Int) throws -> (width: Int, height: Int, x: Int, y: Int) {
            let luma = try DecodedMedia.yuvFrame(of: output, index: index, width: 320, height: 240).y
            var xs: [Int] = [], ys: [Int] = []
            for y in 0..<240 { for x in 0..<320 where luma[y * 320 + x] > 128 { xs.append(x); ys.append(y) } }
            return ((xs.max() ?? -1) - (xs.min() ?? 0) + 1, (ys.max() ?? -1) - (ys.min() ?? 0) + 1, xs.min() ?? -1, ys.min() ?? -1)
        }
        let before = try inkBox(frame: 10), after = try inkBox(frame: 20)
        #expect(before.width == 40 && before.height == 24 && before.x == 10 && before.y == 10, "\(before)")
        #expect(after.width == 80 && after.height == 48 && after.x == 10 && after.y == 10, "\(after)")
    }

    /// `overlays` (made for the clip's time range) exported over a 1 s black 320x240 H.264
    /// clip, through the whole render (`ExportSession`); the output's path.
    static func exportOverBlackClip(in dir: TemporaryDirectory, name: String,
                                    overlays: (TimeRange) throws -> [OverlayLayer]) async throws -> String {
        let clip = dir.file("black.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=black:s=320x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast",
                                          "-pix_fmt", "yuv420p", clip])
        let media = try AssetProbe().probe(clip)
        let video = try #require(media.video)
        let source = SourceTrack(asset: clip, trackID: video.trackID, mediaType: .video, timeRange: video.timeRange)
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { try $0.insert(video.timeRange, of: source, at: 0) }
        let videoComposition = VideoComposition(renderSize: PixelSize(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 30),
                                                instructions: [VideoCompositionInstruction(timeRange: video.timeRange,
                                                                                           layerInstructions: [LayerInstruction(trackID: track)])])
        let output = dir.file(name)
        try await ExportSession(composition: composition, videoComposition: videoComposition, overlays: try overlays(video.timeRange),
                                logger: Logger(label: "test")).export(to: output)
        return output
    }

    /// A black 320x240 canvas with `layer` drawn on it at `time`, its luma plane returned.
    static func drawnLuma(_ layer: OverlayLayer, at time: MediaTime = 1) throws -> [UInt8] {
        let canvas = try VideoFrame(width: 320, height: 240, pixelFormat: .yuv420p)
        for plane in 0..<3 {
            canvas.withPlane(plane) { bytes, stride in
                for i in 0..<(stride * (plane == 0 ? 240 : 120)) { bytes[i] = plane == 0 ? 16 : 128 }
            }
        }
        try OverlayRenderer(layers: [layer], renderSize: PixelSize(width: 320, height: 240)).draw(at: time, into: canvas)
        var luma = [UInt8](repeating: 0, count: 320 * 240)
        canvas.withPlane(0) { bytes, stride in
            for y in 0..<240 { for x in 0..<320 { luma[y * 320 + x] = bytes[y * stride + x] } }
        }
        return luma
    }

    /// A white 80x80 square turned 30° clockwise about its centre (160, 120): its corners
    /// land where the rotation puts them, and its edges are anti-aliased (partly covered
    /// pixels in between black and white), which the unturned square has none of.
    @Test func aRotatedSquaresCornersAreWhereTheRotationPutsThem() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let logo = dir.file("square.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=80x80", "-frames:v", "1", logo])
        var layer = OverlayLayer(content: .image(path: logo), anchor: .center, margin: 0, timeRange: TimeRange(start: 0, duration: 10))
        let straight = try Self.drawnLuma(layer)
        #expect(straight.filter { $0 > 20 && $0 < 230 }.isEmpty, "the unturned square is blitted exactly")
        #expect(straight.filter { $0 > 230 }.count == 80 * 80)
        layer.rotation = 30
        let luma = try Self.drawnLuma(layer)
        // Coverage 0...1 per pixel; each extreme corner estimated from the coverage
        // profile: the first row (column) from the edge where coverage starts, refined by
        // how much of that row is covered — the vertex of a turned square is where the
        // two edges meet, so measure each edge's line instead: fit the 50 % crossing.
        func coverage(_ x: Int, _ y: Int) -> Double { (Double(luma[y * 320 + x]) - 16) / 219 }
        let c = cos(Double.pi / 6), s = sin(Double.pi / 6)
        let corners = [(-40.0, -40.0), (40, -40), (40, 40), (-40, 40)].map { (x: 160 + $0.0 * c - $0.1 * s, y: 120 + $0.0 * s + $0.1 * c) }
        // Ink's extent each way is the corner's coordinate (a vertex is the extreme point):
        // the area-weighted extent, sum of coverage along the extreme row/column profile.
        var top = 240.0, bottom = 0.0, left = 320.0, right = 0.0
        for y in 0..<240 { for x in 0..<320 where coverage(x, y) > 0.5 {
            top = min(top, Double(y)); bottom = max(bottom, Double(y + 1)); left = min(left, Double(x)); right = max(right, Double(x + 1))
        } }
        let expected = (top: corners.map(\.y).min()!, bottom: corners.map(\.y).max()!, left: corners.map(\.x).min()!, right: corners.map(\.x).max()!)
        #expect(abs(top - expected.top) <= 1 && abs(bottom - expected.bottom) <= 1, "rows \(top)...\(bottom), expected \(expected)")
        #expect(abs(left - expected.left) <= 1 && abs(right - expected.right) <= 1, "columns \(left)...\(right), expected \(expected)")
        // The corner's position along the extreme row: the top vertex's x.
        let topRow = Int(top)
        let inked = (0..<320).filter { coverage($0, topRow) > 0.5 }
        let topX = Double(inked.first! + inked.last! + 1) / 2
        let topCorner = corners.min { $0.y < $1.y }!
        #expect(abs(topX - topCorner.x) <= 1, "top corner at x \(topX), expected \(topCorner.x)")
        // Area is kept (bilinear resampling conserves coverage to within the fringe).
        let area = (0..<(320 * 240)).reduce(0.0) { $0 + coverage($1 % 320, $1 / 320) }
        #expect(abs(area - 6400) < 64, "area \(area)")
        let partial = luma.filter { $0 > 30 && $0 < 220 }.count
        #expect(partial > 150, "\(partial) anti-aliased edge pixels")
    }

    /// Seed 003's logo: an 80x80 square spinning about Y with m34 = -1/500, a turn every
    /// 4 s, forever. At 90° it is edge-on (at most 2 px wide); at 0° and 180° as wide as
    /// the logo, mirrored at 180°; at 45° (and again one period later) its near edge is
    /// taller than its far edge as the projection predicts.
    @Test func aSpinningLogoFollowsThePerspectiveProjection() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let white = dir.file("white.png"), halves = dir.file("halves.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=80x80", "-frames:v", "1", white])
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=80x80,drawbox=x=40:y=0:w=40:h=80:c=gray:t=fill", "-frames:v", "1", halves])
        func spinning(_ path: String) throws -> OverlayLayer {
            var layer = OverlayLayer(content: .image(path: path), anchor: .center, margin: 0, timeRange: TimeRange(start: 0, duration: 20))
            layer.spin = OverlayLayer.Spin(axis: .y, distance: 500)
            layer.animation.spin = try KeyframeAnimation(keyframes: [.init(time: 0, value: 0), .init(time: 4, value: 360)], repeatCount: .forever)
            return layer
        }
        func coverage(_ luma: [UInt8], _ x: Int, _ y: Int) -> Double { (Double(luma[y * 320 + x]) - 16) / 219 }
        func inkColumns(_ luma: [UInt8]) -> [Int] {
            (0..<320).filter { x in (0..<240).contains { coverage(luma, x, $0) > 0.25 } }
        }
        let logo = try spinning(white)
        let flat = inkColumns(try Self.drawnLuma(logo, at: 0))
        #expect(flat.count == 80 && flat.first == 120)
        let edgeOn = inkColumns(try Self.drawnLuma(logo, at: 1))
        #expect(edgeOn.count <= 2, "\(edgeOn.count) columns at 90°")
        // 180°: as wide, and the grey right half now on the left.
        let back = try Self.drawnLuma(try spinning(halves), at: 2)
        let backColumns = inkColumns(back)
        #expect(backColumns.count == 80 && backColumns.first == 120, "\(backColumns.first ?? -1)+\(backColumns.count)")
        #expect(abs(coverage(back, 130, 120) - 0.5) < 0.1 && coverage(back, 190, 120) > 0.95)
        // 45°: a column's ink height (its summed coverage) against the projection's
        // 80 / w, w = 1 + x sin a / 500 at the logo's x under that column.
        let s = 0.5.squareRoot(), c = s
        func predictedHeight(column: Int) -> Double {
            let screen = Double(column) + 0.5 - 160
            let x = screen / (c - screen * s / 500)
            return 80 / (1 + x * s / 500)
        }
        for time in [MediaTime(value: 1, timescale: 2), MediaTime(value: 9, timescale: 2)] {
            let luma = try Self.drawnLuma(logo, at: time)
            let columns = inkColumns(luma)
            func height(_ x: Int) -> Double { (0..<240).reduce(0) { $0 + coverage(luma, x, $1) } }
            let near = columns.first! + 2, far = columns.last! - 2
            let measured = (near: height(near), far: height(far)), predicted = (near: predictedHeight(column: near), far: predictedHeight(column: far))
            #expect(abs(measured.near - predicted.near) <= 1 && abs(measured.far - predicted.far) <= 1, "\(time): \(measured) vs \(predicted)")
            #expect(measured.near - measured.far > 8, "the near edge is taller: \(measured)")
            // The projected edges: x = ±40 cos a / (1 ∓ 40 sin a / 500) about the centre.
            #expect(abs(Double(columns.first!) - (160 - 40 * c / (1 - 40 * s / 500))) <= 1.5 && abs(Double(columns.last! + 1) - (160 + 40 * c / (1 + 40 * s / 500))) <= 1.5,
                    "\(columns.first!)...\(columns.last!)")
        }
    }

    /// A 200x100 group pinned bottom-right (10 px margin) holding two white images, one
    /// top-left and one bottom-right in the group's box: each lands relative to the group,
    /// and as the group fades out both follow its opacity.
    @Test func aGroupPlacesItsChildrenInItsBoxAndFadesThemTogether() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let small = dir.file("small.png"), wide = dir.file("wide.png")
        for (path, size) in [(small, "20x20"), (wide, "40x20")] {
            try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                              "-i", "color=c=white:s=\(size)", "-frames:v", "1", path])
        }
        let range = TimeRange(start: 0, duration: 4)
        let children = [OverlayLayer(content: .image(path: small), anchor: .topLeft, margin: 0, timeRange: range),
                        OverlayLayer(content: .image(path: wide), anchor: .bottomRight, margin: 0, timeRange: range)]
        var group = OverlayLayer(content: .group(children, size: Size(width: 200, height: 100)), anchor: .bottomRight, margin: 10, timeRange: range)
        try group.opacity.setRamp(from: 1, to: 0, range: TimeRange(start: 0, duration: 2))
        let steps: [(MediaTime, Double)] = [(.zero, 235), (MediaTime(value: 1, timescale: 2), 235 * 0.75 + 16 * 0.25),
                                            (MediaTime(value: 1, timescale: 1), 235 * 0.5 + 16 * 0.5), (MediaTime(value: 2, timescale: 1), 16)]
        for (time, expected) in steps {
            let luma = try Self.drawnLuma(group, at: time)
            // The group's box starts at (110, 130): the small child there, the wide one at (270, 210).
            var inked: [Int] = []
            for y in 0..<240 { for x in 0..<320 where luma[y * 320 + x] > 20 { inked.append(y * 320 + x) } }
            if expected > 20 {
                let first: [Int] = (130..<150).flatMap { y in (110..<130).map { y * 320 + $0 } }
                let second: [Int] = (210..<230).flatMap { y in (270..<310).map { y * 320 + $0 } }
                let expectedPixels = Set(first + second)
                #expect(Set(inked) == expectedPixels, "\(time): \(inked.count) pixels inked")
            } else {
                #expect(inked.isEmpty)
            }
            for (x, y) in [(115, 135), (300, 225)] {
                #expect(abs(Double(luma[y * 320 + x]) - expected) <= 1, "\(time) at (\(x), \(y)): \(luma[y * 320 + x]) vs \(expected)")
            }
        }
        // Turned with the group: a 90° turn about the group's centre (210, 180) puts the
        // small child's top-left corner (110, 130) at (260, 80).
        group.rotation = 90
        let turned = try Self.drawnLuma(group, at: 0)
        #expect(turned[85 * 320 + 255] > 200 && turned[135 * 320 + 115] == 16)
    }

    /// A keyframed scale (here a bounce's spring) is drawn from the scale-1 raster through
    /// the map: at the spring's first peak a 40x40 logo is 16.3 % larger, centred where it rests.
    @Test func aBouncingLogoOvershootsAtTheSpringsPeak() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let logo = dir.file("logo.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=40x40", "-frames:v", "1", logo])
        var layer = OverlayLayer(content: .image(path: logo), anchor: .center, margin: 0, timeRange: TimeRange(start: 0, duration: 4))
        let settle = MediaTime(seconds: TimingFunction.springSettlingSeconds, preferredTimescale: 600)
        layer.animation.scale = try KeyframeAnimation(keyframes: [.init(time: .zero, value: 0, timing: .spring), .init(time: settle, value: 1)])
        let peak = MediaTime(seconds: .pi / (10 * 0.75.squareRoot()), preferredTimescale: 60_000)
        let luma = try Self.drawnLuma(layer, at: peak)
        // Summed coverage along the middle row: the drawn width.
        let width = (0..<320).reduce(0.0) { $0 + (Double(luma[120 * 320 + $1]) - 16) / 219 }
        #expect(abs(width - 40 * layer.scale(at: peak)) < 0.5 && abs(width - 46.5) < 0.6, "\(width)")
        #expect(try Self.drawnLuma(layer, at: 0).allSatisfy { $0 == 16 })   // nothing at scale 0
        let settled = try Self.drawnLuma(layer, at: 3)
        #expect(settled.filter { $0 > 230 }.count == 1600)   // at rest: exactly the logo
    }

    /// The turned path on a 10-bit HLG canvas: the same coverage as on an 8-bit one (a
    /// white square's middle at HLG 75 % white, its edge pixels partly covered).
    @Test func aTurnedLayerBlendsIntoTenBitCanvases() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let logo = dir.file("square.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=80x80", "-frames:v", "1", logo])
        var layer = OverlayLayer(content: .image(path: logo), anchor: .center, margin: 0, timeRange: TimeRange(start: 0, duration: 10))
        layer.rotation = 30
        let canvas = try VideoFrame(width: 320, height: 240, pixelFormat: .yuv420p10)
        for plane in 0..<3 {
            canvas.withPlane(plane) { bytes, stride in
                let words = bytes.baseAddress!.assumingMemoryBound(to: UInt16.self)
                for i in 0..<(stride / 2 * (plane == 0 ? 240 : 120)) { words[i] = plane == 0 ? 64 : 512 }
            }
        }
        try OverlayRenderer(layers: [layer], renderSize: PixelSize(width: 320, height: 240), dynamicRange: .hlg).draw(at: 1, into: canvas)
        var luma = [UInt16](repeating: 0, count: 320 * 240)
        canvas.withPlane(0) { bytes, stride in
            let words = bytes.baseAddress!.assumingMemoryBound(to: UInt16.self)
            for y in 0..<240 { for x in 0..<320 { luma[y * 320 + x] = words[y * stride / 2 + x] } }
        }
        let middle = luma[120 * 320 + 160]
        #expect(middle > 500 && middle < 1023, "\(middle)")   // white placed at HLG 75 %, below peak
        let full = luma.filter { $0 == middle }.count, partial = luma.filter { $0 > 80 && $0 < middle - 16 }.count
        #expect(abs(full - 6400) < 600 && partial > 150, "\(full) full, \(partial) partial")
        canvas.withPlane(1) { bytes, stride in
            let words = bytes.baseAddress!.assumingMemoryBound(to: UInt16.self)
            #expect(abs(Int(words[60 * stride / 2 + 80]) - 512) <= 2)   // white stays neutral
        }
    }
}
