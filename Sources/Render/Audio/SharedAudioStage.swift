import DropcutMediaIO
import DropcutTimeline

/// One output's sound from a `SharedAudioMix`: the mixed blocks encoded as its picture
/// reaches their time, as `AudioStage` encodes its own mix.
final class SharedAudioStage: AudioOutput {
    let encoder: AudioEncoder
    let stream: Int
    private let mix: SharedAudioMix
    private let consumer: Int
    private let block: AudioFrame
    private var position: Int64 = 0

    init(encoder: AudioEncoder, stream: Int, mix: SharedAudioMix, consumer: Int) throws {
        precondition(encoder.frameSize == mix.blockSize, "AAC frame of \(encoder.frameSize) samples, mixed in \(mix.blockSize)")
        self.encoder = encoder
        self.stream = stream
        self.mix = mix
        self.consumer = consumer
        block = try AudioFrame(channels: mix.channels, sampleRate: mix.sampleRate, capacity: encoder.frameSize)
    }

    /// Encodes whole blocks up to `time` (and the short last block once `time` passes the end).
    func encode(until time: MediaTime, into muxer: Muxer) throws {
        let total = mix.totalSamples
        let target = min(total, time.ticks(in: Int32(mix.sampleRate)) ?? 0)
        while position < target {
            let count = Int(min(Int64(mix.blockSize), total - position))
            // A short block ends the stream: only send it when it really is the last one.
            if count < mix.blockSize && target < total { return }
            try block.makeWritable()
            block.sampleCount = count
            try mix.copy(block: Int(position / Int64(mix.blockSize)), for: consumer, into: block)
            block.pts = position
            try encoder.send(block)
            try muxer.drain(encoder, into: stream)
            position += Int64(count)
        }
    }

    func finish(into muxer: Muxer) throws {
        try encode(until: MediaTime(value: mix.totalSamples, timescale: Int32(mix.sampleRate)), into: muxer)
        mix.finish(consumer: consumer)
        try encoder.send(nil)
        try muxer.drain(encoder, into: stream)
    }
}
