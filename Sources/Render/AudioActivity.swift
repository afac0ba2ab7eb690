import Foundation
import MediaIO
import Timeline

/// Where a composition's own sound is active: the clip tracks are mixed exactly as the
/// export will mix them — after speed changes and volume ramps — and their RMS level is
/// measured in short windows. What ducking listens to.
public struct AudioActivity: Sendable {
    /// Length of one level window.
    public let window: MediaTime
    /// RMS level of each window in dBFS (−infinity for digital silence), from time 0.
    public let levels: [Double]

    /// The analysis rate: speech and effects are well represented at 16 kHz, and the
    /// stretch and resampling cost a third of 48 kHz.
    public static let sampleRate = 16_000

    /// Measures `tracks` of `composition` (the clips' audio, not the music) with `audioMix`'s
    /// volumes, in windows of `window` (default 20 ms: a few periods of a voice).
    public init(composition: Composition, audioMix: AudioMix, tracks: [TrackID],
                window: MediaTime = MediaTime(value: 1, timescale: 50)) throws {
        self.window = window
        var measured = composition
        for track in composition.tracks where !tracks.contains(track.trackID) { measured.removeTrack(track.trackID) }
        let rate = Int32(Self.sampleRate)
        let windowSamples = max(1, Int(window.ticks(in: rate) ?? 320))
        let total = composition.duration.ticks(in: rate) ?? 0
        guard !measured.tracks(of: .audio).isEmpty, total > 0 else {
            levels = []
            return
        }
        let mixer = AudioMixer(composition: measured, audioMix: audioMix, sampleRate: Self.sampleRate, channels: 1,
                               maximumBlock: windowSamples)
        let block = try AudioFrame(channels: 1, sampleRate: Self.sampleRate, capacity: windowSamples)
        var levels: [Double] = []
        levels.reserveCapacity(Int(total) / windowSamples + 1)
        try mixer.mixAll(samples: total, into: block) { count in
            let sumOfSquares = block.withChannel(0) { samples in samples.prefix(count).reduce(0.0) { $0 + Double($1) * Double($1) } }
            let meanSquare = sumOfSquares / Double(count)
            levels.append(meanSquare > 0 ? 10 * log10(meanSquare) : -.infinity)
        }
        self.levels = levels
    }

    /// The stretches where the level is at or above `threshold` dBFS, as time ranges
    /// (single windows count: the hold bridges the gaps between them).
    public func active(above threshold: Double) -> [TimeRange] {
        var ranges: [TimeRange] = []
        var start: Int?
        for (i, level) in levels.enumerated() {
            if level >= threshold {
                if start == nil { start = i }
            } else if let s = start {
                ranges.append(range(s, i))
                start = nil
            }
        }
        if let s = start { ranges.append(range(s, levels.count)) }
        return ranges
    }

    private func range(_ from: Int, _ to: Int) -> TimeRange {
        TimeRange(start: window.multiplied(by: Int64(from), dividedBy: 1), end: window.multiplied(by: Int64(to), dividedBy: 1))
    }
}
