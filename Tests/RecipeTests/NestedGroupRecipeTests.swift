import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// Groups in groups, as CALayers hold sublayers holding sublayers: up to
/// `RecipeLimits.maximumGroupDepth` deep and `RecipeLimits.maximumOverlayLayers` overlays
/// in all, each child laid out in its parent's box.
@Suite struct NestedGroupRecipeTests {
    /// `depth` groups, each the only child of the one around it, around one image: the
    /// group `k` levels in (0: the outermost) has its `group` key on line 3 + k, column 4k + 5.
    static func nested(_ depth: Int) -> String {
        var lines = ["version: 1", "overlays:"]
        for level in 0..<depth {
            lines.append(String(repeating: " ", count: 2 + 4 * level) + "- group:")
        }
        lines.append(String(repeating: " ", count: 2 + 4 * depth) + "- image: logo.png")
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func groupsNestEightDeepAndNoDeeper() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        #expect(problems(Self.nested(RecipeLimits.maximumGroupDepth), in: dir) == ["(valid)"])
        #expect(problems(Self.nested(RecipeLimits.maximumGroupDepth + 1), in: dir) == ["11:37: groups nest at most 8 deep (this one is 9 deep)"])
        // Deeper still: said once, at the first group past the bound.
        #expect(problems(Self.nested(12), in: dir) == ["11:37: groups nest at most 8 deep (this one is 9 deep)"])
    }

    /// A group of 256 images is 257 overlays: the 256th image is the one too many.
    @Test func aRecipeHoldsAtMost256Overlays() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        func group(of count: Int) -> String {
            "version: 1\noverlays:\n  - group:\n" + String(repeating: "      - { image: logo.png }\n", count: count)
        }
        #expect(problems(group(of: 255), in: dir) == ["(valid)"])
        #expect(problems(group(of: 256), in: dir) == ["259:9: a recipe holds at most 256 overlays, groups and the overlays inside them counted"])
        #expect(problems(group(of: 300), in: dir) == ["259:9: a recipe holds at most 256 overlays, groups and the overlays inside them counted"])
    }

    /// Group A (half the output) holds group B (half of A's box, turned) holding the logo:
    /// each box measured in the one around it, each group's timing bounding its children's.
    @Test func nestedGroupsLayOutInTheirParentsBox() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        let recipe = try loadRecipe("""
        version: 1
        overlays:
          - group:
              - group:
                  - image: logo.png
                    width: 50%
                    anchor: center
                    during: [0, 5]
                bounds: [50%, 50%]
                anchor: top-left
                margin: 10px
                rotate: 90
                opacity: 0.5
            bounds: [50%, 50%]
            during: [1, 4]
            opacity: 0.5
            animate: [ { property: scale, keyframes: [ { at: 0, value: 2 } ] } ]
        """, in: dir).get()
        let built = try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: "/inbox/input.mov")
        let a = try #require(built.overlays.first)
        guard case let .group(aChildren, aSize) = a.content, let b = aChildren.first,
              case let .group(bChildren, bSize) = b.content, let logo = bChildren.first else {
            Issue.record("not two nested groups: \(built.overlays)")
            return
        }
        // input.mov is 1920x1080: A's box is 960x540, B's 480x270, the logo 240 wide.
        #expect(aSize == Size(width: 960, height: 540) && bSize == Size(width: 480, height: 270) && logo.width == 240)
        #expect(b.margin == 10 && b.rotation == 90 && b.anchor == .topLeft && a.scale(at: 2) == 2)
        #expect(a.timeRange == TimeRange(start: 1, end: 4) && b.timeRange == a.timeRange && logo.timeRange == a.timeRange)
        #expect(a.opacity(at: 2) == 0.5 && b.opacity(at: 2) == 0.5)
    }

    /// The fuzzing mutates the example recipes, so the nested shape reaches it only through
    /// an example that nests a group (recipes/spinning-watermark.yaml).
    @Test func theFuzzedExamplesNestAGroup() throws {
        let recipe = try exampleRecipe("spinning-watermark.yaml")
        let nests = recipe.overlays.contains { overlay in
            guard case let .group(children, _, _) = overlay.content else { return false }
            return children.contains { if case .group = $0.content { true } else { false } }
        }
        #expect(nests)
    }
}
