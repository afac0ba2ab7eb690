/// Volume curves multiplied together: a music bed's volume is its gain × its fades × its
/// ducking × its loop crossfades, each a curve of its own, set on the track as one ramp.
extension Ramp where Value == Double {
    /// A curve through `points` (time-ordered; a step is two points at one time), linear
    /// between them and holding the last value after them, as `set` and `setRamp` keyframes.
    package init(polyline points: [(time: MediaTime, value: Double)], defaultValue: Double = 1) throws(RampError) {
        self.init(defaultValue: defaultValue)
        var current = defaultValue
        for (a, b) in zip(points, points.dropFirst()) where b.time > a.time {
            if a.value == b.value {
                if current != a.value { try set(a.value, at: a.time) }
            } else {
                try setRamp(from: a.value, to: b.value, range: TimeRange(start: a.time, end: b.time))
            }
            current = b.value
        }
        if let last = points.last, current != last.value { try set(last.value, at: last.time) }
    }

    /// This curve times `other` until `end`: exact at every corner of either curve and
    /// linear between them (where two ramps overlap, the chord of their product — within
    /// a fraction of a dB for the short fades and ducking ramps it is used for).
    package func multiplied(by other: Ramp<Double>, until end: MediaTime) -> Ramp<Double> {
        let times = (breakpoints(until: end).map(\.time) + other.breakpoints(until: end).map(\.time)).sorted()
        var points: [(time: MediaTime, value: Double)] = []
        for (i, time) in times.enumerated() where i == 0 || time != times[i - 1] {
            // Left and right limits at a corner: a step in either curve is a step in the product.
            let left = valueBefore(time) * other.valueBefore(time), right = value(at: time) * other.value(at: time)
            if left != right, time > .zero { points.append((time, left)) }
            points.append((time, right))
        }
        // The corners come from these very curves, so the polyline is valid.
        return (try? Ramp(polyline: points, defaultValue: defaultValue * other.defaultValue)) ?? self
    }

    /// The value just before `time` (differs from `value(at:)` only at a step).
    func valueBefore(_ time: MediaTime) -> Double {
        guard time > .zero else { return value(at: time) }
        for keyframe in keyframes.reversed() where keyframe.start < time {
            if case let .set(v, at) = keyframe, at < time { return v }
            if case let .ramp(from, to, range) = keyframe { return Self.value(from: from, to: to, over: range, at: time) }
        }
        return defaultValue
    }
}
