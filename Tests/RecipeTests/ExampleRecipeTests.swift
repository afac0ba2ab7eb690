import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// An example recipe loaded as shipped: no asset folders, so its assets come from
/// `recipes/assets/` beside it.
func exampleRecipe(_ name: String) throws -> Recipe {
    try RecipeLoader().load([(recipesDirectory as NSString).appendingPathComponent(name)])
}

/// Synthetic probes: a 12 s landscape phone clip, intro/outro, and the 2 s music bed.
let probe = TableProbe(table: [
    "input.mov": TableProbe.clip("input.mov", seconds: 12),
    "intro.mp4": TableProbe.clip("intro.mp4", seconds: 3, width: 1080, height: 1920),
    "outro.mp4": TableProbe.clip("outro.mp4", seconds: 2, width: 1080, height: 1920, fps: 25),
    "bed.mp3": TableProbe.music("bed.mp3", seconds: 2),
    "voiceover.m4a": TableProbe.music("voiceover.m4a", seconds: 3),
    "whoosh.m4a": TableProbe.music("whoosh.m4a", seconds: 1),
])

/// voiceover.yaml plays bed.mp3 from 2 s: as long as the shipped one (8 s), on a 6 s clip.
let voiceoverProbe = TableProbe(table: probe.table.merging([
    "input.mov": TableProbe.clip("input.mov", seconds: 6),
    "bed.mp3": TableProbe.music("bed.mp3", seconds: 8),
]) { _, new in new })

func describe(_ built: BuiltComposition) -> String {
    TimelineDescription.text(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix)
        .replacingOccurrences(of: AssetResolver.realPath(shippedAssetsDirectory)! + "/", with: "")
}

