import Foundation
import DropcutRecipe
import Testing
import TestSupport
import DropcutTimeline

/// Overlay lengths are bounded by the output they are drawn on (`OverlayLimits`): a text
/// size, an image width or a group's bounds past twice the output's side is a recipe
/// error at its line and column, found by `validate` against `output.size` (or the
/// largest output when the size is the source's).
@Suite struct OverlaySizeRecipeTests {
    private func check(_ overlays: String, output: String = "output: { size: 320x240 }", assets: Bool = true) throws -> [String] {
        let dir = try TemporaryDirectory()
        if assets { try makeAssets(in: dir) }
        return problems("version: 1\n\(output)\noverlays:\n\(overlays)", in: dir)
    }

    @Test func textSizesAreBoundedByTwiceTheOutputHeight() throws {
        #expect(try check("  - text: \"WWWW\"\n    size: 480px\n") == ["(valid)"])
        #expect(try check("  - text: \"WWWW\"\n    size: 481px\n")
                == ["4:5: overlay text size is 481 px; an overlay may be at most 2 times the output's height (480 px)"])
        #expect(try check("  - text: \"WWWW\"\n    size: 32768px\n")
                == ["4:5: overlay text size is 32768 px; an overlay may be at most 2 times the output's height (480 px)"])
        // The size from the source: the largest output (8192) bounds it.
        #expect(try check("  - text: \"WWWW\"\n    size: 16384px\n", output: "") == ["(valid)"])
        #expect(try check("  - text: \"WWWW\"\n    size: 16385px\n", output: "").first?.contains("(16384 px)") == true)
    }

    @Test func imageWidthsAndGroupBoundsAreBoundedByTwiceTheOutput() throws {
        #expect(try check("  - image: logo.png\n    width: 640px\n") == ["(valid)"])
        #expect(try check("  - image: logo.png\n    width: 16000px\n")
                == ["4:5: overlay width is 16000 px; an overlay may be at most 2 times the output's width (640 px)"])
        #expect(try check("  - group:\n      - image: logo.png\n    bounds: [16000px, 100px]\n")
                == ["4:5: overlay group width is 16000 px; an overlay may be at most 2 times the output's width (640 px)"])
        #expect(try check("  - group:\n      - image: logo.png\n    bounds: [100px, 481px]\n")
                == ["4:5: overlay group height is 481 px; an overlay may be at most 2 times the output's height (480 px)"])
        // A child is measured in its group's box (100 % of a 600 px box), and bounded by
        // the output like any overlay.
        #expect(try check("  - group:\n      - image: logo.png\n        width: 100%\n    bounds: [600px, 100px]\n") == ["(valid)"])
        #expect(try check("  - group:\n      - image: logo.png\n        width: 700px\n    bounds: [600px, 100px]\n")
                == ["5:9: overlay width is 700 px; an overlay may be at most 2 times the output's width (640 px)"])
    }

    /// The builder checks the real output size when the recipe's comes from the source.
    @Test func theBuilderChecksAgainstTheSourceSize() throws {
        let dir = try TemporaryDirectory()
        try makeAssets(in: dir)
        let recipe = try loadRecipe("version: 1\noverlays:\n  - text: \"big\"\n    size: 8000px\n", in: dir).get()
        let probe = TableProbe(table: ["clip.mp4": ProbedMedia(
            path: "clip.mp4", duration: 2,
            video: .init(trackID: TrackID(1), timeRange: TimeRange(start: .zero, duration: 2), naturalSize: PixelSize(width: 320, height: 240),
                         frameDuration: MediaTime(value: 1, timescale: 30)))])
        let error = #expect(throws: CompositionBuildError.self) {
            _ = try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: "clip.mp4")
        }
        #expect(error.map { "\($0)" }?.contains("test.yaml:3:5: overlay text size is 8000 px") == true, "\(String(describing: error))")
    }
}
