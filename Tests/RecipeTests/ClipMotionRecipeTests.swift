import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `clips[].transform` and `clips[].ken_burns`: their mistakes at line and column, and
/// the transform ramps they build.
@Suite struct ClipMotionRecipeTests {
    @Test func impossibleTransformsAreRefusedWhereWritten() {
        #expect(problems("""
        version: 1
        clips:
          - transform:
              - { at: 3 }
              - { at: 4, scale: 0 }
              - { at: 5, rotate: 1e9 }
              - { at: 6, move: [1, 2, 3] }
              - { at: 7, move: ["-5000%", 0] }
              - { at: 8, scale: .nan }
              - { at: 2 }
              - { scale: 2 }
        """) == [
            "5:25: clips[0].transform[1].scale must be between 0.01 and 100 (got 0)",
            "6:26: clips[0].transform[2].rotate must be between -3600 and 3600 (got 1000000000)",
            "7:24: clips[0].transform[3].move must be [x, y] (got 3 values)",
            "8:25: clips[0].transform[4].move[0] must be between -32768px and 32768px or -1000% and 1000% (got -5000%)",
            "9:25: clips[0].transform[5].scale must be a number, got '.nan'",
            "10:15: clips[0].transform[6].at 2.000s must come after the previous keyframe (3.000s)",
            "11:9: clips[0].transform[7] needs at: TIME (from the clip's start)",
        ])
    }

    @Test func kenBurnsNeedsTwoRectanglesWithSidesAndNoTransform() {
        #expect(problems("""
        version: 1
        clips:
          - ken_burns: { from: [0, 0, 10, 10] }
          - ken_burns: { from: [0, 0, 0, 10], to: [0, 0, 10, 10] }
          - ken_burns: { from: [0, 0, 10], to: [0, 0, 10, 10] }
          - ken_burns: { from: [0, 0, 10, 10], to: [0, 0, 10, 10] }
            transform: [ { at: 0 } ]
        """) == [
            "3:16: clips[0].ken_burns needs from: [x, y, width, height] and to: [x, y, width, height]",
            "4:31: clips[1].ken_burns.from[2] must be more than 0 (a crop needs a width and a height)",
            "5:24: clips[2].ken_burns.from must be [x, y, width, height] (got 3 values)",
            "6:16: clips[3] takes ken_burns or transform, not both",
        ])
    }

    @Test func transformKeyframesRampTheLayerComponentWise() throws {
        let clip = TableProbe.clip("clip.mov", seconds: 6, width: 640, height: 360)
        let built = try CompositionBuilderTests.build("""
        version: 1
        output: { size: 640x360 }
        clips:
          - transform: [ { at: 1 }, { at: 3, scale: 2, rotate: 90, move: [10, "10%"] } ]
        """, [clip])
        let ramp = built.videoComposition.instructions[0].layerInstructions[0].transform
        // Held at the first keyframe before it, then halfway at 2 s, then held at the last.
        #expect(ramp.value(at: 0) == .identity && ramp.value(at: 1) == .identity)
        let end = ramp.value(at: 3)
        #expect(abs(end.a) < 1e-9 && abs(end.b - 2) < 1e-9 && abs(end.c + 2) < 1e-9 && abs(end.d) < 1e-9)
        // The output's centre stays put, then moves by (10, 36).
        let centre = end.apply(to: Point(x: 320, y: 180))
        #expect(abs(centre.x - 330) < 1e-9 && abs(centre.y - 216) < 1e-9, "\(centre)")
        let half = ramp.value(at: 2)
        #expect(abs(half.a - 0.5) < 1e-9 && abs(half.b - 1) < 1e-9 && ramp.value(at: 5) == end)
    }

    @Test func kenBurnsGoesFromOneCropFillingTheFrameToTheOther() throws {
        let clip = TableProbe.clip("clip.mov", seconds: 4, width: 640, height: 360)
        let built = try CompositionBuilderTests.build("""
        version: 1
        output: { size: 320x180 }
        clips:
          - ken_burns: { from: [0, 0, "100%", "100%"], to: [320, 0, "50%", "50%"] }
        """, [clip])
        let ramp = built.videoComposition.instructions[0].layerInstructions[0].transform
        // From: the whole 640×360 frame halved into 320×180; to: its top-right quarter whole.
        let start = ramp.value(at: 0), end = ramp.value(at: 4)
        #expect(start.apply(to: Point(x: 640, y: 360)) == Point(x: 320, y: 180))
        #expect(end.apply(to: Point(x: 320, y: 0)) == Point(x: 0, y: 0) && end.apply(to: Point(x: 640, y: 180)) == Point(x: 320, y: 180))
    }

    @Test func motionOutsideTheClipOrTheSourceIsAnErrorAtItsKey() throws {
        let clip = TableProbe.clip("clip.mov", seconds: 4, width: 640, height: 360)
        #expect(throws: CompositionBuildError.recipe(RecipeError("transform keyframe at 5.000s lies outside the clip (4.000s long)",
                                                                 at: SourceLocation(file: "test.yaml", line: 3, column: 35)))) {
            try CompositionBuilderTests.build("version: 1\nclips:\n  - transform: [ { at: 0 }, { at: 5 } ]\n", [clip])
        }
        #expect(throws: CompositionBuildError.recipe(RecipeError("ken_burns.to [600px, 0px, 100px, 100px] lies outside the upright source (640x360)",
                                                                 at: SourceLocation(file: "test.yaml", line: 3, column: 16)))) {
            try CompositionBuilderTests.build("version: 1\nclips:\n  - ken_burns: { from: [0, 0, 10, 10], to: [600, 0, 100, 100] }\n", [clip])
        }
    }
}
