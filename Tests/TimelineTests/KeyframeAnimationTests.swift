import Foundation
import PropertyBased
import Testing
@testable import DropcutTimeline

/// Keyframe animations: the named timing curves, repeats and autoreverse.
@Suite struct KeyframeAnimationTests {
    /// The curve drawn independently: the Bézier sampled densely by its parameter, x
    /// looked up by bisection in the table and y interpolated — no Newton involved.
    static func referenceProgress(_ timing: TimingFunction, _ x: Double) -> Double {
        guard let (x1, y1, x2, y2) = timing.controlPoints else { return timing == .linear ? x : (x >= 1 ? 1 : 0) }
        let n = 20_000
        func point(_ i: Int) -> (Double, Double) {
            let s = Double(i) / Double(n), u = 1 - s
            return (3 * u * u * s * x1 + 3 * u * s * s * x2 + s * s * s, 3 * u * u * s * y1 + 3 * u * s * s * y2 + s * s * s)
        }
        var low = 0, high = n
        while high - low > 1 {
            let mid = (low + high) / 2
            if point(mid).0 <= x { low = mid } else { high = mid }
        }
        let a = point(low), b = point(high)
        let f = b.0 > a.0 ? (x - a.0) / (b.0 - a.0) : 0
        return a.1 + (b.1 - a.1) * f
    }

    @Test(arguments: [TimingFunction.linear, .easeIn, .easeOut, .easeInEaseOut])
    func sampledPositionsFollowTheNamedCurveWithinAPixel(_ timing: TimingFunction) throws {
        // A glide across 1920 px over 2 s, sampled every 1/600 s.
        let animation = try KeyframeAnimation<Point>(keyframes: [.init(time: .zero, value: .zero, timing: timing),
                                                                 .init(time: 2, value: Point(x: 1920, y: 0))])
        var worst = 0.0
        for tick in 0...1200 {
            let x = animation.value(at: MediaTime(value: Int64(tick), timescale: 600)).x
            worst = max(worst, abs(x - 1920 * Self.referenceProgress(timing, Double(tick) / 1200)))
        }
        #expect(worst < 1, "\(timing): \(worst) px")
        #expect(worst < 0.01, "\(timing): \(worst) px")   // in fact far closer
    }

    @Test func theCurvesHaveTheirShape() {
        #expect(TimingFunction.easeIn.progress(0.5) < 0.5 && TimingFunction.easeOut.progress(0.5) > 0.5)
        #expect(abs(TimingFunction.easeInEaseOut.progress(0.5) - 0.5) < 1e-9)
        for timing in TimingFunction.allCases {
            #expect(timing.progress(0) == 0 && timing.progress(1) == 1)
        }
        #expect(TimingFunction.hold.progress(0.999) == 0)
    }

    @Test func progressIsMonotonicAndSolvesX() async {
        await propertyCheck(count: 500, input: Gen.double(in: 0...1), Gen.double(in: 0...1)) { a, b in
            for timing in [TimingFunction.easeIn, .easeOut, .easeInEaseOut] {
                let (lo, hi) = (min(a, b), max(a, b))
                #expect(timing.progress(lo) <= timing.progress(hi) + 1e-12)
                let (x1, _, x2, _) = timing.controlPoints!
                #expect(abs(TimingFunction.bezier(TimingFunction.solve(x: a, x1: x1, x2: x2), x1, x2) - a) < 1e-9)
            }
        }
    }

    static let ticks = Gen.int64(in: 0...6_000)

    @Test func repeatForeverWrapsAtThePeriodExactly() async throws {
        let animation = try KeyframeAnimation<Double>(keyframes: [.init(time: .zero, value: 0, timing: .easeIn),
                                                                  .init(time: MediaTime(value: 7, timescale: 10), value: 3, timing: .easeOut),
                                                                  .init(time: MediaTime(value: 13, timescale: 10), value: 1)],
                                                      beginTime: 2, repeatCount: .forever)
        await propertyCheck(count: 300, input: Self.ticks, Gen.int64(in: 1...1000)) { tick, cycles in
            let phase = MediaTime(value: tick % 1300, timescale: 1000)
            let later = animation.beginTime + animation.period.multiplied(by: cycles, dividedBy: 1) + phase
            #expect(animation.value(at: later) == animation.value(at: animation.beginTime + phase))
        }
        // At the period itself the cycle restarts: the first value, not the last.
        #expect(animation.value(at: 2 + MediaTime(value: 13, timescale: 10)) == 0)
        #expect(animation.value(at: 2 + MediaTime(value: 12_999, timescale: 10_000)) > 0.99)
    }

