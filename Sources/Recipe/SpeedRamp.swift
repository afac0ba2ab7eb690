import Timeline

/// Speed keyframes in source time expanded as iPhone slow-motion tracks are: into short
/// segments of stepped speed (50 ms of source or less) where the rate changes, one range
/// where it holds, none where it is 1. Used by recipe `ramp:` keyframes and by the eased
/// edges of an iPhone `.AAE` slow-motion region.
enum SpeedRamp {
    struct Keyframe {
        var at: MediaTime
        var rate: Double
        /// Where the keyframe came from (a recipe line, or the sidecar).
        var location: SourceLocation
    }

    /// The longest step of a ramp, in source time.
    static let step = MediaTime(value: 1, timescale: 20)

    /// The speed ranges of `points` (in increasing time), the rate moving linearly from
    /// one keyframe to the next.
    static func ranges(_ points: [Keyframe]) -> [Recipe.SpeedRange] {
        typealias SpeedRange = Recipe.SpeedRange
        typealias ClosedTimeRange = Recipe.ClosedTimeRange
        // Steps are laid on a 1/48000 s grid, in source time and in output time, each
        // step's rate being exactly its source length over its output length: the
        // composition's times then stay on one timescale (no rounding, however many
        // steps) and land on audio samples.
        let grid: Int32 = 48_000
        func ticks(_ time: MediaTime) -> Int64 { time.ticks(in: grid) ?? 0 }
        var ranges: [SpeedRange] = []
        for (a, b) in zip(points, points.dropFirst()) {
            let start = ticks(a.at), end = ticks(b.at)
            guard end > start else { continue }
            let steps = a.rate == b.rate ? 1 : max(1, Int((Double(end - start) / Double(ticks(step))).rounded(.up)))
            for i in 0..<steps {
                let from = start + (end - start) * Int64(i) / Int64(steps), to = start + (end - start) * Int64(i + 1) / Int64(steps)
                let rate = a.rate == b.rate ? a.rate : a.rate + (b.rate - a.rate) * (Double(i) + 0.5) / Double(steps)
                let outputTicks = max(1, Int64((Double(to - from) / rate).rounded()))
                guard outputTicks != to - from, let scale = Int32(exactly: outputTicks) else { continue }   // speed 1: nothing to do
                ranges.append(SpeedRange(range: ClosedTimeRange(start: .seconds(MediaTime(value: from, timescale: grid)),
                                                                end: .seconds(MediaTime(value: to, timescale: grid)), location: a.location),
                                         rate: MediaTime(value: to - from, timescale: scale), location: a.location))
            }
        }
        return ranges
    }
}
