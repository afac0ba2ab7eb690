import Foundation
import Logging
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
import DropcutRender
import TestSupport
import DropcutTimeline

/// Captions burnt in, read back from the rendered frames (decoded by the ffmpeg CLI): when
/// they show, after trims, slow motion and an intro, and where — never outside the safe
/// area.
@Suite struct CaptionRenderTests {
    static let logger = Logger(label: "dropcut-test")

    /// A dark clip (luma 16 + 8) without sound, so every bright pixel is a caption's.
    static func darkClip(_ dir: TemporaryDirectory, name: String = "clip.mp4", size: String, seconds: Int) throws -> String {
        let path = dir.file(name)
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x181818:s=\(size):r=30:d=\(seconds)",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// For each frame, how many luma samples are bright (a caption's white fill).
    static func brightCounts(_ frames: [[UInt8]]) -> [Int] {
        frames.map { $0.reduce(0) { $1 > 180 ? $0 + 1 : $0 } }
    }

    @Test func aCueInSlowMotionLastsTwiceAsLongAfterTheIntroAndACutCueIsNotShown() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.darkClip(dir, size: "320x240", seconds: 4)
        let intro = try Self.darkClip(dir, name: "intro.mp4", size: "320x240", seconds: 1)
        // Source times: [0.2, 0.4) is trimmed away; [1.2, 1.7) is inside the 0.5x range [1, 2).
        try "1\n00:00:00,200 --> 00:00:00,400\ncut away\n\n2\n00:00:01,200 --> 00:00:01,700\nslow\n".write(
            toFile: dir.file("clip.srt"), atomically: true, encoding: .utf8)
        let recipe = try RecipeLoader(resolver: AssetResolver(assetDirectories: [dir.path])).load(yaml: """
            version: 1
            clips:
              - source: \(intro)
              - source: "{input}"
                trim: [0.5, 3]
                speed: [ { range: [1, 2], rate: 0.5 } ]
            captions: { style: { size: 12% } }
            """, file: dir.file("r.yaml"))
        let production = try await Production.prepare(recipe: recipe, input: clip)
        let out = dir.file("out.mp4")
        try await production.export(to: out, logger: Self.logger)
        let counts = Self.brightCounts(try DecodedMedia.lumaFrames(of: out, width: 320, height: 240))
        let lit = counts.indices.filter { counts[$0] > 20 }
        // The intro is 1 s; the clip from 0.5: source 1.2 is output 1 + 0.5 + 0.4 = 1.9 s,
        // and the cue lasts 0.5 s x 2 = 1 s: frames 57 to 86 at 30 fps.
        let first = try #require(lit.first), last = try #require(lit.last)
        #expect(abs(first - 57) <= 1, "lit frames \(lit)")
        #expect(abs(last - 86) <= 1, "lit frames \(lit)")
        #expect(lit.count == last - first + 1, "one run of lit frames: \(lit)")
        #expect(abs(lit.count - 30) <= 1)
    }

    @Test func longCuesOnAPortraitOutputStayInTheSafeArea() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.darkClip(dir, size: "360x640", seconds: 2)
        let long = "This caption is far too long to fit on two lines of a vertical video, so dropcut must set it smaller and never let it spill out of the safe area"
        try "1\n00:00:00,000 --> 00:00:01,000\n\(long)\n\n2\n00:00:01,000 --> 00:00:02,000\nSupercalifragilisticexpialidocious-and-then-some-more-unbreakable-text\n".write(
            toFile: dir.file("clip.srt"), atomically: true, encoding: .utf8)
        let recipe = try RecipeLoader().load(yaml: "version: 1\ncaptions: { style: { size: 8%, max_lines: 2 } }\n", file: dir.file("r.yaml"))
        let production = try await Production.prepare(recipe: recipe, input: clip)
        let out = dir.file("out.mp4")
        try await production.export(to: out, logger: Self.logger)
        let frames = try DecodedMedia.lumaFrames(of: out, width: 360, height: 640)
        let safe = CaptionStyle.SafeArea.automatic(for: PixelSize(width: 360, height: 640)).rect(on: PixelSize(width: 360, height: 640))
        var outside = 0, inside = 0
        for frame in frames {
            for y in 0..<640 {
                for x in 0..<360 where frame[y * 360 + x] > 40 {
                    // Outline and anti-aliasing count too: anything not the dark background.
                    if x < safe.x || x >= safe.maxX || y < safe.y || y >= safe.maxY { outside += 1 } else { inside += 1 }
                }
            }
        }
        #expect(outside == 0, "\(outside) caption pixels outside the safe area \(safe)")
        #expect(inside > 1000, "the captions were drawn")
    }
}
