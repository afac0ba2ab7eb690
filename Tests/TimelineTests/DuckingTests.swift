import PropertyBased
import Testing
@testable import DropcutTimeline

/// Ducking envelopes and multiplied volume curves, checked at chosen times and over
/// random activity and random ramps.
@Suite struct DuckingTests {
    let ducking = Ducking(depth: 0.25, attack: t("0.2"), release: t("0.8"), hold: t("0.5"))

    @Test func musicIsDownDuringActivityAndRampsAroundIt() {
        let envelope = ducking.envelope(activity: [range("1", "2"), range("5", "2")], until: 8)
        #expect(envelope.value(at: t("0.5")) == 1)
        #expect(abs(envelope.value(at: t("0.9")) - 0.625) < 1e-12)      // halfway down the attack
        #expect(envelope.value(at: 1) == 0.25 && envelope.value(at: 2) == 0.25 && envelope.value(at: 3) == 0.25)
        #expect(abs(envelope.value(at: t("3.4")) - 0.625) < 1e-12)      // halfway up the release
        #expect(envelope.value(at: t("3.8")) == 1 && envelope.value(at: t("4.7")) == 1)
        #expect(envelope.value(at: 5) == 0.25 && abs(envelope.value(at: t("7.4")) - 0.625) < 1e-12)
        #expect(envelope.value(at: 8) == 1)
    }

    @Test func shortPausesStayDucked() {
        // 0.4 s pause < hold; 0.9 s pause < attack + release: both bridged. 1.5 s: released.
        let activity = [range("1", "1"), range("2.4", "1"), range("4.3", "1"), range("6.8", "1")]
        #expect(ducking.bridged(activity) == [range("1", "4.3"), range("6.8", "1")])
        let envelope = ducking.envelope(activity: activity, until: 10)
        #expect(envelope.value(at: t("2.2")) == 0.25 && envelope.value(at: t("4")) == 0.25)
        #expect(envelope.value(at: t("6.2")) == 1)
    }

    @Test func activityAtTheEdgesIsClipped() {
        let envelope = ducking.envelope(activity: [range("0", "1"), range("9.5", "1")], until: 10)
        #expect(envelope.value(at: 0) == 0.25)                           // no time to attack before 0
        #expect(envelope.value(at: t("9.9")) == 0.25 && envelope.value(at: 10) == 0.25)   // never released
    }

    /// Random activity in 10 ms steps: the envelope stays within [depth, 1], is at depth
    /// throughout every stretch of activity, and back at 1 once a release has run and no
    /// attack has begun.
    @Test func envelopeBoundsOverRandomActivity() async {
        let stretches = zip(Gen.int64(in: 0...900), Gen.int64(in: 1...150)).array(of: 0...8)
        await propertyCheck(count: 300, input: stretches, Gen.int64(in: 0...1000).array(of: 30)) { raw, probes in
            let activity = raw.map { TimeRange(start: MediaTime(value: $0.0, timescale: 100), duration: MediaTime(value: $0.1, timescale: 100)) }
            let end = MediaTime(seconds: 10)
            let envelope = ducking.envelope(activity: activity, until: end)
            for probe in probes {
                let time = MediaTime(value: probe, timescale: 100)
                let value = envelope.value(at: time)
                #expect(value >= 0.25 - 1e-12 && value <= 1 + 1e-12)
                if activity.contains(where: { $0.start <= time && time <= $0.end }) { #expect(value == 0.25, "at \(time)") }
                let near = activity.contains { time >= $0.start - ducking.attack && time <= $0.end + ducking.release }
                let bridged = ducking.bridged(activity).contains { time >= $0.start - ducking.attack && time <= $0.end + ducking.release }
                if !near && !bridged { #expect(value == 1, "at \(time)") }
            }
        }
    }

    /// Two random curves multiplied: the product is exact at every corner of either, and
    /// wherever at most one of them is ramping, exact in between too (to rounding).
    @Test func productOfRandomCurves() async {
        let keyframes = zip(Gen.int64(in: 0...900), Gen.int64(in: 0...100), Gen.int64(in: 0...100), Gen.bool).array(of: 0...5)
        await propertyCheck(count: 300, input: keyframes, keyframes, Gen.int64(in: 0...1000).array(of: 20)) { a, b, probes in
            let left = Self.curve(a), right = Self.curve(b)
            let end = MediaTime(seconds: 10)
            let product = left.multiplied(by: right, until: end)
            let corners = (left.breakpoints(until: end) + right.breakpoints(until: end)).map(\.time)
            for time in corners {
                #expect(abs(product.value(at: time) - left.value(at: time) * right.value(at: time)) < 1e-9, "at \(time)")
            }
            for probe in probes {
                let time = MediaTime(value: probe, timescale: 100)
                if !(Self.ramping(left, at: time) && Self.ramping(right, at: time)) {
                    #expect(abs(product.value(at: time) - left.value(at: time) * right.value(at: time)) < 1e-9, "at \(time)")
                }
            }
        }
    }

    /// Sets and ramps in 10 ms steps, values in [0, 1], skipping those that would overlap.
    static func curve(_ keyframes: [(Int64, Int64, Int64, Bool)]) -> Ramp<Double> {
        var ramp = Ramp<Double>(defaultValue: 1)
        for (start, value, other, isRamp) in keyframes {
            let at = MediaTime(value: start, timescale: 100)
            if isRamp {
                try? ramp.setRamp(from: Double(value) / 100, to: Double(other) / 100, range: TimeRange(start: at, duration: MediaTime(value: 1 + other, timescale: 100)))
            } else {
                try? ramp.set(Double(value) / 100, at: at)
            }
        }
        return ramp
    }

    static func ramping(_ ramp: Ramp<Double>, at time: MediaTime) -> Bool {
        ramp.keyframes.contains {
            if case let .ramp(_, _, range) = $0 { return range.start < time && time < range.end }
            return false
        }
    }
}
