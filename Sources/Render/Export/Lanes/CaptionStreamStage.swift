import DropcutMediaIO
import DropcutTimeline

/// The soft captions of an export (`ExportSettings.softCaptions`): a `mov_text` stream
/// whose cue packets are written as the picture reaches them, so the muxer's interleaver
/// holds at most one cue ahead of the video.
final class CaptionStreamStage {
    private let encoder: SubtitleEncoder
    private let stream: Int
    private let cues: [CaptionCue]
    private var next = 0
    private let packet: Packet

    /// Adds the stream to `muxer` (before its header is written).
    init(cues: [CaptionCue], muxer: Muxer) throws {
        encoder = try SubtitleEncoder()
        stream = try muxer.addStream(for: encoder)
        self.cues = cues.filter { $0.timeRange.duration > .zero && $0.timeRange.start >= .zero }.sorted { $0.timeRange.start < $1.timeRange.start }
        packet = try Packet()
    }

    /// Writes every cue starting before `time`.
    func write(until time: MediaTime, into muxer: Muxer) throws {
        while next < cues.count, cues[next].timeRange.start < time {
            try encoder.encode(cues[next], into: packet)
            try muxer.write(packet, from: encoder.timeBase, stream: stream)
            next += 1
        }
    }

    /// Writes the cues left (those after the last frame: none, unless the picture ended early).
    func finish(into muxer: Muxer) throws {
        try write(until: .positiveInfinity, into: muxer)
    }
}
