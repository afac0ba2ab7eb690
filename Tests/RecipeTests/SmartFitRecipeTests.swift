import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `fit: smart` in recipes: the keys, their bounds, inheritance into `outputs:`, and how
/// the builder turns a camera path into the clip layer's transform ramp. The analysis
/// is given as a value here (what `SubjectAnalyzer` found is tested on real media in
/// PipelineTests/SmartFitTests), as the sound levels are given to the ducking tests.
@Suite struct SmartFitRecipeTests {
    /// A face at `x` (fraction of the width) in every sample, with a cut at `cut`.
    struct GivenAnalysis: SubjectAnalyzing {
        var x: @Sendable (Double) -> Double
        var cut: Double?
        var seconds: Double
        func analysis(of path: String, subject: SmartFit.Subject, within range: ClosedRange<Double>) throws -> SubjectAnalysis {
            let samples = stride(from: 0.0, to: seconds, by: 0.1).map { t in
                SubjectAnalysis.Sample(time: t, boxes: [SubjectBox(kind: .face, rect: Rect(x: x(t) - 0.03, y: 0.3, width: 0.06, height: 0.1), score: 5)])
            }
            return SubjectAnalysis(samples: samples, cuts: cut.map { [$0] } ?? [], duration: seconds)
        }
    }

    @Test func keysAndDefaults() throws {
        let recipe = try loadRecipe("""
        version: 1
        output: { size: 1080x1920, fit: smart, smart: { subject: faces, smoothness: 0.8 } }
        outputs:
          - { filename: "{name}.a.mp4" }
          - { filename: "{name}.b.mp4", smart: { subject: people } }
          - { filename: "{name}.c.mp4", fit: fill }
        """).get()
        #expect(recipe.output.fit == .smart && recipe.output.smart == SmartFit(subject: .faces, smoothness: 0.8))
        #expect(recipe.outputs.map(\.output.fit) == [.smart, .smart, .fill])
        #expect(recipe.outputs[0].output.smart == SmartFit(subject: .faces, smoothness: 0.8))
        // The keys an entry gives replace those it inherits, the others stay.
        #expect(recipe.outputs[1].output.smart == SmartFit(subject: .people, smoothness: 0.8))
        #expect(try loadRecipe("version: 1\noutput: { fit: smart }\n").get().output.smart == SmartFit(subject: .auto, smoothness: 0.5))
    }

    @Test func badValuesAreErrorsAtTheirPlace() {
        #expect(problems("version: 1\noutput: { fit: smart, smart: { smoothness: 1.5 } }\n")
                == ["2:44: output.smart.smoothness must be between 0 and 1 (got 1.5)"])
        #expect(problems("version: 1\noutput:\n  smart: { subject: cats }\n")
                == ["3:21: output.smart.subject must be one of auto | faces | people | motion (got 'cats')"])
        let unknown = problems("version: 1\noutput:\n  smart: { subjects: faces }\n")
        #expect(unknown.count == 1 && unknown[0].hasPrefix("3:12: ") && unknown[0].contains("subjects"), "\(unknown)")
        for number in ["-0.1", "nan", "1e400", "inf"] {
            let lines = problems("version: 1\noutput: { smart: { smoothness: \(number) } }\n")
            #expect(lines.count == 1 && lines[0].contains("output.smart.smoothness"), "\(number): \(lines)")
        }
    }

    static func built(_ yaml: String, analysis: GivenAnalysis, seconds: Int64 = 6) throws -> BuiltComposition {
        let recipe = try RecipeLoader().load(yaml: yaml, file: "test.yaml")
        let probe = TableProbe(table: ["clip.mov": TableProbe.clip("clip.mov", seconds: seconds, width: 1920, height: 1080)])
        return try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels(), subjects: analysis).build(input: "clip.mov")
    }

    /// Where the layer transform at composition time `t` puts the source point `x`
    /// (fraction of the width, at mid height), in canvas pixels.
    static func canvasX(of x: Double, at t: Double, in built: BuiltComposition) -> Double {
        let instruction = built.videoComposition.instructions.first { $0.timeRange.contains(MediaTime(seconds: t, preferredTimescale: 600)) }!
        let transform = instruction.layerInstructions[0].transform.value(at: MediaTime(seconds: t, preferredTimescale: 600))
        return transform.apply(to: Point(x: x * 1920, y: 540)).x
    }

    @Test func theLayerFollowsThePathAndJumpsAtTheCut() throws {
        let built = try Self.built("version: 1\noutput: { size: 1080x1920, fit: smart }\n",
                                   analysis: GivenAnalysis(x: { $0 < 3 ? 0.2 : 0.8 }, cut: 3, seconds: 6))
        let reframing = try #require(built.reframings.first)
        #expect(reframing.cameraPath.shots.count == 2 && reframing.cameraPath.shots.allSatisfy(\.isStill))
        // The face is at the canvas's centre in each shot (a still shot centres its band).
        #expect(abs(Self.canvasX(of: 0.2, at: 1, in: built) - 540) < 1)
        #expect(abs(Self.canvasX(of: 0.8, at: 4, in: built) - 540) < 1)
        // No move across the cut: a frame before it shows the first shot's window.
        #expect(abs(Self.canvasX(of: 0.2, at: 2.99, in: built) - 540) < 1)
        #expect(abs(Self.canvasX(of: 0.8, at: 3.0, in: built) - 540) < 1)
    }

    @Test func aTrimmedSlowedClipMapsSourceTimes() throws {
        // Source 2...6 s, its 3...5 s at half speed: composition 0...1 s is source 2...3,
        // 1...5 s is source 3...5, 5...6 s source 5...6. The face walks from 0.2 to 0.8
        // between 2 and 5 s of source.
        let built = try Self.built("""
        version: 1
        output: { size: 1080x1920, fit: smart }
        clips: [ { source: "{input}", trim: [2, 6], speed: [ { range: [3, 5], rate: 0.5 } ] } ]
        """, analysis: GivenAnalysis(x: { t in min(0.8, max(0.2, 0.2 + (t - 2) / 3 * 0.6)) }, cut: nil, seconds: 8), seconds: 8)
        let path = try #require(built.reframings.first).cameraPath
        for (composition, source) in [(0.5, 2.5), (2.0, 3.5), (4.0, 4.5), (5.5, 5.5)] {
            let expected = path.centre(at: source).x
            #expect(abs(Self.canvasX(of: expected, at: composition, in: built) - 540) < 1.5, "at \(composition) s")
        }
    }

    @Test func aClipThatMovesItselfKeepsItsMotion() throws {
        let built = try Self.built("""
        version: 1
        output: { size: 1080x1920, fit: smart }
        clips: [ { source: "{input}", ken_burns: { from: [0, 0, 100%, 100%], to: [0, 0, 50%, 50%] } } ]
        """, analysis: GivenAnalysis(x: { _ in 0.9 }, cut: nil, seconds: 6))
        #expect(built.reframings.isEmpty)
    }

    @Test func withoutAnAnalyzerSmartSaysWhy() {
        #expect(throws: CompositionBuildError.self) {
            try CompositionBuilder(recipe: try RecipeLoader().load(yaml: "version: 1\noutput: { fit: smart }\n", file: "t.yaml"),
                                   probe: TableProbe(table: ["clip.mov": TableProbe.clip("clip.mov", seconds: 2)]), levels: FixedLevels())
                .build(input: "clip.mov")
        }
    }
}
