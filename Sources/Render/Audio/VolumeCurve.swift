import DropcutTimeline

/// A track's volume timeline as a polyline over output samples: the corners of an
/// `AudioMix` volume ramp, converted once, so per-sample gains cost an addition each
/// instead of a rational-time evaluation.
struct VolumeCurve: Sendable {
    /// Corners by sample; a step is two corners at one sample (the later one wins there).
    private(set) var points: [(sample: Int64, value: Float)]

    /// The curve of `ramp` from 0 to `end` at `sampleRate`.
    init(_ ramp: Ramp<Double>, until end: MediaTime, sampleRate: Int) {
        points = ramp.breakpoints(until: end).map { point in
            (point.time.ticks(in: Int32(sampleRate)) ?? 0, Float(point.value))
        }
        if points.isEmpty { points = [(0, Float(ramp.defaultValue))] }
    }

    /// Writes the gains of samples `start ..< start + count` to `gains`.
    func fill(_ gains: UnsafeMutablePointer<Float>, from start: Int64, count: Int) {
        guard count > 0 else { return }
        // Walk the corners once: find the piece holding each sample in turn.
        var i = 0
        for n in 0..<count {
            let sample = start + Int64(n)
            while i + 1 < points.count, points[i + 1].sample <= sample { i += 1 }
            if sample < points[i].sample {
                gains[n] = points[i].value
            } else if i + 1 < points.count, points[i + 1].sample > points[i].sample {
                let a = points[i], b = points[i + 1]
                gains[n] = a.value + (b.value - a.value) * Float(sample - a.sample) / Float(b.sample - a.sample)
            } else {
                gains[n] = points[i].value
            }
        }
    }
}
