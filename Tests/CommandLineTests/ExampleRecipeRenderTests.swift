import Foundation
import Testing
import TestSupport

/// Every example recipe in `recipes/` renders as shipped — `dropcut render --recipe` with no
/// `--assets`, so logos, music and intro/outro come from the samples in `recipes/assets/` —
/// and ffprobe finds what the recipe asks for: its file name, its size, both streams, and
/// the length its clips, trims, speeds and transitions add up to.
///
/// Each recipe gets the shortest 320x240 test clip (with a 440 Hz tone) it accepts, to keep
/// the 1080-pixel renders quick.
@Suite(.tags(.slow)) struct ExampleRecipeRenderTests {
    /// What one example makes of a `clipSeconds`-long 320x240 30 fps clip named `clip.mp4`.
    struct Expected: Sendable {
        var clipSeconds: Int
        var filename: String
        var width: Int
        var height: Int
        /// Worked out from the recipe by hand.
        var seconds: Double
    }

    static let expected: [String: Expected] = [
        // The music's fades (1 s in + 2 s out) need an output longer than 3 s.
        "social-vertical.yaml": Expected(clipSeconds: 4, filename: "clip.social.mp4", width: 1080, height: 1920, seconds: 4),
        "watermark-only.yaml": Expected(clipSeconds: 2, filename: "clip.watermarked.mp4", width: 320, height: 240, seconds: 2),
        // trim [0.5, 9.0] needs 9 s; source seconds 3–5 at 0.25 last 8: 2.5 + 8 + 4.
        "slomo-highlight.yaml": Expected(clipSeconds: 10, filename: "clip.highlight.mp4", width: 320, height: 240, seconds: 14.5),
        // Fades of 2 s in + 3 s out need more than 5 s.
        "podcast-clip.yaml": Expected(clipSeconds: 6, filename: "clip.podcast.mp4", width: 1080, height: 1080, seconds: 6),
        // The 1.5 s sample intro and outro around the clip, two 0.5 s crossfades: 1.5 + 2 + 1.5 − 1.
        "reel-with-transitions.yaml": Expected(clipSeconds: 2, filename: "clip.reel.mp4", width: 1080, height: 1920, seconds: 4),
        // The items reach 5.8 s (bed.mp3 from 4.8 s is cut at the clip's end); at source size.
        // The transform's last keyframe at 4 s needs a clip that long: 1.5 s intro + 5 − 0.5.
        "ken-burns.yaml": Expected(clipSeconds: 5, filename: "clip.kenburns.mp4", width: 1280, height: 720, seconds: 6),
        // The 3 s photo, then the clip, crossfading for 0.5 s: 3 + 2 − 0.5 (silent until the clip).
        "ken-burns-photo.yaml": Expected(clipSeconds: 2, filename: "clip.photo.mp4", width: 960, height: 540, seconds: 4.5),
        "voiceover.yaml": Expected(clipSeconds: 6, filename: "clip.voiceover.mp4", width: 320, height: 240, seconds: 6),
        // Keyframe animations over the whole clip: a turning, gliding, breathing logo.
        "animated-watermark.yaml": Expected(clipSeconds: 2, filename: "clip.animated.mp4", width: 320, height: 240, seconds: 2),
        // The group is shown from 2 s to 7 s, so the clip lasts past 7 s.
        "spinning-watermark.yaml": Expected(clipSeconds: 8, filename: "clip.spinning.mp4", width: 320, height: 240, seconds: 8),
        "smart-vertical.yaml": Expected(clipSeconds: 2, filename: "clip.smart.mp4", width: 1080, height: 1920, seconds: 2),
    ]

    /// Examples with `outputs:`: every file they make (name, width, height; a video's
    /// length as above), the manifest last.
    static let deliverables: [String: (clipSeconds: Int, seconds: Double, files: [(name: String, width: Int, height: Int)])] = [
        // A 320x240 clip: 720p keeps it at its own size (never upscaled).
        "deliverables.yaml": (2, 2, [("clip.vertical.mp4", 1080, 1920), ("clip.square.mp4", 1080, 1080), ("clip.wide.mp4", 320, 240),
                                     ("clip.poster.jpg", 1080, 1920)]),
    ]

    static let allRecipes: [String] = {
        let files = try? FileManager.default.contentsOfDirectory(atPath: Repository.path("recipes"))
        return (files ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    static let recipes: [String] = allRecipes.filter { deliverables[$0] == nil }

    /// A new example must come with what it should render to.
    @Test func everyExampleRecipeHasAnExpectation() {
        #expect(Self.recipes.count >= 5, "recipes/ listed")
        #expect(Set(Self.allRecipes) == Set(Self.expected.keys).union(Self.deliverables.keys))
    }

    @Test(arguments: deliverables.keys.sorted())
    func deliverablesExampleRendersAsShipped(recipe name: String) async throws {
        let expected = try #require(Self.deliverables[name])
        let dir = try TemporaryDirectory(prefix: "dropcut-example")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: expected.clipSeconds)
        let outbox = dir.file("out")
        try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: false)

        let result = try await DropcutProcess.run(["render", "--recipe", Repository.path("recipes/\(name)"), "--output", outbox, clip])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        let names = expected.files.map(\.name) + ["clip.dropcut.json"]
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).sorted() == names.sorted())
        for file in expected.files {
            let path = (outbox as NSString).appendingPathComponent(file.name)
            let video = try #require(try FFprobe.stream("video", of: path), "\(file.name)")
            #expect(video.width == file.width && video.height == file.height, "\(file.name): \(video.width ?? 0)x\(video.height ?? 0)")
            guard file.name.hasSuffix(".mp4") else { continue }
            #expect(try FFprobe.streams(of: path).map { $0.codecName ?? "?" } == ["h264", "aac"], "\(file.name)")
            #expect(video.frameRate == "30/1", "\(file.name)")
            #expect(abs((video.duration ?? 0) - expected.seconds) <= 1.0 / 30 + 1e-6, "\(file.name)")
        }
    }

    @Test(arguments: recipes)
    func exampleRendersAsShipped(recipe name: String) async throws {
        let expected = try #require(Self.expected[name], "no expectation for \(name)")
        let dir = try TemporaryDirectory(prefix: "dropcut-example")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: expected.clipSeconds)
        let outbox = dir.file("out")
        try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: false)

        let result = try await DropcutProcess.run(["render", "--recipe", Repository.path("recipes/\(name)"), "--output", outbox, clip])
        #expect(result.status == 0, "\(name): \(result.stderr)")
        let output = (outbox as NSString).appendingPathComponent(expected.filename)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox) == [expected.filename])

        let streams = try FFprobe.streams(of: output)
        #expect(streams.map { $0.codecName ?? "?" } == ["h264", "aac"], "\(name)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.width == expected.width && video.height == expected.height, "\(name): \(video.width ?? 0)x\(video.height ?? 0)")
        #expect(video.frameRate == "30/1", "\(name)")
        // Within a frame: the video is on a 1/30 s grid.
        let videoSeconds = try #require(video.duration)
        #expect(abs(videoSeconds - expected.seconds) <= 1.0 / 30 + 1e-6, "\(name): video \(videoSeconds) s")
        // AAC comes in 1024-sample frames: the sound may end up to one frame later.
        let audioSeconds = try #require(try FFprobe.stream("audio", of: output)?.duration)
        #expect(abs(audioSeconds - expected.seconds) <= 0.05, "\(name): audio \(audioSeconds) s")
    }
}
