import Foundation
import MediaIO
import Timeline

/// The audio half of the encoding stage: mixes blocks of the encoder's frame size, keeps
/// their peaks under the ceiling and encodes them, keeping pace with the video.
final class AudioStage: AudioOutput {
    let encoder: AudioEncoder
    let stream: Int
    let totalSamples: Int64
    private let mix: LimitedMix
    private var position: Int64 = 0

    init(encoder: AudioEncoder, stream: Int, mixer: AudioMixer, totalSamples: Int64, gain: Float) throws {
        self.encoder = encoder
        self.stream = stream
        self.totalSamples = totalSamples
        mix = try LimitedMix(mixer: mixer, maximumBlock: encoder.frameSize, gain: gain)
    }

    /// Encodes whole blocks up to `time` (and the short last block once `time` passes the end).
    func encode(until time: MediaTime, into muxer: Muxer) throws {
        let target = min(totalSamples, time.ticks(in: Int32(mix.mixer.sampleRate)) ?? 0)
        while position < target {
            let count = Int(min(Int64(encoder.frameSize), totalSamples - position))
            // A short block ends the stream: only send it when it really is the last one.
            if count < encoder.frameSize && target < totalSamples { return }
            try mix.mix(at: position, count: count)
            mix.block.pts = position
            try encoder.send(mix.block)
            try muxer.drain(encoder, into: stream)
            position += Int64(count)
        }
    }

    func finish(into muxer: Muxer) throws {
        try encode(until: MediaTime(value: totalSamples, timescale: Int32(mix.mixer.sampleRate)), into: muxer)
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
