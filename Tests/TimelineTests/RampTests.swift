import Testing
@testable import DropcutTimeline

@Suite struct RampTests {
    @Test func defaultBeforeTheFirstKeyframe() throws {
        var ramp = Ramp<Double>(defaultValue: 1)
        #expect(ramp.value(at: 5) == 1)
        try ramp.setRamp(from: 0.2, to: 0.8, range: range("2", "2"))
        #expect(ramp.value(at: t("1.999")) == 1)       // default until the ramp starts
        #expect(ramp.value(at: 2) == 0.2)
        #expect(abs(ramp.value(at: 3) - 0.5) < 1e-12)
        #expect(ramp.value(at: 4) == 0.8)               // holds its end value afterwards
        #expect(ramp.value(at: 100) == 0.8)
    }

    @Test func setHoldsUntilTheNextKeyframe() throws {
        var ramp = Ramp<Double>(defaultValue: 1)
        try ramp.set(0.3, at: 1)
        try ramp.set(0.6, at: 3)
        #expect(ramp.value(at: 0) == 1 && ramp.value(at: 1) == 0.3 && ramp.value(at: t("2.9")) == 0.3 && ramp.value(at: 3) == 0.6)
        try ramp.set(0.4, at: 1)   // same time: replaces
        #expect(ramp.value(at: 2) == 0.4)
        #expect(ramp.keyframes.count == 2)
    }

    @Test func betweenRampsTheLastEndValueHolds() throws {
        var ramp = Ramp<Double>(defaultValue: 1)
        try ramp.setRamp(from: 1, to: 0, range: range("0", "2"))
        try ramp.setRamp(from: 0.5, to: 1, range: range("5", "1"))
        #expect(ramp.value(at: 3) == 0)
        #expect(ramp.value(at: 5) == 0.5)
        #expect(ramp.value(at: 7) == 1)
    }

    @Test func overlappingKeyframesAreRefused() throws {
        var ramp = Ramp<Double>(defaultValue: 1)
        try ramp.setRamp(from: 1, to: 0, range: range("2", "2"))
        #expect(throws: RampError.overlapsRamp(existing: range("2", "2"))) { try ramp.set(0.5, at: 3) }
        #expect(throws: RampError.overlapsRamp(existing: range("2", "2"))) { try ramp.setRamp(from: 0, to: 1, range: range("1", "2")) }
        #expect(throws: RampError.overlapsRamp(existing: range("2", "2"))) { try ramp.setRamp(from: 0, to: 1, range: range("2", "1")) }
        #expect(throws: RampError.invalidTimeRange(range("5", "0"))) { try ramp.setRamp(from: 0, to: 1, range: range("5", "0")) }
        #expect(throws: RampError.invalidTime(.invalid)) { try ramp.set(0, at: .invalid) }
        try ramp.set(0.7, at: 4)   // touching the end is fine
        #expect(ramp.value(at: 4) == 0.7)
        #expect(ramp.keyframes.count == 2)
    }

    @Test func transformAndCropRampsInterpolateComponentwise() throws {
        var layer = LayerInstruction(trackID: 1)
        #expect(layer.state(at: 0).transform == .identity && layer.state(at: 0).crop.isInfinite && layer.state(at: 0).opacity == 1)
        // A push: the incoming layer slides from the right edge to the origin.
        try layer.setTransformRamp(from: AffineTransform(translationX: 320, y: 0), to: .identity, range: range("1", "1"))
        #expect(layer.state(at: t("1.5")).transform == AffineTransform(translationX: 160, y: 0))
        // A wipe: the crop grows from nothing to the full frame.
        try layer.setCropRectangleRamp(from: Rect(x: 0, y: 0, width: 0, height: 240),
                                       to: Rect(x: 0, y: 0, width: 320, height: 240), range: range("1", "1"))
        #expect(layer.state(at: t("1.25")).crop == Rect(x: 0, y: 0, width: 80, height: 240))
        try layer.setOpacity(0.5, at: 3)
        #expect(layer.state(at: 3).opacity == 0.5)
    }

    @Test func quarterTurnsAreExact() {
        let p = Point(x: 3, y: 1)
        #expect(AffineTransform(quarterTurns: 1).apply(to: p) == Point(x: -1, y: 3))
        #expect(AffineTransform(quarterTurns: 2).apply(to: p) == Point(x: -3, y: -1))
        #expect(AffineTransform(quarterTurns: -1) == AffineTransform(quarterTurns: 3))
        let fitted = AffineTransform(quarterTurns: 1).concatenating(AffineTransform(translationX: 1080, y: 0))
        #expect(fitted.apply(to: Point(x: 0, y: 0)) == Point(x: 1080, y: 0))
        #expect(fitted.apply(to: Point(x: 1920, y: 1080)) == Point(x: 0, y: 1920))
        let inverse = try! #require(fitted.inverted)
        #expect(inverse.apply(to: Point(x: 0, y: 1920)) == Point(x: 1920, y: 1080))
        #expect(AffineTransform(scaleX: 0, y: 1).inverted == nil)
    }

    @Test func breakpointsDrawTheValueExactly() throws {
        var volume = Ramp<Double>(defaultValue: 1)
        try volume.set(0, at: 0)
        try volume.setRamp(from: 0, to: 1, range: range("8", "2"))
        let points = volume.breakpoints(until: 10).map { ($0.time, $0.value) }
        #expect(points.map(\.0) == [0, 8, 10])
        #expect(points.map(\.1) == [0, 0, 1])
        var stepped = Ramp<Double>(defaultValue: 1)
        try stepped.set(0.5, at: 2)
        let steps = stepped.breakpoints(until: 4)
        #expect(steps.map(\.time) == [0, 2, 2, 4])
        #expect(steps.map(\.value) == [1, 1, 0.5, 0.5])
        // A ramp cut by the end stops at its value there.
        let cut = try { var r = Ramp<Double>(defaultValue: 1); try r.setRamp(from: 1, to: 0, range: range("0", "4")); return r }()
        #expect(cut.breakpoints(until: 2).map(\.value) == [1, 0.5])
    }
}
