/// The level of a composition's own sound over time: RMS in equal windows from time 0.
/// What automatic ducking listens to, and what `plan --svg` draws under the music.
public struct SoundLevels: Sendable, Hashable {
    /// Length of one window.
    public var window: MediaTime
    /// RMS level of each window in dBFS (−infinity for digital silence).
    public var decibels: [Double]

    public init(window: MediaTime, decibels: [Double]) {
        self.window = window
        self.decibels = decibels
    }

    /// The stretches where the level is at or above `threshold` dBFS, as time ranges
    /// (single windows count: ducking's hold bridges the gaps between them).
    public func active(above threshold: Double) -> [TimeRange] {
        var ranges: [TimeRange] = []
        var start: Int?
        for (i, level) in decibels.enumerated() {
            if level >= threshold {
                if start == nil { start = i }
            } else if let s = start {
                ranges.append(range(s, i))
                start = nil
            }
        }
        if let s = start { ranges.append(range(s, decibels.count)) }
        return ranges
    }

    private func range(_ from: Int, _ to: Int) -> TimeRange {
        TimeRange(start: window.multiplied(by: Int64(from), dividedBy: 1), end: window.multiplied(by: Int64(to), dividedBy: 1))
    }
}
