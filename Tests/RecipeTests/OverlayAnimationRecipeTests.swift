import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `overlays[].rotate` and `overlays[].animate`: each mistake at its line and column, and
/// what a valid list becomes on the layer.
@Suite struct OverlayAnimationRecipeTests {
    @Test func mistakesAreReportedWhereTheyAre() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        #expect(problems("""
        version: 1
        overlays:
          - image: logo.png
            rotate: 40000
            animate:
              - property: twirl
                keyframes: [ { at: 0, value: 1 } ]
              - property: opacity
                keyframes: [ { at: 0, value: 2, timing: ease-in }, { at: 0, value: 1, timing: bouncy } ]
                repeat: 0
                autoreverse: maybe
              - property: position
                keyframes: [ { at: 0, value: [0.5] }, { at: 1, value: middle }, { at: 2, value: [0, 1.5] } ]
              - keyframes: []
              - property: scale
                keyframes: [ { at: 1, value: 101 }, { value: 1 } ]
              - property: rotate
                keyframes: [ { at: 0, value: 0 } ]
                repeat: forevr
              - property: rotate
                keyframes: [ { at: 0, value: 0 } ]
                speed: 2
          - image: logo.png
            move: { to: center }
            animate: [ { property: position, keyframes: [ { at: 0, value: center } ] } ]
          - image: logo.png
            animate: { property: rotate }
          - image: logo.png
            animate: [ { property: scale } ]
          - image: logo.png
            animate: [ { property: scale, keyframes: 3 } ]
        """, in: dir) == [
            "4:13: overlay rotate (degrees) must be between -36000 and 36000 (got 40000)",
            "6:19: overlay animation property must be one of opacity | position | scale | rotate | spin (got 'twirl')",
            "9:38: overlay opacity keyframe must be between 0 and 1 (got 2)",
            "9:41: timing paces the way to a keyframe from the one before it; the first keyframe has none",
            "9:66: overlay keyframe at must be after the keyframe before it (0.000s)",
            "9:87: overlay keyframe timing must be one of linear | ease-in | ease-out | ease-in-out | hold | spring (got 'bouncy')",
            "10:17: overlay animation repeat (a count or forever) must be between 1 and 100000 (got 0)",
            "11:22: overlay animation autoreverse must be true or false, got 'maybe'",
            "13:38: overlay position keyframe must be an anchor or [x, y] (got 1 numbers)",
            "13:63: overlay position keyframe must be one of top-left | top | top-right | left | center | right | bottom-left | bottom | bottom-right (got 'middle')",
            "13:93: overlay position keyframe y must be between 0 and 1 (got 1.5)",
            "14:9: overlay animation needs property: opacity, position, scale, rotate or spin",
            "16:38: overlay scale keyframe must be between 0 and 100 (got 101)",
            "16:45: overlay keyframe needs at: TIME and value: ...",
            "19:17: overlay animation repeat (a count or forever) must be a whole number, got 'forevr'",
            "20:19: overlay animate has two rotate animations; keyframes of one property go in one list",
            "22:9: unknown key 'speed' in overlay animation; expected one of: property, keyframes, repeat, autoreverse",
            "25:28: an overlay moves with move or with a position animation, not both",
            "27:14: overlay animate must be a list, got a mapping",
            "29:16: overlay animation needs keyframes: [ { at: 0, value: ... }, ... ]",
            "31:46: overlay animation keyframes must be a list, got '3'",
        ])
    }

    @Test func animationsReachTheLayerWithTheirTimingOnTheSegmentTheyPace() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        let recipe = try loadRecipe("""
        version: 1
        output: { size: 640x360 }
        overlays:
          - image: logo.png
            during: [1, end]
            rotate: 30
            animate:
              - property: rotate
                keyframes: [ { at: 0, value: 0 }, { at: 2, value: 90, timing: ease-in } ]
                repeat: forever
              - property: position
                keyframes: [ { at: 0, value: top-left }, { at: 1, value: [0.25, 0.5], timing: hold } ]
                autoreverse: true
                repeat: 2
        """, in: dir).get()
        let probe = TableProbe(table: ["clip.mp4": TableProbe.clip("clip.mp4", seconds: 10)])
        let layer = try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: "clip.mp4").overlays[0]
        #expect(layer.rotation == 30)
        let rotation = try #require(layer.animation.rotation)
        #expect(rotation.beginTime == 1 && rotation.repeatCount == .forever)
        #expect(rotation.keyframes.map(\.timing) == [.easeIn, .linear])
        #expect(layer.rotation(at: 2) == 30 + 90 * TimingFunction.easeIn.progress(0.5))
        #expect(layer.rotation(at: 3) == 30 && layer.rotation(at: 5) == 30)   // wraps every 2 s from 1 s
        let position = try #require(layer.animation.position)
        #expect(position.repeatCount == .times(2) && position.autoreverses)
        #expect(layer.animation.position?.value(at: MediaTime(value: 19, timescale: 10)) == Point(x: 0, y: 0))   // held
        #expect(layer.animation.position?.value(at: 2) == Point(x: 0.25, y: 0.5))
        #expect(layer.animation.scale == nil && layer.animation.opacity == nil)
    }

    @Test func groupMistakesAreReportedWhereTheyAre() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        #expect(problems("""
        version: 1
        overlays:
          - group:
              - image: logo.png
                group: [ { image: logo.png } ]
                bounds: [5px, 5px]
            bounds: [10px]
          - image: logo.png
            bounds: [10px, 10px]
          - group: []
          - group: [ { image: logo.png } ]
            bounds: [0, 50%]
        """, in: dir) == [
            "4:9: image does not apply to a group; put it on an overlay inside it",
            "7:13: group bounds must be [width, height] (got 1 values)",
            "9:5: bounds applies to groups (group: [ ... ])",
            "10:12: overlay group must hold at least one overlay",
            "12:14: group bounds must be > 0",
        ])
    }

    /// Seed 003's watermark: the group's box at its anchor, its fade on the group, the
    /// children laid out in the box with the logo spinning forever.
    @Test func theSpinningWatermarkExampleBuildsSeed003sLayers() throws {
        let recipe = try exampleRecipe("spinning-watermark.yaml")
        let built = try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: "/inbox/input.mov")
        let group = try #require(built.overlays.first)
        guard case let .group(children, size) = group.content else {
            Issue.record("not a group: \(group.content)")
            return
        }
        #expect(group.timeRange == TimeRange(start: 2, end: 7))
        #expect(group.opacity(at: 2) == 0 && group.opacity(at: MediaTime(value: 9, timescale: 2)) == 0.5 && group.opacity(at: 7) == 1)
        let logo = children[0]
        guard case let .group(captionLines, captionSize) = children[1].content, let caption = captionLines.first else {
            Issue.record("the caption is not a group: \(children[1].content)")
            return
        }
        #expect(children.count == 2 && logo.timeRange == group.timeRange && caption.timeRange == group.timeRange)
        // The caption's box: the root's width and 40 % of its height, faded as one at 0.85.
        #expect(size == Size(width: 480, height: 324) && captionSize.width == 480 && abs(captionSize.height - 129.6) < 1e-9)
        #expect(children[1].opacity(at: 3) == 0.85 && captionLines.count == 2)
        #expect(logo.spin == OverlayLayer.Spin(axis: .y, degrees: 0, distance: 500))
        #expect(logo.spinDegrees(at: 2) == 0 && logo.spinDegrees(at: MediaTime(value: 9, timescale: 2)) == 180 && logo.spinDegrees(at: 7) == 0)
        #expect(logo.spinDegrees(at: MediaTime(value: 33, timescale: 4)) == 90)   // 8.25 s: a quarter into the second turn (past the range; the model wraps regardless)
        // Lengths relative to the box: the logo 40 % of its width, the name 50 % of the
        // caption's height (20 % of the box's).
        let box = PixelSize(width: Int(size.width.rounded()), height: Int(size.height.rounded()))
        #expect(logo.width == 0.4 * size.width)
        if case let .text(_, _, pixelSize, _) = caption.content { #expect(pixelSize == 0.5 * captionSize.height.rounded()) } else { Issue.record("caption") }
        #expect(logo.frame(contentSize: Size(width: 10, height: 10), renderSize: box) == Rect(x: 10, y: 10, width: 10, height: 10))
    }

    /// `bounce`: a spring entrance from the start of `during`; refused next to an
    /// animation of the same property, and for properties it does not bounce.
    @Test func bounceIsASpringEntrance() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        try makeAssets(in: dir)
        #expect(problems("""
        version: 1
        overlays:
          - image: logo.png
            bounce: rotate
          - image: logo.png
            bounce: scale
            animate: [ { property: scale, keyframes: [ { at: 0, value: 1 } ] } ]
        """, in: dir) == [
            "4:13: overlay bounce must be scale or position (got 'rotate')",
            "7:28: bounce already animates scale; drop one of the two",
        ])
        let recipe = try loadRecipe("""
        version: 1
        overlays:
          - image: logo.png
            during: [2, end]
            bounce: scale
          - image: logo.png
            anchor: bottom
            bounce: position
        """, in: dir).get()
        let built = try CompositionBuilder(recipe: recipe, probe: TableProbe(table: ["clip.mp4": TableProbe.clip("clip.mp4", seconds: 6)]),
                                           levels: FixedLevels()).build(input: "clip.mp4")
        let grows = built.overlays[0], drops = built.overlays[1]
        #expect(grows.scale(at: 2) == 0 && grows.scale(at: 4) == 1)
        let peak = MediaTime(seconds: 2 + .pi / (10 * 0.75.squareRoot()), preferredTimescale: 60_000)
        #expect(abs(grows.scale(at: peak) - 1.163) < 0.002, "\(grows.scale(at: peak))")
        let position = try #require(drops.animation.position)
        #expect(position.value(at: 0) == Point(x: 0.5, y: 0) && position.value(at: 2) == Point(x: 0.5, y: 1))
        #expect(position.value(at: peak - 2).y > 1.15)   // overshoots below its place, then settles
    }
}
