import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// The animated-overlay keys: move, outline, shadow, frames + fps — decoded into the
/// model, and each mistake reported at its line and column.
@Suite struct OverlayRecipeTests {
    @Test func mistakesAreReportedWhereTheyAre() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        #expect(problems("""
        version: 1
        overlays:
          - image: logo.png
            move: { from: top-left, duration: 2 }
            outline: 2
          - text: "hi"
            move: { to: middle, duration: -1 }
            shadow: { offset: 0 }
          - frames: logo.png
          - frames: missing_%02d.png
            fps: 500
          - image: logo.png
            fps: 12
        """, in: dir) == [
            "4:11: overlay move needs to: ANCHOR (where it ends up)",
            "5:5: outline applies to text overlays, not images",
            "7:17: overlay move to must be one of top-left | top | top-right | left | center | right | bottom-left | bottom | bottom-right (got 'middle')",
            "8:23: overlay shadow offset must be > 0 and at most 100",
            "9:13: overlay frames needs a number pattern such as logo_%02d.png (got \"logo.png\")",
            "10:13: overlay frames missing_%02d.png: no missing_00.png or missing_01.png in the recipe's folder or the asset folders",
            "13:5: fps applies to image sequences (frames: name_%02d.png)",
        ])
    }

    @Test func moveOutlineShadowAndSequencesReachTheLayers() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        for n in 1...3 {
            try FileManager.default.copyItem(atPath: dir.file("logo.png"), toPath: dir.file(String(format: "spin_%02d.png", n)))
        }
        let recipe = try loadRecipe("""
        version: 1
        output: { size: 640x360 }
        overlays:
          - frames: spin_%02d.png
            fps: 8
            anchor: top-left
          - image: logo.png
            move: { from: top-right, to: bottom-left, duration: 2 }
            during: [1, end]
          - text: "caption"
            outline: { width: 1%, color: "#102030" }
            shadow: 3
        """, in: dir).get()
        let probe = TableProbe(table: ["clip.mp4": TableProbe.clip("clip.mp4", seconds: 6)])
        let built = try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: "clip.mp4")
        let sequence = built.overlays[0], moving = built.overlays[1], caption = built.overlays[2]
        guard case let .imageSequence(paths, frameDuration) = sequence.content else {
            Issue.record("not a sequence: \(sequence.content)")
            return
        }
        #expect(paths.map { ($0 as NSString).lastPathComponent } == ["spin_01.png", "spin_02.png", "spin_03.png"])
        #expect(frameDuration == MediaTime(value: 1, timescale: 8))
        // The glide: from the top-right corner at 1 s to the bottom-left at 3 s, halfway at 2 s.
        let motion = try #require(moving.motion)
        #expect(motion.value(at: 1) == Point(x: 1, y: 0))
        #expect(motion.value(at: 2) == Point(x: 0.5, y: 0.5))
        #expect(motion.value(at: 5) == Point(x: 0, y: 1))
        let at2 = moving.frame(contentSize: Size(width: 64, height: 32), renderSize: PixelSize(width: 640, height: 360), at: 2)
        #expect(abs(at2.x + at2.width / 2 - 320) < 1e-9 && abs(at2.y + at2.height / 2 - 180) < 1e-9)
        #expect(caption.textEffects.outlineWidth == 3.6)
        #expect(caption.textEffects.outlineColor == Color(red: 16.0 / 255, green: 32.0 / 255, blue: 48.0 / 255))
        #expect(caption.textEffects.shadowOffset == 3)
    }

    @Test func fontsAreFoundByFileNameOrByFamilyAndStyle() {
        let resolver = AssetResolver(assetDirectories: [])
        for (name, file) in [("DejaVuSans-Bold.ttf", "DejaVuSans-Bold.ttf"), ("DejaVu Sans Bold", "DejaVuSans-Bold.ttf"),
                             ("DejaVu Sans", "DejaVuSans.ttf"), ("dejavu sans mono", "DejaVuSansMono.ttf")] {
            guard case let .success(path) = resolver.resolveFont(name, recipeFile: "/nowhere/r.yaml") else {
                Issue.record("\(name) not found")
                continue
            }
            #expect((path as NSString).lastPathComponent == file, "\(name) -> \(path)")
        }
        guard case .failure = resolver.resolveFont("DejaVu Sans Wide", recipeFile: "/nowhere/r.yaml") else {
            Issue.record("a style that does not exist was found")
            return
        }
    }
}
