import Foundation
import PropertyBased
import Testing
@testable import DropcutTimeline

/// How `dropcut plan` names a turned layer: the angle and scale read back from the matrix
/// (in the text listing and the SVG's instruction titles), and pixel moves left as matrices.
@Suite struct TurnDescriptionTests {
    /// Timeline's own atan2 (it imports no C) agrees with the C library's everywhere.
    @Test func atan2InDegreesMatchesTheCLibrary() async {
        await propertyCheck(count: 500, input: zip(Gen.double(in: -1000...1000), Gen.double(in: -1000...1000))) { y, x in
            let expected = Foundation.atan2(y, x) * 180 / .pi
            #expect(abs(atan2Degrees(y, x) - expected) < 1e-9, "atan2(\(y), \(x))")
        }
        #expect(atan2Degrees(0, 0) == 0 && atan2Degrees(1, 0) == 90 && atan2Degrees(0, -1) == 180)
    }

    /// Any turn and zoom is described by what made it; quarter turns, mirrors and scales are not.
    @Test func turnsReadBackTheirAngleAndScale() async {
        await propertyCheck(count: 300, input: zip(Gen.double(in: -179...179), Gen.double(in: 0.05...20))) { degrees, scale in
            let r = degrees * .pi / 180
            let t = AffineTransform(a: scale * cos(r), b: scale * sin(r), c: -scale * sin(r), d: scale * cos(r), tx: 5, ty: 7)
            let quarter = abs(degrees.remainder(dividingBy: 90)) < 1e-6
            if quarter { return }
            // A turn so small that the matrix's off-diagonal entries are under 1e-9 (a
            // millionth of a degree at 0.05x) is a pixel move to the compositor
            // (`Orientation.of`): described as its matrix alone, as every pixel move is.
            if abs(t.b) < 1e-9 && abs(t.c) < 1e-9 {
                #expect(t.turnDescription == nil, "\(degrees)° \(scale)x")
                return
            }
            let text = t.turnDescription
            // printf writes an angle that rounds to zero from below as "-0.0"; the listing
            // writes no sign on a zero (`formatFixed`), so neither does the expectation.
            let angle = String(format: "%.1f", degrees) == "-0.0" ? "0.0" : String(format: "%.1f", degrees)
            #expect(text == "\(angle)° \(String(format: "%.2f", scale))x", "\(degrees)° \(scale)x")
            #expect(t.timelineDescription.hasSuffix(" (\(text ?? ""))"))
        }
        for turns in 0..<4 {
            #expect(AffineTransform(quarterTurns: turns).turnDescription == nil)
        }
        #expect(AffineTransform(scaleX: -2, y: 3).turnDescription == nil)
        // A case like the one CI drew (seed-dependent): -0.0000005° at 0.05x, a pixel move.
        let r = -0.0000005 * Double.pi / 180
        #expect(AffineTransform(a: 0.05 * cos(r), b: 0.05 * sin(r), c: -0.05 * sin(r), d: 0.05 * cos(r), tx: 5, ty: 7).turnDescription == nil)
        #expect(AffineTransform(a: 1, b: 0, c: 0.5, d: 1, tx: 0, ty: 0).turnDescription == "0.0° 1.00x1.12")
        // The case CI drew: -0.000001° at 0.057x, just past a pixel move, reads as 0.0°.
        let tiny = -0.000001 * Double.pi / 180, zoom = 0.057295779513082325
        #expect(AffineTransform(a: zoom * cos(tiny), b: zoom * sin(tiny), c: -zoom * sin(tiny), d: zoom * cos(tiny), tx: 5, ty: 7)
            .turnDescription == "0.0° 0.06x")
    }

    /// The SVG's instruction bar names a zooming or turning layer's ramp, and stays silent
    /// for slides (push transitions).
    @Test func svgInstructionTitlesNameZoomsAndTurns() throws {
        var layer = LayerInstruction(trackID: 1)
        let r = 10 * Double.pi / 180
        let turned = AffineTransform(a: 1.2 * cos(r), b: 1.2 * sin(r), c: -1.2 * sin(r), d: 1.2 * cos(r), tx: 0, ty: 0)
        try layer.setTransformRamp(from: .identity, to: turned, range: TimeRange(start: 0, duration: 2))
        var slide = LayerInstruction(trackID: 1)
        try slide.setTransformRamp(from: .identity, to: AffineTransform(translationX: -100, y: 0), range: TimeRange(start: 0, duration: 2))
        let zooming = VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 2), layerInstructions: [layer])
        let sliding = VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 2), layerInstructions: [slide])
        #expect(TimelineSVG.motionDescription(zooming).contains("layer 1 transform ramp"))
        #expect(TimelineSVG.motionDescription(zooming).contains("(10.0° 1.20x)"))
        #expect(TimelineSVG.motionDescription(sliding) == "")
    }
}
