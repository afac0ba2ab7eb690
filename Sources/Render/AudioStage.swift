import Foundation
import MediaIO
import Timeline

/// The audio half of the encoding stage: mixes blocks of the encoder's frame size, keeps
/// their peaks under the ceiling and encodes them, keeping pace with the video.
final class AudioStage: AudioOutput {
    let encoder: AudioEncoder
    let stream: Int
    let mixer: AudioMixer
    let totalSamples: Int64
    private let block: AudioFrame
    private var position: Int64 = 0
    /// The mix summed in float may exceed full scale (a loud voice over loud music): the
    /// limiter holds it at the ceiling. It delays by its lookahead, so the mixer runs
    /// that far ahead (primed on the first block).
    private let limiter: PeakLimiter
    private var primed = false
    /// The loudness normalisation's gain, applied before the limiter.
    private let gain: Float

    /// −1 dBFS true peak, approximated: the sample ceiling sits half a dB lower, the room
    /// AAC's reconstruction overshoots by on limited peaks.
    static let ceiling = Float(pow(10, -1.5 / 20))

    init(encoder: AudioEncoder, stream: Int, mixer: AudioMixer, totalSamples: Int64, gain: Float) throws {
        self.gain = gain
        precondition(encoder.frameSize <= mixer.maximumBlock, "AAC frame of \(encoder.frameSize) samples")
        self.encoder = encoder
        self.stream = stream
        self.mixer = mixer
        self.totalSamples = totalSamples
        block = try AudioFrame(channels: mixer.channels, sampleRate: mixer.sampleRate, capacity: encoder.frameSize)
        limiter = PeakLimiter(channels: mixer.channels, sampleRate: mixer.sampleRate, ceiling: Self.ceiling,
                              maximumBlock: encoder.frameSize)
        precondition(limiter.delay <= encoder.frameSize, "limiter lookahead longer than a block")
    }

    /// Mixes output samples `[start, start + count)` into `block`, limited: the mixer is
    /// asked for the samples `delay` later, which the limiter hands back `delay` late.
    private func mixLimited(at start: Int64, count: Int) throws {
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

    /// Encodes whole blocks up to `time` (and the short last block once `time` passes the end).
    func encode(until time: MediaTime, into muxer: Muxer) throws {
        let target = min(totalSamples, time.ticks(in: Int32(mixer.sampleRate)) ?? 0)
        while position < target {
            let count = Int(min(Int64(encoder.frameSize), totalSamples - position))
            // A short block ends the stream: only send it when it really is the last one.
            if count < encoder.frameSize && target < totalSamples { return }
            try block.makeWritable()
            try mixLimited(at: position, count: count)
            block.pts = position
            try encoder.send(block)
            try muxer.drain(encoder, into: stream)
            position += Int64(count)
        }
    }

    func finish(into muxer: Muxer) throws {
        try encode(until: MediaTime(value: totalSamples, timescale: Int32(mixer.sampleRate)), into: muxer)
        try encoder.send(nil)
        try muxer.drain(encoder, into: stream)
    }
}

/// The output's audio stream as the encoding stage drives it: written up to a time as the
/// video goes, and finished after it.
protocol AudioOutput: AnyObject {
    /// Writes the audio up to output time `time`.
    func encode(until time: MediaTime, into muxer: Muxer) throws
    /// Writes the rest.
    func finish(into muxer: Muxer) throws
}

/// The output's audio copied from a source stream as it is (pass-through): no mixing,
/// no encoding.
final class AudioCopyStage: AudioOutput {
    let copier: StreamCopier

    init(copier: StreamCopier) {
        self.copier = copier
    }

    func encode(until time: MediaTime, into muxer: Muxer) throws {
        try copier.copy(until: time, into: muxer)
    }

    func finish(into muxer: Muxer) throws {
        try copier.copy(until: nil, into: muxer)
    }
}