    @Test func autoreverseMirrorsThePass() async throws {
        let animation = try KeyframeAnimation<Double>(keyframes: [.init(time: .zero, value: 10, timing: .easeIn),
                                                                  .init(time: 1, value: 20, timing: .hold),
                                                                  .init(time: 3, value: 50)],
                                                      beginTime: 1, repeatCount: .times(2), autoreverses: true)
        #expect(animation.period == 6)
        await propertyCheck(count: 300, input: Self.ticks) { tick in
            let p = MediaTime(value: tick % 6000, timescale: 2000)   // within one way out
            #expect(animation.value(at: 1 + p) == animation.value(at: 1 + animation.period - p))
            #expect(animation.value(at: 1 + p) == animation.value(at: 1 + animation.period + p))   // second cycle
        }
        #expect(animation.value(at: 3) == 20 && animation.value(at: MediaTime(value: 39_999, timescale: 10_000)) == 20)   // held
        #expect(animation.value(at: 4) == 50 && animation.value(at: 7) == 10)
        // After two cycles the fill holds where the last one ended: back at the start.
        #expect(animation.value(at: 13) == 10 && animation.value(at: 100) == 10)
        #expect(animation.value(at: 0) == 10)   // before the start: the first value
    }

    @Test func aSinglePassHoldsItsLastValue() throws {
        let animation = try KeyframeAnimation<Double>(keyframes: [.init(time: 1, value: 4), .init(time: 2, value: 8)], repeatCount: .times(1))
        #expect(animation.value(at: 0) == 4 && animation.value(at: 1) == 4 && animation.value(at: MediaTime(value: 3, timescale: 2)) == 6)
        #expect(animation.value(at: 2) == 8 && animation.value(at: 50) == 8)
        #expect(animation.description == "4.00 @1.000 linear 8.00 @2.000")
    }

    @Test func badKeyframesAreRefused() {
        #expect(throws: KeyframeAnimation<Double>.Error.noKeyframes) { try KeyframeAnimation<Double>(keyframes: []) }
        #expect(throws: KeyframeAnimation<Double>.Error.invalidTime(1)) {
            try KeyframeAnimation<Double>(keyframes: [.init(time: 1, value: 0), .init(time: 1, value: 1)])
        }
        #expect(throws: KeyframeAnimation<Double>.Error.invalidTime(-1)) { try KeyframeAnimation<Double>(keyframes: [.init(time: -1, value: 0)]) }
        #expect(throws: KeyframeAnimation<Double>.Error.invalidRepeatCount(0)) {
            try KeyframeAnimation<Double>(keyframes: [.init(time: 0, value: 0)], repeatCount: .times(0))
        }
    }
}

/// The spring timing (CASpringAnimation's defaults) behind the `bounce` preset.
@Suite struct SpringTimingTests {
    @Test func theSpringOvershootsBySixteenPercentThenSettles() {
        let spring = TimingFunction.spring
        #expect(spring.progress(0) == 0 && spring.progress(1) == 1)
        // The first peak: at t = π/ωd, 1 + e^(-ζπ/√(1-ζ²)) = 1.163.
        let peakSeconds = Double.pi / (10 * 0.75.squareRoot())
        let peak = spring.progress(peakSeconds / TimingFunction.springSettlingSeconds)
        #expect(abs(peak - (1 + exp(-0.5 * .pi / 0.75.squareRoot()))) < 1e-12 && abs(peak - 1.163) < 0.001)
        let samples = (0...1000).map { spring.progress(Double($0) / 1000) }
        #expect(abs(samples.max()! - peak) < 1e-4)
        // Settled: the last fifth stays within 0.5 % of the end.
        #expect(samples[800...].allSatisfy { abs($0 - 1) < 0.005 })
        #expect(abs(samples[999] - 1) <= 0.001)   // the final jump is at most 0.1 %
    }
}
