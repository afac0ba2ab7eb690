import Foundation
import DropcutMediaIO
import DropcutTimeline

/// Where a composition's own sound is active: the clip tracks are mixed exactly as the
/// export will mix them — after speed changes and volume ramps — and their RMS level is
/// measured in short windows. What ducking listens to.
public enum AudioActivity {
    /// The analysis rate: speech and effects are well represented at 16 kHz, and the
    /// stretch and resampling cost a third of 48 kHz.
    public static let sampleRate = 16_000

    /// The default window: 20 ms, a few periods of a voice.
    public static let window = MediaTime(value: 1, timescale: 50)

    /// Measures `tracks` of `composition` (the clips' audio, not the music) with
    /// `audioMix`'s volumes, in windows of `window`. `isCancelled` is polled every window:
    /// the analysis decodes the whole sound and must stop when its job does.
    public static func measure(composition: Composition, audioMix: AudioMix, tracks: [TrackID],
                               window: MediaTime = AudioActivity.window,
                               isCancelled: @Sendable () -> Bool = { false }) throws -> SoundLevels {
        var measured = composition
        for track in composition.tracks where !tracks.contains(track.trackID) { measured.removeTrack(track.trackID) }
        let rate = Int32(sampleRate)
        let windowSamples = max(1, Int(window.ticks(in: rate) ?? 320))
        let total = composition.duration.ticks(in: rate) ?? 0
        guard !measured.tracks(of: .audio).isEmpty, total > 0 else { return SoundLevels(window: window, decibels: []) }
        let mixer = AudioMixer(composition: measured, audioMix: audioMix, sampleRate: sampleRate, channels: 1,
                               maximumBlock: windowSamples)
        let block = try AudioFrame(channels: 1, sampleRate: sampleRate, capacity: windowSamples)
        var levels: [Double] = []
        // Grows as it goes: the count comes from a header duration, which a damaged file
        // can make absurd.
        levels.reserveCapacity(Int(min(total / Int64(windowSamples), 1 << 16)) + 1)
        try mixer.mixAll(samples: total, into: block) { count in
            if isCancelled() { throw CancellationError() }
            let sumOfSquares = block.withChannel(0) { samples in samples.prefix(count).reduce(0.0) { $0 + Double($1) * Double($1) } }
            let meanSquare = sumOfSquares / Double(count)
            levels.append(meanSquare > 0 ? 10 * log10(meanSquare) : -.infinity)
        }
        return SoundLevels(window: window, decibels: levels)
    }

    /// `SoundLevelMeasuring` for real media: decodes the sources with FFmpeg.
    public struct Meter: SoundLevelMeasuring {
        private let isCancelled: @Sendable () -> Bool

        /// `isCancelled` is polled while measuring (the work runs on a plain thread, where
        /// `Task.isCancelled` cannot see the job's task).
        public init(isCancelled: @escaping @Sendable () -> Bool = { false }) {
            self.isCancelled = isCancelled
        }

        public func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
            try AudioActivity.measure(composition: composition, audioMix: audioMix, tracks: tracks, isCancelled: isCancelled)
        }
    }
}
