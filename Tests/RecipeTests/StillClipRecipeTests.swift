import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// Still images as clips (`clips[].duration`): the key's bounds at line and column, the
/// mistakes only a probe reveals (a still without a duration, a trim on a still, a
/// duration on a video) pointing into the recipe, and the composition a still makes — a
/// held segment of the picture, no sound, its duration added to the others'.
@Suite struct StillClipRecipeTests {
    /// A 640x480 picture and a 3 s 1920x1080 clip with sound, by the names the probe answers to.
    static let probe = TableProbe(table: [
        "photo.png": ProbedMedia(path: "photo.png", duration: .zero, video: .stillImage(size: PixelSize(width: 640, height: 480))),
        "clip.mov": TableProbe.clip("clip.mov", seconds: 3),
    ])

    /// A folder holding `photo.png` and `clip.mov` (empty files: the probe is the table)
    /// and the recipe `yaml` as `test.yaml`, built for the input `clip.mov`.
    static func build(_ yaml: String) throws -> BuiltComposition {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        _ = dir.write("photo.png", "")
        _ = dir.write("clip.mov", "")
        let recipe = try loadRecipe(yaml, in: dir).get()
        return try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: dir.file("clip.mov"))
    }

    @Test func durationsOutsideTheirBoundsAreRefusedWhereWritten() {
        #expect(problems("""
        version: 1
        clips:
          - duration: 0
          - duration: -2
          - duration: 14401
          - duration: 1e19
          - duration: "5h"
          - duration: end
          - duration: "04:00:00"
          - duration: "250ms"
        """) == [
            "3:15: clips[0].duration must be more than 0 and at most 4 hours (14400 s) (got 0)",
            "4:15: clips[1].duration must be more than 0 and at most 4 hours (14400 s) (got -2)",
            "5:15: clips[2].duration must be more than 0 and at most 4 hours (14400 s) (got 14401)",
            "6:15: clips[3].duration must be more than 0 and at most 4 hours (14400 s) (got 1e19)",
            "7:15: clips[4].duration must be a time: seconds (2.5), \"2.5s\", \"250ms\" or \"00:02.500\"; got '5h'",
            "8:15: clips[5].duration must be a time: seconds (2.5), \"2.5s\", \"250ms\" or \"00:02.500\"; got 'end'",
        ])
    }

    @Test func durationWithTrimSpeedOrRampIsRefusedAtTheDuration() {
        #expect(problems("""
        version: 1
        clips:
          - { duration: 2, trim: [0, 1] }
          - { duration: 2, speed: [ { range: [0, 1], rate: 0.5 } ] }
          - { duration: 2, ramp: [ { at: 0, rate: 1 }, { at: 1, rate: 0.5 } ] }
        """) == [
            "3:17: clips[0] takes duration (a still image's) or trim (a video's), not both",
            "4:17: clips[1] takes duration (a still image's) or speed (a video's), not both",
            "5:17: clips[2] takes duration (a still image's) or ramp (a video's), not both",
        ])
    }

    @Test func aStillThenAVideoAddTheirDurationsAndTheStillIsSilent() throws {
        let built = try Self.build("""
        version: 1
        clips:
          - { source: photo.png, duration: 2.5 }
          - source: "{input}"
        """)
        #expect(built.composition.duration == MediaTime(value: 55, timescale: 10))
        let still = try #require(built.composition.tracks(of: .video).first?.segments.first)
        #expect(still.isStill && still.source?.track.isStillImage == true)
        #expect(still.target == TimeRange(start: .zero, duration: MediaTime(value: 5, timescale: 2)))
        // The clip's sound is the only audio track, silent (empty) over the picture.
        let audio = built.composition.tracks(of: .audio)
        try #require(audio.count == 1)
        #expect(audio[0].segments.map(\.isEmpty) == [true, false])
        #expect(audio[0].segments[1].target.start == MediaTime(value: 5, timescale: 2))
        // The first clip's size (640x480) is the output's; the clip's rate is the output's.
        #expect(built.videoComposition.renderSize == PixelSize(width: 640, height: 480))
        #expect(built.videoComposition.frameDuration == MediaTime(value: 1, timescale: 30))
        #expect(built.composition.validate().isEmpty)
        #expect(built.videoComposition.validate(for: built.composition).isEmpty)
        let listing = TimelineDescription.text(composition: built.composition)
        #expect(listing.contains("timeRange [0.000,+2.500] from trackID 1 of asset "), "\(listing)")
        #expect(listing.contains("photo.png still image"), "\(listing)")
    }

    @Test func aStillAloneMakesAVideoOnlyCompositionAt30FPS() throws {
        let built = try Self.build("""
        version: 1
        clips: [ { source: photo.png, duration: 2 } ]
        """)
        #expect(built.composition.duration == MediaTime(seconds: 2))
        #expect(built.composition.tracks(of: .audio).isEmpty)
        #expect(built.videoComposition.frameDuration == MediaTime(value: 1, timescale: 30))
    }

    @Test func kenBurnsOnAStillCropsThePicture() throws {
        let built = try Self.build("""
        version: 1
        output: { size: 320x240 }
        clips:
          - source: photo.png
            duration: 2
            ken_burns: { from: [0, 0, "100%", "100%"], to: ["25%", "25%", "50%", "50%"] }
        """)
        let ramp = built.videoComposition.instructions[0].layerInstructions[0].transform
        // From the whole 640x480 picture halved; to its centre quarter at 1:1.
        #expect(ramp.value(at: 0).apply(to: Point(x: 640, y: 480)) == Point(x: 320, y: 240))
        let end = ramp.value(at: 2)
        #expect(end.apply(to: Point(x: 160, y: 120)) == Point(x: 0, y: 0) && end.apply(to: Point(x: 480, y: 360)) == Point(x: 320, y: 240))
    }

    @Test func mistakesOnlyTheProbeRevealsPointIntoTheRecipe() throws {
        func failure(_ yaml: String) -> String {
            do {
                _ = try Self.build(yaml)
                return "(built)"
            } catch let error as CompositionBuildError {
                guard case let .recipe(recipeError) = error, let diagnostic = recipeError.diagnostics.first else { return "\(error)" }
                return "\(diagnostic.location.line):\(diagnostic.location.column): \(diagnostic.message)"
            } catch {
                return "\(error)"
            }
        }
        #expect(failure("version: 1\nclips:\n  - source: photo.png\n")
                == "3:5: clips[0]: photo.png is a still image (640x480): it needs duration: SECONDS (how long it is shown)")
        #expect(failure("version: 1\nclips:\n  - source: \"{input}\"\n  - source: photo.png\n    trim: [0, 1]\n")
                == "5:11: clips[1].trim: photo.png is a still image, with no time to trim (give it duration: SECONDS)")
        #expect(failure("version: 1\nclips:\n  - source: photo.png\n    speed: [ { range: [0, 1], rate: 0.5 } ]\n")
                == "4:14: clips[0] speed or ramp: photo.png is a still image, with no time to play faster or slower")
        #expect(failure("version: 1\nclips:\n  - source: \"{input}\"\n    duration: 2\n")
                == "4:15: clips[0].duration is for still images: clip.mov is a video (use trim: [start, end])")
    }

    /// The identity recipe (no clips) on a dropped picture: nothing in a recipe to point
    /// at, so the error names the picture.
    @Test func aDroppedPictureWithoutARecipeClipNamesThePicture() throws {
        let still = TableProbe(table: ["photo.png": try #require(Self.probe.table["photo.png"])])
        #expect(throws: CompositionBuildError.media(path: "photo.png", reason: "is a still image (640x480): give it a recipe clip with duration: SECONDS")) {
            try CompositionBuilder(recipe: Recipe(name: "identity"), probe: still, levels: FixedLevels()).build(input: "photo.png")
        }
    }
}
