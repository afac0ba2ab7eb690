import DropcutTimeline

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

    /// The most ranges one pair of keyframes becomes: the decoder's longest glide
    /// (`RecipeLimits.maximumGlideSeconds`) in 50 ms steps.
    static let maximumSteps = Int128(RecipeLimits.maximumGlideSeconds * 20)

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
        let stepTicks = Int128(step.ticks(in: grid) ?? 2_400)
        // A range's rate is written as source ticks over output ticks, the output ticks as
        // an Int32 timescale: a held rate whose output is longer than that (about 12 hours
        // at 48 kHz) is laid as several ranges. Half of Int32.max leaves room for rounding.
        let longestOutput = Double(Int32.max / 2)
        var ranges: [SpeedRange] = []
        for (a, b) in zip(points, points.dropFirst()) {
            // Tick counts in Int128: a recipe's times are at most 24 h (4.1e9 ticks) but a
            // sidecar's come from a file, and `length * i` of two Int64s used to overflow.
            guard let startTicks = a.at.ticks(in: grid), let endTicks = b.at.ticks(in: grid), endTicks > startTicks,
                  a.rate > 0, b.rate > 0, a.rate.isFinite, b.rate.isFinite else { continue }
            let start = Int128(startTicks), end = Int128(endTicks), length = end - start
            // The decoder bounds how long a recipe's ramp glides and a sidecar's edges are
            // 0.2 s; should a caller pass more, the steps grow longer than 50 ms rather than
            // the ranges growing without bound.
            // (Clamped as a Double first: a tiny rate would make a quotient past Int128.)
            let holdPieces = Swift.min(Double(maximumSteps), Swift.max(1, (Double(length) / a.rate / longestOutput).rounded(.up)))
            let steps = a.rate == b.rate ? Int128(holdPieces) : Swift.min(maximumSteps, (length + stepTicks - 1) / stepTicks)
            var i: Int128 = 0
            while i < steps {
                defer { i += 1 }
                // Between start and end, so they fit the Int64 they came from.
                let from = Int64(start + length * i / steps), to = Int64(start + length * (i + 1) / steps)
                let rate = a.rate == b.rate ? a.rate : a.rate + (b.rate - a.rate) * (Double(i) + 0.5) / Double(steps)
                let outputTicks = Swift.max(1, (Double(to - from) / rate).rounded())
                guard outputTicks != Double(to - from), let output = Int64(exactly: outputTicks) else { continue }   // speed 1: nothing to do
                // Exact source over output ticks; only past the step cap (never for a recipe
                // or a sidecar the decoders accept) can the output miss an Int32 timescale,
                // and then the rate is the nearest MediaTime rather than no range at all.
                let exactRate = Int32(exactly: output).map { MediaTime(value: to - from, timescale: $0) }
                ranges.append(SpeedRange(range: ClosedTimeRange(start: .seconds(MediaTime(value: from, timescale: grid)),
                                                                end: .seconds(MediaTime(value: to, timescale: grid)), location: a.location),
                                         rate: exactRate ?? MediaTime(value: to - from, timescale: 1).multiplied(by: 1, dividedBy: output),
                                         location: a.location))
            }
        }
        return ranges
    }
}