@Suite struct ExampleRecipeTests {
    @Test func everyExampleRecipeValidatesAsShipped() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: recipesDirectory).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(files.count >= 5)
        for file in files {
            do {
                let recipe = try exampleRecipe(file)
                // Whatever the recipe names comes from the samples shipped beside it.
                let assets = recipe.clips.map(\.source).filter { $0 != "{input}" } + [recipe.music?.source].compactMap { $0 }
                    + recipe.audio.map(\.source)
                    + recipe.overlays.compactMap { if case let .image(path) = $0.content { path } else { nil } }
                for asset in assets {
                    #expect(asset.hasPrefix(AssetResolver.realPath(shippedAssetsDirectory)! + "/"), "\(file): \(asset)")
                }
            } catch {
                Issue.record("\(file): \(error)")
            }
        }
        // The command line agrees, with no --assets: what a fresh clone runs.
        let dropcut = try BuildProducts.executable(named: "dropcut")
        let result = try Command.run(dropcut, ["validate"] + files.map { (recipesDirectory as NSString).appendingPathComponent($0) })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == files.count && result.stdout.split(separator: "\n").allSatisfy { $0.hasSuffix(": ok") },
                "\(result.stdout)")
    }

    /// Every sample asset the recipes name is shipped, small, and what its script says.
    @Test func shippedAssetsAreSmallRealMedia() throws {
        var total = 0
        for name in ["logo.png", "bed.mp3", "intro.mp4", "outro.mp4", "voiceover.m4a", "whoosh.m4a", "photo.jpg"] {
            let path = (shippedAssetsDirectory as NSString).appendingPathComponent(name)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, "\(name)")
            total += size
        }
        #expect(total < 300_000, "the committed samples stay tiny (\(total) bytes)")
        let logo = try FFprobe.streams(of: (shippedAssetsDirectory as NSString).appendingPathComponent("logo.png"))
        #expect(logo.first?.codecName == "png" && logo.first?.width == 256 && logo.first?.height == 128)
        let photo = try FFprobe.streams(of: (shippedAssetsDirectory as NSString).appendingPathComponent("photo.jpg"))
        #expect(photo.first?.codecName == "mjpeg" && photo.first?.width == 960 && photo.first?.height == 640)
        for clip in ["intro.mp4", "outro.mp4"] {
            let streams = try FFprobe.streams(of: (shippedAssetsDirectory as NSString).appendingPathComponent(clip))
            #expect(streams.map { $0.codecName ?? "" } == ["h264", "aac"], "\(clip)")
        }
        let bed = try FFprobe.format(of: (shippedAssetsDirectory as NSString).appendingPathComponent("bed.mp3"))
        #expect((bed.duration.flatMap(Double.init) ?? 0) > 7.5)
        for (name, seconds) in [("voiceover.m4a", 3.0), ("whoosh.m4a", 0.6)] {
            let path = (shippedAssetsDirectory as NSString).appendingPathComponent(name)
            #expect(try FFprobe.streams(of: path).map { $0.codecName ?? "" } == ["aac"], "\(name)")
            #expect(abs((try FFprobe.format(of: path).duration.flatMap(Double.init) ?? 0) - seconds) < 0.05, "\(name)")
        }
    }

    /// Each example recipe on the synthetic clips: what it must build, checked by hand
    /// (e.g. 1920x1080 filled into 1080x1920 scales by 1920/1080 and shifts by
    /// -(3413.3-1080)/2; the slow-motion range 3–5 s at 0.25 lasts 8 s; crossfades of 0.5 s
    /// start clips at 0, 2.5 and 14 s; -10 dB is 0.32 linear).
    static let expected: [String: (filename: String, description: String)] = [
        "social-vertical.yaml": ("input.social.mp4", """
            composition duration 12.000
            track 1 video
              0: timeRange [0.000,+12.000] from trackID 1 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 2 audio
              0: timeRange [0.000,+12.000] from trackID 2 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 3 audio
              0: timeRange [0.000,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              1: timeRange [2.000,+1.900] is empty
              2: timeRange [3.900,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              3: timeRange [5.900,+1.900] is empty
              4: timeRange [7.800,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              5: timeRange [9.800,+1.900] is empty
              6: timeRange [11.700,+0.300] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+0.300] speed 1.00
            track 4 audio
              0: timeRange [0.000,+1.950] is empty
              1: timeRange [1.950,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              2: timeRange [3.950,+1.900] is empty
              3: timeRange [5.850,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              4: timeRange [7.850,+1.900] is empty
              5: timeRange [9.750,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
            video composition renderSize 1080x1920 frameDuration 1/30 background #000000ff
              instruction [0.000,+12.000]
                layer trackID 1 transform [1.78 0.00 0.00 1.78 -1166.67 0.00] at 0.000
            audio mix
              trackID 2 volume 1.00 (default)
              trackID 3 volume ramp [0.000,+0.125] 0.00 -> 0.00, ramp [0.125,+0.125] 0.00 -> 0.02, ramp [0.250,+0.125] 0.02 -> 0.04, ramp [0.375,+0.125] 0.04 -> 0.08, ramp [0.500,+0.125] 0.08 -> 0.12, ramp [0.625,+0.125] 0.12 -> 0.18, ramp [0.750,+0.125] 0.18 -> 0.24, ramp [0.875,+0.125] 0.24 -> 0.32, ramp [1.950,+0.050] 0.32 -> 0.00, ramp [3.900,+0.050] 0.00 -> 0.32, ramp [5.850,+0.050] 0.32 -> 0.00, ramp [7.800,+0.050] 0.00 -> 0.32, ramp [9.750,+0.050] 0.32 -> 0.00, ramp [11.700,+0.050] 0.00 -> 0.00, ramp [11.750,+0.250] 0.00 -> 0.00
              trackID 4 volume ramp [0.000,+0.125] 0.00 -> 0.00, ramp [0.125,+0.125] 0.00 -> 0.02, ramp [0.250,+0.125] 0.02 -> 0.04, ramp [0.375,+0.125] 0.04 -> 0.08, ramp [0.500,+0.125] 0.08 -> 0.12, ramp [0.625,+0.125] 0.12 -> 0.18, ramp [0.750,+0.125] 0.18 -> 0.24, ramp [0.875,+0.125] 0.24 -> 0.32, ramp [1.950,+0.050] 0.00 -> 0.32, ramp [3.900,+0.050] 0.32 -> 0.00, ramp [5.850,+0.050] 0.00 -> 0.32, ramp [7.800,+0.050] 0.32 -> 0.00, ramp [9.750,+0.050] 0.00 -> 0.32, ramp [10.000,+0.250] 0.32 -> 0.21, ramp [10.250,+0.250] 0.21 -> 0.13, ramp [10.500,+0.250] 0.13 -> 0.08, ramp [10.750,+0.250] 0.08 -> 0.04, ramp [11.000,+0.250] 0.04 -> 0.02, ramp [11.250,+0.250] 0.02 -> 0.00, ramp [11.500,+0.200] 0.00 -> 0.00, ramp [11.700,+0.050] 0.00 -> 0.00

            """),
        "watermark-only.yaml": ("input.watermarked.mp4", """
            composition duration 12.000
            track 1 video
              0: timeRange [0.000,+12.000] from trackID 1 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 2 audio
              0: timeRange [0.000,+12.000] from trackID 2 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            video composition renderSize 1920x1080 frameDuration 1/30 background #000000ff
              instruction [0.000,+12.000]
                layer trackID 1 transform identity at 0.000
            audio mix
              trackID 2 volume 1.00 (default)

            """),
        "slomo-highlight.yaml": ("input.highlight.mp4", """
            composition duration 14.500
            track 1 video
              0: timeRange [0.000,+2.500] from trackID 1 of asset input.mov sourceTimeRange [0.500,+2.500] speed 1.00
              1: timeRange [2.500,+8.000] from trackID 1 of asset input.mov sourceTimeRange [3.000,+2.000] speed 0.25
              2: timeRange [10.500,+4.000] from trackID 1 of asset input.mov sourceTimeRange [5.000,+4.000] speed 1.00
            track 2 audio
              0: timeRange [0.000,+2.500] from trackID 2 of asset input.mov sourceTimeRange [0.500,+2.500] speed 1.00
              1: timeRange [2.500,+8.000] from trackID 2 of asset input.mov sourceTimeRange [3.000,+2.000] speed 0.25
              2: timeRange [10.500,+4.000] from trackID 2 of asset input.mov sourceTimeRange [5.000,+4.000] speed 1.00
            video composition renderSize 1920x1080 frameDuration 1/30 background #000000ff
              instruction [0.000,+14.500]
                layer trackID 1 transform identity at 0.000
            audio mix
              trackID 2 volume 1.00 (default); scaled audio preserve-pitch

            """),
        "podcast-clip.yaml": ("input.podcast.mp4", """
            composition duration 12.000
            track 1 video
              0: timeRange [0.000,+12.000] from trackID 1 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 2 audio
              0: timeRange [0.000,+12.000] from trackID 2 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 3 audio
              0: timeRange [0.000,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              1: timeRange [2.000,+1.900] is empty
              2: timeRange [3.900,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              3: timeRange [5.900,+1.900] is empty
              4: timeRange [7.800,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              5: timeRange [9.800,+1.900] is empty
              6: timeRange [11.700,+0.300] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+0.300] speed 1.00
            track 4 audio
              0: timeRange [0.000,+1.950] is empty
              1: timeRange [1.950,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              2: timeRange [3.950,+1.900] is empty
              3: timeRange [5.850,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
              4: timeRange [7.850,+1.900] is empty
              5: timeRange [9.750,+2.000] from trackID 1 of asset bed.mp3 sourceTimeRange [0.000,+2.000] speed 1.00
            video composition renderSize 1080x1080 frameDuration 1/30 background #000000ff
              instruction [0.000,+12.000]
                layer trackID 1 transform [0.56 0.00 0.00 0.56 0.00 236.25] at 0.000
            audio mix
              trackID 2 volume 1.00 (default)
              trackID 3 volume ramp [0.000,+0.250] 0.00 -> 0.00, ramp [0.250,+0.250] 0.00 -> 0.01, ramp [0.500,+0.250] 0.01 -> 0.02, ramp [0.750,+0.250] 0.02 -> 0.03, ramp [1.000,+0.250] 0.03 -> 0.05, ramp [1.250,+0.250] 0.05 -> 0.07, ramp [1.500,+0.250] 0.07 -> 0.10, ramp [1.750,+0.200] 0.10 -> 0.12, ramp [1.950,+0.050] 0.12 -> 0.00, ramp [3.900,+0.050] 0.00 -> 0.13, ramp [5.850,+0.050] 0.13 -> 0.00, ramp [7.800,+0.050] 0.00 -> 0.13, ramp [9.000,+0.375] 0.13 -> 0.08, ramp [9.375,+0.375] 0.08 -> 0.05, ramp [9.750,+0.050] 0.05 -> 0.00, ramp [11.700,+0.050] 0.00 -> 0.00, ramp [11.750,+0.250] 0.00 -> 0.00
              trackID 4 volume ramp [0.000,+0.250] 0.00 -> 0.00, ramp [0.250,+0.250] 0.00 -> 0.01, ramp [0.500,+0.250] 0.01 -> 0.02, ramp [0.750,+0.250] 0.02 -> 0.03, ramp [1.000,+0.250] 0.03 -> 0.05, ramp [1.250,+0.250] 0.05 -> 0.07, ramp [1.500,+0.250] 0.07 -> 0.10, ramp [1.750,+0.200] 0.10 -> 0.12, ramp [1.950,+0.050] 0.00 -> 0.13, ramp [3.900,+0.050] 0.13 -> 0.00, ramp [5.850,+0.050] 0.00 -> 0.13, ramp [7.800,+0.050] 0.13 -> 0.00, ramp [9.750,+0.050] 0.00 -> 0.05, ramp [9.800,+0.325] 0.05 -> 0.03, ramp [10.125,+0.375] 0.03 -> 0.02, ramp [10.500,+0.375] 0.02 -> 0.01, ramp [10.875,+0.375] 0.01 -> 0.00, ramp [11.250,+0.375] 0.00 -> 0.00, ramp [11.625,+0.075] 0.00 -> 0.00, ramp [11.700,+0.050] 0.00 -> 0.00

            """),
        "voiceover.yaml": ("input.voiceover.mp4", """
            composition duration 6.000
            track 1 video
              0: timeRange [0.000,+6.000] from trackID 1 of asset input.mov sourceTimeRange [0.000,+6.000] speed 1.00
            track 2 audio
              0: timeRange [0.000,+0.500] from trackID 2 of asset input.mov sourceTimeRange [0.000,+0.500] speed 1.00
              1: timeRange [0.500,+3.000] is empty
              2: timeRange [3.500,+0.100] from trackID 2 of asset input.mov sourceTimeRange [3.500,+0.100] speed 1.00
              3: timeRange [3.600,+1.200] is empty
              4: timeRange [4.800,+1.200] is empty
            track 3 audio
              0: timeRange [0.000,+0.200] is empty
              1: timeRange [0.200,+1.000] from trackID 1 of asset whoosh.m4a sourceTimeRange [0.000,+1.000] speed 1.00
            track 4 audio
              0: timeRange [0.000,+0.500] is empty
              1: timeRange [0.500,+3.000] from trackID 1 of asset voiceover.m4a sourceTimeRange [0.000,+3.000] speed 1.00
            track 5 audio
              0: timeRange [0.000,+3.600] is empty
              1: timeRange [3.600,+1.200] from trackID 1 of asset voiceover.m4a sourceTimeRange [0.000,+1.200] speed 1.00
            track 6 audio
              0: timeRange [0.000,+4.800] is empty
              1: timeRange [4.800,+1.200] from trackID 1 of asset bed.mp3 sourceTimeRange [2.000,+1.200] speed 1.00
            track 7 audio
              0: timeRange [0.000,+4.700] is empty
              1: timeRange [4.700,+1.000] from trackID 1 of asset whoosh.m4a sourceTimeRange [0.000,+1.000] speed 1.00
            video composition renderSize 1920x1080 frameDuration 1/30 background #000000ff
              instruction [0.000,+6.000]
                layer trackID 1 transform identity at 0.000
            audio mix
              trackID 2 volume 1.00 (default)
              trackID 3 volume 0.50 at 0.200
              trackID 4 volume ramp [0.500,+0.006] 0.00 -> 0.01, ramp [0.506,+0.006] 0.01 -> 0.05, ramp [0.513,+0.006] 0.05 -> 0.11, ramp [0.519,+0.006] 0.11 -> 0.20, ramp [0.525,+0.006] 0.20 -> 0.31, ramp [0.531,+0.006] 0.31 -> 0.45, ramp [0.538,+0.006] 0.45 -> 0.61, ramp [0.544,+0.006] 0.61 -> 0.79, ramp [3.300,+0.025] 0.79 -> 0.53, ramp [3.325,+0.025] 0.53 -> 0.34, ramp [3.350,+0.025] 0.34 -> 0.19, ramp [3.375,+0.025] 0.19 -> 0.10, ramp [3.400,+0.025] 0.10 -> 0.04, ramp [3.425,+0.025] 0.04 -> 0.01, ramp [3.450,+0.025] 0.01 -> 0.00, ramp [3.475,+0.025] 0.00 -> 0.00
              trackID 5 volume 1.00 (default); pitch -5 semitones
              trackID 6 volume ramp [4.800,+0.038] 0.00 -> 0.02, ramp [4.838,+0.038] 0.02 -> 0.06, ramp [4.875,+0.038] 0.06 -> 0.14, ramp [4.913,+0.038] 0.14 -> 0.25, ramp [4.950,+0.038] 0.25 -> 0.39, ramp [4.988,+0.038] 0.39 -> 0.56, ramp [5.025,+0.038] 0.56 -> 0.77, ramp [5.063,+0.038] 0.77 -> 1.00, ramp [5.500,+0.063] 1.00 -> 0.67, ramp [5.563,+0.063] 0.67 -> 0.42, ramp [5.625,+0.063] 0.42 -> 0.24, ramp [5.688,+0.063] 0.24 -> 0.13, ramp [5.750,+0.063] 0.13 -> 0.05, ramp [5.813,+0.063] 0.05 -> 0.02, ramp [5.875,+0.063] 0.02 -> 0.00, ramp [5.938,+0.063] 0.00 -> 0.00
              trackID 7 volume 0.71 at 4.700; pitch +7 semitones

            """),
        "reel-with-transitions.yaml": ("input.reel.mp4", """
            composition duration 16.000
            track 1 video
              0: timeRange [0.000,+3.000] from trackID 1 of asset intro.mp4 sourceTimeRange [0.000,+3.000] speed 1.00
              1: timeRange [3.000,+11.000] is empty
              2: timeRange [14.000,+2.000] from trackID 1 of asset outro.mp4 sourceTimeRange [0.000,+2.000] speed 1.00
            track 2 video
              0: timeRange [0.000,+2.500] is empty
              1: timeRange [2.500,+12.000] from trackID 1 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 3 audio
              0: timeRange [0.000,+3.000] from trackID 2 of asset intro.mp4 sourceTimeRange [0.000,+3.000] speed 1.00
            track 4 audio
              0: timeRange [0.000,+2.500] is empty
              1: timeRange [2.500,+12.000] from trackID 2 of asset input.mov sourceTimeRange [0.000,+12.000] speed 1.00
            track 5 audio
              0: timeRange [0.000,+14.000] is empty
              1: timeRange [14.000,+2.000] from trackID 2 of asset outro.mp4 sourceTimeRange [0.000,+2.000] speed 1.00
            video composition renderSize 1080x1920 frameDuration 1/30 background #000000ff
              instruction [0.000,+2.500]
                layer trackID 1 transform identity at 0.000
              instruction [2.500,+0.500]
                layer trackID 1 opacity ramp [2.500,+0.500] 1.00 -> 0.00; transform identity at 2.500
                layer trackID 2 transform [1.78 0.00 0.00 1.78 -1166.67 0.00] at 2.500
              instruction [3.000,+11.000]
                layer trackID 2 transform [1.78 0.00 0.00 1.78 -1166.67 0.00] at 3.000
              instruction [14.000,+0.500]
                layer trackID 2 opacity ramp [14.000,+0.500] 1.00 -> 0.00; transform [1.78 0.00 0.00 1.78 -1166.67 0.00] at 14.000
                layer trackID 1 transform identity at 14.000
              instruction [14.500,+1.500]
                layer trackID 1 transform identity at 14.500
            audio mix
              trackID 3 volume ramp [2.500,+0.500] 1.00 -> 0.00
              trackID 4 volume ramp [2.500,+0.500] 0.00 -> 1.00, ramp [14.000,+0.500] 1.00 -> 0.00
              trackID 5 volume ramp [14.000,+0.500] 0.00 -> 1.00

            """),
    ]

    @Test(arguments: ["social-vertical.yaml", "watermark-only.yaml", "slomo-highlight.yaml", "podcast-clip.yaml", "reel-with-transitions.yaml",
                      "voiceover.yaml"])
    func exampleBuildsTheExpectedComposition(name: String) throws {
        let built = try CompositionBuilder(recipe: try exampleRecipe(name), probe: name == "voiceover.yaml" ? voiceoverProbe : probe,
                                           levels: FixedLevels())
            .build(input: "/inbox/input.mov", date: Date(timeIntervalSince1970: 0))
        let expected = try #require(Self.expected[name])
        #expect(built.outputFilename == expected.filename)
        #expect(describe(built) == expected.description)
        #expect(built.composition.validate().isEmpty)
        #expect(built.videoComposition.validate(for: built.composition).isEmpty)
        #expect(built.audioMix.invalidTrackIDs(for: built.composition).isEmpty)
    }

    @Test func overlaysArePlacedInOutputPixels() throws {
        let social = try CompositionBuilder(recipe: try exampleRecipe("social-vertical.yaml"), probe: probe, levels: FixedLevels()).build(input: "/inbox/input.mov")
        let logo = try #require(social.overlays.first)
        #expect(logo.content == .image(path: AssetResolver.realPath((shippedAssetsDirectory as NSString).appendingPathComponent("logo.png"))!))
        #expect(logo.anchor == .bottomRight && logo.margin == 43.2 && logo.width == 162)   // 4% of 1080, 15% of 1080
        #expect(logo.timeRange == TimeRange(start: .zero, duration: 12))
        #expect(logo.opacity.value(at: 0) == 0 && logo.opacity.value(at: 6) == 0.8 && logo.opacity.value(at: 12) == 0)
        // A 162x81 logo pinned bottom-right with a 43.2 px margin on a 1080x1920 canvas.
        let frame = logo.frame(contentSize: Size(width: 162, height: 81), renderSize: PixelSize(width: 1080, height: 1920))
        #expect(abs(frame.x - (1080 - 43.2 - 162)) < 1e-9 && abs(frame.y - (1920 - 43.2 - 81)) < 1e-9)
        #expect(frame.width == 162 && frame.height == 81)

        var episodes = probe
        episodes.table["ep12.mov"] = TableProbe.clip("ep12.mov", seconds: 20)
        let podcast = try CompositionBuilder(recipe: try exampleRecipe("podcast-clip.yaml"), probe: episodes, levels: FixedLevels()).build(input: "/inbox/ep12.mov")
        let lowerThird = try #require(podcast.overlays.first)
        guard case let .text(text, font, size, color) = lowerThird.content else { Issue.record("not text"); return }
        #expect(text == "The ACME Show — episode ep12")
        #expect(font.hasSuffix("DejaVuSans.ttf") && FileManager.default.fileExists(atPath: font))
        #expect(size == 54 && color == .white)
        #expect(lowerThird.timeRange == TimeRange(start: .zero, duration: 6))
        #expect(podcast.music?.duck?.depth.decibels == -15 && podcast.music?.trackIDs == [3, 4] && podcast.clipAudioTrackIDs == [2])
    }
}

