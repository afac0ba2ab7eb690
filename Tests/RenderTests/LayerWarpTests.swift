import Foundation
import Logging
import DropcutMediaIO
import PropertyBased
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

typealias AffineTransform = DropcutTimeline.AffineTransform

/// The general layer warp (turns by any angle, shears, ramps between them): its sample
/// mapping on planes, and whole renders against the ffmpeg CLI's `rotate` and `scale`.
@Suite struct LayerWarpTests {
    static let logger = Logger(label: "dropcut.tests")

    /// `transform` about the centre of a `size` frame shown on a canvas of the same size.
    static func centred(_ m: AffineTransform, size: PixelSize) -> AffineTransform {
        let cx = Double(size.width) / 2, cy = Double(size.height) / 2
        return AffineTransform(translationX: -cx, y: -cy).concatenating(m).concatenating(AffineTransform(translationX: cx, y: cy))
    }

    /// A turn by `degrees` clockwise on screen (y down), scaled by `scale`.
    static func turn(_ degrees: Double, scale: Double = 1) -> AffineTransform {
        let r = degrees * .pi / 180
        return AffineTransform(a: scale * cos(r), b: scale * sin(r), c: -scale * sin(r), d: scale * cos(r), tx: 0, ty: 0)
    }

    /// A warp that only moves by whole pixels samples every plane exactly where the move
    /// says — luma and both chroma planes, left- and centre-sited: bicubic weights at whole
    /// positions are (0, 1, 0, 0), so any half-pixel slip in the mapping shows.
    @Test func wholePixelMovesThroughTheWarpAreExact() async {
        let input = zip(Gen.int(in: 0...8), Gen.int(in: 0...8), Gen.int(in: 0...1))
        await propertyCheck(count: 60, input: input) { dx2, dy2, centred in
            let (w, h) = (24, 16)
            let move = AffineTransform(translationX: Double(dx2 * 2), y: Double(dy2 * 2))
            let warp = LayerWarp.make(frameSize: PixelSize(width: w, height: h), crop: .infinite, transform: move)!
            #expect(!warp.prescales)
            for plane in 0..<3 {
                let (pw, ph) = plane == 0 ? (w, h) : (w / 2, h / 2)
                let shift = plane == 0 ? (dx2 * 2, dy2 * 2) : (dx2, dy2)
                var source = [UInt8](repeating: 0, count: pw * ph)
                for i in source.indices { source[i] = UInt8(truncatingIfNeeded: i &* 37 &+ (i >> 3) &* 11) }
                let (cw, ch) = (pw + 20, ph + 20)
                var canvas = [UInt8](repeating: 7, count: cw * ch)
                let map = PlaneWarp(warp, plane: plane, sourceCentred: centred == 1, canvasCentred: centred == 1)
                source.withUnsafeBufferPointer { s in
                    canvas.withUnsafeMutableBufferPointer { d in
                        PlaneOperations.warp(map, source: s.baseAddress!, sourceStride: pw, sourceWidth: pw, sourceHeight: ph,
                                             destination: d.baseAddress!, destinationStride: cw, columns: 0..<cw, rows: 0..<ch,
                                             opacity: 1, maximum: 255)
                    }
                }
                var wrong = 0
                for y in 0..<ph { for x in 0..<pw where canvas[(y + shift.1) * cw + x + shift.0] != source[y * pw + x] { wrong += 1 } }
                #expect(wrong == 0, "plane \(plane), move (\(dx2 * 2), \(dy2 * 2)), centred \(centred): \(wrong) samples off")
                // Outside the layer (beyond its one-pixel rim) the canvas is untouched.
                #expect(canvas[(ch - 1) * cw + cw - 1] == 7)
            }
        }
    }

