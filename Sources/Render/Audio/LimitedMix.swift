import Foundation
import DropcutMediaIO
import DropcutTimeline

/// The output's sound block by block: the composition's audio mixed (`AudioMixer`), the
/// loudness gain applied and the peaks held under the ceiling (`PeakLimiter`). The limiter
/// delays by its lookahead, so the mixer runs that far ahead (primed on the first block).
/// `SharedAudioMix` keeps its blocks for the outputs that encode them.
final class LimitedMix {
    let mixer: AudioMixer
    /// The block last mixed (limited in place); at most `maximumBlock` samples.
    let block: AudioFrame
    private let limiter: PeakLimiter
    private let gain: Float
    private var primed = false

    /// −1 dBFS true peak, approximated: the sample ceiling sits half a dB lower, the room
    /// AAC's reconstruction overshoots by on limited peaks.
    static let ceiling = Float(pow(10, -1.5 / 20))

    init(mixer: AudioMixer, maximumBlock: Int, gain: Float) throws {
        precondition(maximumBlock <= mixer.maximumBlock, "block of \(maximumBlock) samples")
        self.mixer = mixer
        self.gain = gain
        block = try AudioFrame(channels: mixer.channels, sampleRate: mixer.sampleRate, capacity: maximumBlock)
        limiter = PeakLimiter(channels: mixer.channels, sampleRate: mixer.sampleRate, ceiling: Self.ceiling,
                              maximumBlock: maximumBlock)
        precondition(limiter.delay <= maximumBlock, "limiter lookahead longer than a block")
    }

    /// Mixes output samples `[start, start + count)` into `block`, limited: the mixer is
    /// asked for the samples `delay` later, which the limiter hands back `delay` late.
    func mix(at start: Int64, count: Int) throws {
        try block.makeWritable()
        if !primed {
            block.sampleCount = limiter.delay
            try mixer.mix(into: block, at: 0)
            limit(count: limiter.delay)   // fills the lookahead; its output is the leading silence
            primed = true
        }
        block.sampleCount = count
        try mixer.mix(into: block, at: start + Int64(limiter.delay))
        limit(count: count)
    }

    private func limit(count: Int) {
        if gain != 1 {
            for channel in 0..<mixer.channels {
                block.withChannel(channel) { samples in for i in 0..<count { samples[i] *= gain } }
            }
        }
        block.withPlanes { limiter.process(count: count, channel: $0) }
    }
}
