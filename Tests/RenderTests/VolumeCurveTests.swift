import PropertyBased
import Testing
import DropcutTimeline
@testable import DropcutRender

/// The per-sample gains the mixer uses agree with the AudioMix volume ramp they come from.
@Suite struct VolumeCurveTests {
    static let rate = 48_000

    @Test func gainsFollowTheRampSampleBySample() throws {
        var ramp = Ramp<Double>(defaultValue: 1)
        try ramp.setRamp(from: 1, to: 0.25, range: TimeRange(start: MediaTime(value: 1, timescale: 2), duration: 1))
        try ramp.set(0.5, at: 2)
        try ramp.setRamp(from: 0.5, to: 1, range: TimeRange(start: 3, duration: MediaTime(value: 1, timescale: 10)))
        let curve = VolumeCurve(ramp, until: 4, sampleRate: Self.rate)
        let count = 4 * Self.rate
        let gains = UnsafeMutablePointer<Float>.allocate(capacity: count)
        defer { gains.deallocate() }
        curve.fill(gains, from: 0, count: count)
        var worst: Float = 0
        for n in stride(from: 0, to: count, by: 7) {
            let expected = Float(ramp.value(at: MediaTime(value: Int64(n), timescale: Int32(Self.rate))))
            worst = max(worst, abs(gains[n] - expected))
        }
        #expect(worst < 1e-5)
        // The step lands on its sample exactly.
        #expect(gains[2 * Self.rate - 1] == 0.25 && gains[2 * Self.rate] == 0.5)
    }

    @Test func blocksAgreeWithOneLongFill() async throws {
        await propertyCheck(count: 100, input: Gen.int(in: 0...(3 * Self.rate)), Gen.int(in: 1...4096)) { start, length in
            var ramp = Ramp<Double>(defaultValue: 0.8)
            try? ramp.setRamp(from: 0.8, to: 0, range: TimeRange(start: 1, duration: 1))
            let curve = VolumeCurve(ramp, until: 4, sampleRate: Self.rate)
            let whole = UnsafeMutablePointer<Float>.allocate(capacity: start + length)
            let part = UnsafeMutablePointer<Float>.allocate(capacity: length)
            defer { whole.deallocate(); part.deallocate() }
            curve.fill(whole, from: 0, count: start + length)
            curve.fill(part, from: Int64(start), count: length)
            for i in 0..<length where whole[start + i] != part[i] {
                Issue.record("sample \(start + i): \(whole[start + i]) vs \(part[i])")
                return
            }
        }
    }
}