@Suite struct CompositionBuilderTests {
    static func build(_ yaml: String, _ media: [ProbedMedia], input: String = "clip.mov") throws -> BuiltComposition {
        let recipe = try RecipeLoader().load(yaml: yaml, file: "test.yaml")
        return try CompositionBuilder(recipe: recipe, probe: TableProbe(table: Dictionary(uniqueKeysWithValues: media.map { ($0.path, $0) })), levels: FixedLevels())
            .build(input: input)
    }

    @Test func rotatedSourceAtSourceSizeRendersPortraitWithRotationAndTranslation() throws {
        let built = try Self.build("version: 1\noutput: { size: source }\n", [TableProbe.clip("clip.mov", seconds: 2, quarterTurns: 1)])
        #expect(built.videoComposition.renderSize == PixelSize(width: 1080, height: 1920))
        let layer = try #require(built.videoComposition.instructions.first?.layerInstructions.first)
        let transform = layer.transform.value(at: 0)
        // The iPhone portrait preferredTransform: 90° clockwise, then shifted right by the height.
        #expect(transform == AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        #expect(transform.apply(to: Point(x: 0, y: 0)) == Point(x: 1080, y: 0))
        #expect(transform.apply(to: Point(x: 1920, y: 1080)) == Point(x: 0, y: 1920))
    }

