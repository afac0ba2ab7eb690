import Foundation
import Logging
import MediaIO
import Testing
import TestSupport
import Timeline
@testable import Render

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
        let clip = dir.file("black.mp4"), logo = dir.file("logo.png")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=black:s=320x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast",
                                          "-pix_fmt", "yuv420p", clip])
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=c=white:s=40x24", "-frames:v", "1", logo])
        let media = try AssetProbe().probe(clip)
        let video = try #require(media.video)
        let source = SourceTrack(asset: clip, trackID: video.trackID, mediaType: .video, timeRange: video.timeRange)
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { try $0.insert(video.timeRange, of: source, at: 0) }
        let videoComposition = VideoComposition(renderSize: PixelSize(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 30),
                                                instructions: [VideoCompositionInstruction(timeRange: video.timeRange,
                                                                                           layerInstructions: [LayerInstruction(trackID: track)])])
        var layer = OverlayLayer(content: .image(path: logo), anchor: .topLeft, margin: 10, timeRange: video.timeRange)
        try layer.scale.set(2, at: MediaTime(value: 1, timescale: 2))   // discrete: doubles at 0.5 s
        let output = dir.file("scaled.mp4")
        try await ExportSession(composition: composition, videoComposition: videoComposition, overlays: [layer],
                                logger: Logger(label: "test")).export(to: output)

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
}
