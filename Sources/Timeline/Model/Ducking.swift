/// Automatic ducking: where a clip's own sound is active, the music goes down to `depth`
/// and comes back up in the pauses — computed as a volume curve, so it can be listed,
/// drawn and mixed like any other volume ramp.
///
/// Offline, so it can anticipate: the music is already down when speech starts (the
/// attack ramp ends at the onset) and starts back up when it stops (the release ramp
/// starts at the end). Pauses shorter than `hold`, or too short for the music to go up
/// and come down again, stay ducked — no pumping between words.
public struct Ducking: Sendable, Hashable {
    /// The music's level under speech, as a linear factor (−12 dB ≈ 0.251).
    public var depth: Double
    public var attack: MediaTime
    public var release: MediaTime
    /// Pauses shorter than this stay ducked.
    public var hold: MediaTime

    public init(depth: Double, attack: MediaTime, release: MediaTime, hold: MediaTime) {
        self.depth = depth
        self.attack = attack
        self.release = release
        self.hold = hold
    }

    /// The activity after bridging: time-ordered, merged where the pause between two
    /// stretches is shorter than `hold` or than attack + release.
    public func bridged(_ activity: [TimeRange]) -> [TimeRange] {
        let bridge = MediaTime.max(hold, attack + release)
        var merged: [TimeRange] = []
        for range in activity.filter({ $0.duration > .zero }).sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, range.start - last.end < bridge {
                merged[merged.count - 1] = TimeRange(start: last.start, end: MediaTime.max(last.end, range.end))
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// The music's ducking factor over `[0, end)`: 1 in the pauses, `depth` during
    /// activity, with linear ramps over `attack` before each stretch and `release` after
    /// it (shortened at the ends of the timeline).
    public func envelope(activity: [TimeRange], until end: MediaTime) -> Ramp<Double> {
        var ramp = Ramp<Double>(defaultValue: 1)
        for range in bridged(activity) {
            guard range.start < end else { break }
            let downStart = MediaTime.max(.zero, range.start - attack)
            // The ramps are laid apart by construction (bridging), so they cannot overlap.
            if downStart < range.start {
                try? ramp.setRamp(from: 1, to: depth, range: TimeRange(start: downStart, end: range.start))
            } else {
                try? ramp.set(depth, at: range.start)
            }
            let upEnd = MediaTime.min(end, range.end + release)
            if range.end < upEnd {
                try? ramp.setRamp(from: depth, to: 1, range: TimeRange(start: range.end, end: upEnd))
            }
        }
        return ramp
    }
}