    @Test func orientationOverrideIgnoresTheDisplayMatrix() throws {
        let built = try Self.build("version: 1\norientation: 180\n", [TableProbe.clip("clip.mov", seconds: 2, quarterTurns: 1)])
        #expect(built.videoComposition.renderSize == PixelSize(width: 1920, height: 1080))
        #expect(built.videoComposition.instructions[0].layerInstructions[0].transform.value(at: 0)
            == AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: 1920, ty: 1080))
    }

    @Test func frameRateIsTheHighestSourceRateCappedAt60() throws {
        let fast = try Self.build("version: 1\n", [TableProbe.clip("clip.mov", seconds: 2, fps: 240)])
        #expect(fast.videoComposition.frameDuration == MediaTime(value: 1, timescale: 60))
        let ntsc = try Self.build("version: 1\noutput: { fps: 30000/1001 }\n", [TableProbe.clip("clip.mov", seconds: 2)])
        #expect(ntsc.videoComposition.frameDuration == MediaTime(value: 1001, timescale: 30000))
    }

    /// An interlaced clip's sources carry its field order to the render — the renderer
    /// deinterlaces exactly what the frame grid was given the field rate for — and a
    /// progressive clip's carry none.
    @Test func interlacedClipsCarryTheirFieldOrderToTheRender() throws {
        var dv = TableProbe.clip("clip.mov", seconds: 2, width: 720, height: 576, fps: 25)
        dv.video?.fieldOrder = .bottomFirst
        func videoSources(_ built: BuiltComposition) -> [SourceTrack] {
            built.composition.tracks(of: .video).flatMap(\.segments).compactMap { $0.source?.track }
        }
        let deinterlaced = try Self.build("version: 1\n", [dv])
        #expect(deinterlaced.videoComposition.frameDuration == MediaTime(value: 1, timescale: 50))
        #expect(!videoSources(deinterlaced).isEmpty && videoSources(deinterlaced).allSatisfy { $0.fieldOrder == .bottomFirst })
        let woven = try Self.build("version: 1\noutput: { deinterlace: off }\n", [dv])
        #expect(woven.videoComposition.frameDuration == MediaTime(value: 1, timescale: 25))
        let progressive = try Self.build("version: 1\n", [TableProbe.clip("clip.mov", seconds: 2, fps: 25)])
        #expect(progressive.videoComposition.frameDuration == MediaTime(value: 1, timescale: 25))
        #expect(!videoSources(progressive).isEmpty && videoSources(progressive).allSatisfy { $0.fieldOrder == nil })
    }

    @Test func pushAndWipeTransitionsRampTransformAndCrop() throws {
        let clips = [TableProbe.clip("a.mov", seconds: 3, width: 320, height: 240), TableProbe.clip("b.mov", seconds: 3, width: 320, height: 240)]
        let yaml = { (kind: String) in "version: 1\noutput: { size: 320x240 }\nclips: [ { source: \"{input}\" }, { source: \"{input}\" } ]\ntransition: { kind: \(kind), duration: 1 }\n" }
        let push = try Self.build(yaml("push"), clips, input: "a.mov")
        let pushInstruction = push.videoComposition.instructions[1]
        #expect(pushInstruction.timeRange == TimeRange(start: 2, duration: 1))
        let (from, to) = (pushInstruction.layerInstructions[0], pushInstruction.layerInstructions[1])
        #expect(from.transform.value(at: t("2.5")).tx == -160 && to.transform.value(at: t("2.5")).tx == 160)
        #expect(from.transform.value(at: 3).tx == -320 && to.transform.value(at: 3) == .identity)
        let wipe = try Self.build(yaml("wipe"), clips, input: "a.mov")
        let crop = wipe.videoComposition.instructions[1].layerInstructions[0].cropRectangle
        #expect(crop.value(at: t("2.5")) == Rect(x: 0, y: 0, width: 160, height: 240))
        #expect(wipe.composition.duration == 5)
    }

    @Test func errorsOnlyMediaCanRevealPointIntoTheRecipe() throws {
        let clip = TableProbe.clip("clip.mov", seconds: 4)
        #expect(throws: CompositionBuildError.recipe(RecipeError("trim [1.000s, 9.000s] is outside the clip clip.mov, which lasts 4.000s",
                                                                 at: SourceLocation(file: "test.yaml", line: 3, column: 11)))) {
            try Self.build("version: 1\nclips:\n  - trim: [1, 9]\n", [clip])
        }
        #expect(throws: CompositionBuildError.recipe(RecipeError("transition.duration 3.000s is too long for clip 2 (2.000s): it needs at least 3.000s",
                                                                 at: SourceLocation(file: "test.yaml", line: 3, column: 13)))) {
            try Self.build("version: 1\nclips: [ { source: \"{input}\" }, { source: \"{input}\", trim: [0, 2] } ]\ntransition: { kind: wipe, duration: 3 }\n", [clip])
        }
        #expect(throws: CompositionBuildError.media(path: "missing.mov", reason: "not a media file: missing.mov")) {
            try Self.build("version: 1\n", [clip], input: "missing.mov")
        }
        let silent = ProbedMedia(path: "clip.mov", duration: 4, audio: .init(trackID: 1, timeRange: TimeRange(start: .zero, duration: 4)))
        #expect(throws: CompositionBuildError.media(path: "clip.mov", reason: "has no video track")) {
            try Self.build("version: 1\n", [silent])
        }
    }

    @Test func mutedAudioAndVarispeedReachTheAudioMix() throws {
        let clip = TableProbe.clip("clip.mov", seconds: 4)
        let muted = try Self.build("version: 1\noriginal_audio: mute\n", [clip])
        #expect(muted.composition.tracks(of: .audio).isEmpty)
        let tape = try Self.build("version: 1\nclips:\n  - audio: varispeed\n    speed: [{ range: [1, 2], rate: 0.5 }]\n", [clip])
        #expect(tape.audioMix.parameters(for: 2)?.timePitchAlgorithm == .varispeed)
        #expect(tape.composition.track(2)?.segments.map { $0.speed } == [1, 0.5, 1])
        #expect(tape.composition.duration == 5)
    }
}

/// Exact seconds from a decimal literal.
func t(_ text: String) -> MediaTime { MediaTime(exactly: text)! }