    /// Quarter turns, mirrors, scales and moves keep the exact pixel-move path; other
    /// turns and shears get a warp.
    @Test func onlyNonPixelMovesAreWarped() throws {
        let size = PixelSize(width: 640, height: 360)
        for turns in 0..<4 {
            let t = AffineTransform.orientation(quarterTurns: turns, naturalSize: size).concatenating(AffineTransform(scaleX: 0.5, y: 0.5))
            #expect(try LayerPlacement.place(frameSize: size, crop: .infinite, transform: t) != nil)
        }
        #expect(throws: LayerPlacement.Unsupported.self) {
            _ = try LayerPlacement.place(frameSize: size, crop: .infinite, transform: Self.turn(45))
        }
        let warp = try #require(LayerWarp.make(frameSize: size, crop: .infinite, transform: Self.centred(Self.turn(45), size: size)))
        // The box of a 640×360 frame turned 45° about its centre: (640+360)/√2 ≈ 707 wide.
        #expect(abs(warp.destination.width - 710) <= 4 && abs(warp.destination.height - 710) <= 4, "\(warp.destination)")
        // Shrunk to a quarter: swscale takes it to about a quarter first.
        let small = try #require(LayerWarp.make(frameSize: size, crop: .infinite, transform: Self.turn(30, scale: 0.25)))
        #expect(small.prescales && small.sampledSize == PixelSize(width: 160, height: 90), "\(small.sampledSize)")
        // Singular and non-finite transforms draw nothing.
        #expect(LayerWarp.make(frameSize: size, crop: .infinite, transform: AffineTransform(a: 1, b: 1, c: 1, d: 1, tx: 0, ty: 0)) == nil)
        #expect(LayerWarp.make(frameSize: size, crop: .infinite, transform: AffineTransform(a: .nan, b: 1, c: 1, d: 1, tx: 0, ty: 0)) == nil)
    }

    /// HLG outputs warp on their 16-bit canvas: a white layer turned 30° shows HLG's SDR
    /// white (code 721 of 1023, 10-bit video range) inside, the background (64) outside,
    /// and values between them on its border.
    @Test func hlgOutputsWarpOnTheirWideCanvas() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let size = PixelSize(width: 320, height: 240)
        let path = try Self.makeSource(dir, name: "white", source: "color=c=white:s=320x240:r=30:d=1")
        let output = try await Self.render(path, seconds: 1, size: size, in: dir, hlg: true) {
            try $0.setTransform(Self.centred(Self.turn(30, scale: 0.5), size: size), at: .zero)
        }
        let luma = try DecodedMedia.yuv10Frame(of: output, index: 5, width: 320, height: 240).y
        let row = (0..<320).map { Int(luma[120 * 320 + $0]) }
        #expect(abs(row[160] - 721) <= 4 && abs(row[2] - 64) <= 2, "centre \(row[160]), edge \(row[2])")
        #expect(row.contains { $0 > 100 && $0 < 680 }, "no value between background and layer: \(row)")
    }

    /// A layer whose transform ramps its zoom or turn is resampled throughout (a Ken Burns
    /// glides rather than stepping by even pixels); a slide (push) keeps the exact path.
    @Test func zoomingRampsAreResampledAndSlidesAreNot() throws {
        var zoom = LayerInstruction(trackID: 1)
        try zoom.setTransformRamp(from: .identity, to: AffineTransform(scaleX: 1.2, y: 1.2), range: TimeRange(start: 0, duration: 2))
        var slide = LayerInstruction(trackID: 1)
        try slide.setTransformRamp(from: .identity, to: AffineTransform(translationX: -320, y: 0), range: TimeRange(start: 0, duration: 2))
        var still = LayerInstruction(trackID: 1)
        try still.setTransform(AffineTransform(scaleX: 2, y: 2), at: .zero)
        #expect(FrameScheduler.zooms(zoom) && !FrameScheduler.zooms(slide) && !FrameScheduler.zooms(still))
    }

    /// A lossless BT.709 clip of the lavfi source `source`.
    /// The compositor still draws quarter turns by the exact pixel move, bit for bit: a
    /// BT.709 frame turned a quarter (and mirrored) lands on the canvas sample for
    /// sample where the orientation's definition puts it — luma and chroma — with no
    /// resampling anywhere (a warp would soften it).
    @Test func quarterTurnsStayExactPixelMovesInTheCompositor() throws {
        let size = PixelSize(width: 64, height: 48)
        for (turns, orientation) in [(1, Orientation.rotate90), (3, .rotate270), (2, .rotate180)] {
            let transform = AffineTransform.orientation(quarterTurns: turns, naturalSize: size)
            let frame = try VideoFrame(width: size.width, height: size.height)
            frame.setColorTags(ColorDescription.bt709)
            for plane in 0..<3 {
                frame.withPlane(plane) { buffer, stride in
                    for y in 0..<frame.planeHeight(plane) {
                        for x in 0..<frame.planeWidth(plane) { buffer[y * stride + x] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 13 &+ plane &* 50 &+ (x * y) >> 3) }
                    }
                }
            }
            let out = turns % 2 == 1 ? PixelSize(width: size.height, height: size.width) : size
            let compositor = VideoCompositor(renderSize: out)
            let canvas = try VideoFrame(width: out.width, height: out.height)
            let source = SourceTrack(asset: "pattern", trackID: 1, mediaType: .video, duration: MediaTime(value: 1, timescale: 1))
            let layer = FramePlan.Layer(trackID: 1, source: source, sourceTime: .zero, opacity: 1, transform: transform,
                                        crop: .infinite, frameSampling: .repeat)
            try compositor.composite(FramePlan(index: 0, time: .zero, background: .black, layers: [layer]), frames: [LayerPicture(frame)],
                                     into: canvas)
            for plane in 0..<3 {
                let (w, h) = (frame.planeWidth(plane), frame.planeHeight(plane))
                var wrong = 0
                frame.withPlane(plane) { src, srcStride in
                    canvas.withPlane(plane) { dst, dstStride in
                        for y in 0..<h {
                            for x in 0..<w {
                                let (u, v) = PixelMoveTests.expectedPosition(orientation, x: x, y: y, w: w, h: h)
                                if dst[v * dstStride + u] != src[y * srcStride + x] { wrong += 1 }
                            }
                        }
                    }
                }
                #expect(wrong == 0, "\(orientation), plane \(plane): \(wrong) samples differ from the exact move")
            }
        }
    }

    static func makeSource(_ dir: TemporaryDirectory, name: String, source: String) throws -> String {
        let path = dir.path + "/\(name).mp4"
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                                          "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p",
                                          // Tagged BT.709, so the render converts no colour and ffmpeg's
                                          // filters see the same samples.
                                          "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", path])
        return path
    }

    /// Renders `path` (seconds long, `size`) alone on a canvas of `size` under `layer`'s ramps.
    static func render(_ path: String, seconds: Int, size: PixelSize, in dir: TemporaryDirectory, hlg: Bool = false,
                       layer build: (inout LayerInstruction) throws -> Void) async throws -> String {
        let media = try AssetProbe().probe(path)
        let video = try #require(media.video)
        let source = SourceTrack(asset: path, trackID: video.trackID, mediaType: .video, timeRange: video.timeRange)
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { try $0.insert(TimeRange(start: 0, duration: MediaTime(value: Int64(seconds), timescale: 1)), of: source, at: 0) }
        var layer = LayerInstruction(trackID: track)
        try build(&layer)
        let videoComposition = VideoComposition(renderSize: size, frameDuration: MediaTime(value: 1, timescale: 30), instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: MediaTime(value: Int64(seconds), timescale: 1)), layerInstructions: [layer]),
        ])
        let output = dir.path + "/out-\(UUID().uuidString).mp4"
        var settings = ExportSettings()
        settings.crf = 1
        if hlg {
            settings.dynamicRange = .hlg
            settings.videoCodec = .hevc
            settings.crf = 0
        }
        try await ExportSession(composition: composition, videoComposition: videoComposition, settings: settings, logger: logger).export(to: output)
        return output
    }

    static let pattern = "testsrc2=s=640x360:r=30:d=1,gblur=sigma=2.5"
    /// The picture's interior: away from the corners the turn fills with background.
    static let interior = "crop=240:120:200:120"

    @Test func aFortyFiveDegreeTurnMatchesFFmpegsRotate() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let size = PixelSize(width: 640, height: 360)
        let path = try Self.makeSource(dir, name: "pattern", source: Self.pattern)
        let output = try await Self.render(path, seconds: 1, size: size, in: dir) {
            try $0.setTransform(Self.centred(Self.turn(45), size: size), at: .zero)
        }
        let psnr = try PSNR.compare(output, path, filterA: Self.interior, filterB: "rotate=a=PI/4:c=black,\(Self.interior)")
        #expect(psnr.min >= 35, "\(psnr)")
        // Turned the other way it must not match: the comparison can fail.
        let wrong = try PSNR.compare(output, path, filterA: Self.interior, filterB: "rotate=a=-PI/4:c=black,\(Self.interior)")
        #expect(wrong.average < 25, "\(wrong)")
    }

    /// A 2 s ramp from upright to 1.2× and 10°, interpolated component-wise on the matrix
    /// (as AVFoundation does): frame n's matrix is `(1-f)·I + f·1.2·R(10°)`, a turn by
    /// atan2 of its columns and a scale by their length — which ffmpeg's `scale` then
    /// `rotate` build for that frame.
    @Test func aZoomAndTurnRampMatchesFFmpegFrameByFrame() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let size = PixelSize(width: 640, height: 360)
        let path = try Self.makeSource(dir, name: "pattern", source: "testsrc2=s=640x360:r=30:d=2,gblur=sigma=2.5")
        let output = try await Self.render(path, seconds: 2, size: size, in: dir) {
            try $0.setTransformRamp(from: .identity, to: Self.centred(Self.turn(10, scale: 1.2), size: size),
                                    range: TimeRange(start: 0, duration: 2))
        }
        for n in [15, 30, 59] {
            let f = Double(n) / 60
            let end = Self.turn(10, scale: 1.2)
            let cosine: Double = 1 - f + f * end.a, sine: Double = f * end.b
            let scale: Double = (cosine * cosine + sine * sine).squareRoot(), angle = atan2(sine, cosine)
            let w = Int((640 * scale / 2).rounded()) * 2, h = Int((360 * scale / 2).rounded()) * 2
            let pick = "select=eq(n\\,\(n)),setpts=PTS-STARTPTS"
            let reference = "\(pick),scale=\(w):\(h):flags=bicubic,rotate=a=\(angle):ow=640:oh=360:c=black,\(Self.interior)"
            let psnr = try PSNR.compare(output, path, filterA: "\(pick),\(Self.interior)", filterB: reference)
            #expect(psnr.min >= 35, "frame \(n) (scale \(scale), \(angle * 180 / .pi)°): \(psnr)")
        }
    }

    /// A transform near a quarter turn (a portrait phone clip's display matrix with a
    /// small turn on top) is split: the quarter turn as an exact pixel move first, the
    /// few degrees left as the warp, whose map then reads the oriented crop.
    @Test func aNearQuarterTurnIsOrientedExactlyBeforeTheWarp() throws {
        let size = PixelSize(width: 640, height: 360)
        let quarter = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 360, ty: 0)   // clockwise, onto 360×640
        let cases: [(AffineTransform, Orientation)] = [
            (Self.turn(10, scale: 1.2), .identity),
            (Self.turn(44), .identity),
            (Self.turn(-30), .identity),
            (quarter.concatenating(Self.centred(Self.turn(10, scale: 1.2), size: PixelSize(width: 360, height: 640))), .rotate90),
            (Self.turn(-93), .rotate270),
            (Self.turn(178), .rotate180),
            (AffineTransform(a: -0.98, b: 0.17, c: 0.17, d: 0.98, tx: 0, ty: 0), .mirrorX),
        ]
        for (transform, expected) in cases {
            let warp = try #require(LayerWarp.make(frameSize: size, crop: .infinite, transform: transform))
            #expect(warp.orientation == expected, "\(transform): \(warp.orientation)")
            // What is left to warp is within an eighth of a turn of upright.
            let forward = try #require(warp.inverse.inverted)
            #expect(forward.a > 0 && forward.d > 0 && abs(atan2(forward.b, forward.a)) <= .pi / 4 + 1e-9, "\(forward)")
            // The map still lands each corner of the picture where the transform puts it.
            let place = warp.orientation.placement(of: PixelSize(width: 640, height: 360))
            for corner in [Point(x: 0, y: 0), Point(x: 640, y: 0), Point(x: 0, y: 360), Point(x: 640, y: 360)] {
                let expected = transform.apply(to: corner), mapped = forward.apply(to: place.apply(to: corner))
                #expect(abs(expected.x - mapped.x) < 1e-6 && abs(expected.y - mapped.y) < 1e-6, "\(corner): \(mapped) not \(expected)")
            }
        }
    }

    /// The same split in a render: a clip turned a quarter clockwise, then 10° and 1.2×,
    /// matches ffmpeg's `transpose` followed by `scale` and `rotate`.
    @Test func aQuarterTurnedClipWithATurnMatchesFFmpeg() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let canvas = PixelSize(width: 360, height: 640)
        let path = try Self.makeSource(dir, name: "pattern", source: Self.pattern)
        let quarter = AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 360, ty: 0)
        let output = try await Self.render(path, seconds: 1, size: canvas, in: dir) {
            try $0.setTransform(quarter.concatenating(Self.centred(Self.turn(10, scale: 1.2), size: canvas)), at: .zero)
        }
        let interior = "crop=120:240:120:200"
        let reference = "transpose=clock,scale=432:768:flags=bicubic,rotate=a=PI/18:ow=360:oh=640:c=black,\(interior)"
        let psnr = try PSNR.compare(output, path, filterA: interior, filterB: reference)
        #expect(psnr.min >= 35, "\(psnr)")
        let wrong = try PSNR.compare(output, path, filterA: interior, filterB: "transpose=cclock,scale=432:768:flags=bicubic,rotate=a=PI/18:ow=360:oh=640:c=black,\(interior)")
        #expect(wrong.average < 25, "\(wrong)")
    }

    /// Across a turned layer's border the picture steps from layer to background through
    /// intermediate values over one to three pixels: coverage-weighted, not a staircase.
    @Test func aTurnedLayersEdgesAreAntiAliased() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let size = PixelSize(width: 320, height: 240)
        let path = try Self.makeSource(dir, name: "white", source: "color=c=white:s=320x240:r=30:d=1")
        let output = try await Self.render(path, seconds: 1, size: size, in: dir) {
            try $0.setTransform(Self.centred(Self.turn(30, scale: 0.5), size: size), at: .zero)
        }
        let luma = try DecodedMedia.yuvFrame(of: output, index: 10, width: 320, height: 240).y
        var checked = 0
        for row in stride(from: 100, through: 140, by: 10) {
            let profile = (0..<320).map { Int(luma[row * 320 + $0]) }
            // The left border: from black (16) up to white (235).
            guard let first = profile.firstIndex(where: { $0 > 30 }) else { continue }
            let ramp = profile[first...].prefix { $0 < 221 }
            let between = profile.filter { $0 > 38 && $0 < 213 }.count   // 10 %...90 %, both borders
            #expect(!ramp.isEmpty, "row \(row): a jump from background to layer in one pixel: \(profile[max(0, first - 3)..<first + 4])")
            #expect(ramp.count <= 3 && between >= 2 && between <= 6, "row \(row): transition \(Array(ramp)), \(between) between")
            checked += 1
        }
        #expect(checked == 5)
    }
}
