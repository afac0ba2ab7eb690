internal import CDropcutFFmpeg
import DropcutTimeline

/// Reads a file's own captions: the first text subtitle stream (`mov_text` in MP4/MOV,
/// WebVTT, SubRip or ASS in Matroska), decoded with FFmpeg and made plain cues in source
/// time (0: the file's first presented sample, as every track's). Every time is checked:
/// cues outside 0 to 24 hours, or that do not last, are dropped; at most
/// `maximumCues` are read and each cue's text is at most 4096 bytes.
package enum SubtitleTrackReader {
    /// The codecs read as text.
    package static let textCodecs: Set<String> = ["mov_text", "webvtt", "subrip", "srt", "ass", "ssa", "text"]
    package static let maximumCues = 100_000
    static let maximumCueBytes = 4096
    static let maximumMilliseconds: Int64 = 86_400_000
    /// How long a cue lasts whose packet gives no end and that no later cue ends.
    static let defaultDuration = MediaTime(value: 10, timescale: 1)

    /// The cues of `path`'s first text subtitle stream. Throws `SubtitleStreamError` when it
    /// has none, `FFmpegError` when it cannot be read.
    package static func cues(of path: String) throws -> [CaptionCue] {
        let demuxer = try Demuxer(path: path)
        guard let stream = demuxer.streams.first(where: { $0.kind == .subtitle && textCodecs.contains($0.codecName) }) else {
            let others = demuxer.streams.filter { $0.kind == .subtitle }.map(\.codecName)
            throw SubtitleStreamError(path: path, reason: others.isEmpty
                ? "has no subtitle stream (captions: embedded reads mov_text, WebVTT, SubRip or ASS)"
                : "its subtitles (\(others.joined(separator: ", "))) are pictures, not text: captions: embedded reads mov_text, WebVTT, SubRip or ASS")
        }
        let decoder = try Decoder(demuxer: demuxer, stream: stream.index, frameThreads: false)
        let origin = demuxer.origin(of: stream)
        let timeBase = stream.timeBase
        let packet = try Packet()
        var cues: [CaptionCue] = []
        // Cues whose end the packet did not give end at the next cue's start.
        var openEnded: [Int] = []
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == stream.index, let pts = packet.pts else { continue }
            guard let decoded = try decoder.decodeSubtitle(packet) else { continue }
            let text = decoded.texts.map(ASSDialogueText.plain).filter { !$0.isEmpty }.joined(separator: "\n")
            let at = timeBase.multiplied(by: pts, dividedBy: 1) - origin
            guard let base = at.ticks(in: 1000, rounding: .down), base >= -maximumMilliseconds, base <= maximumMilliseconds else { continue }
            let start = base + Int64(decoded.start)
            var end: Int64?
            if packet.duration > 0, let length = timeBase.multiplied(by: packet.duration, dividedBy: 1).ticks(in: 1000),
               length > 0, length <= maximumMilliseconds {
                end = base + length
            } else if decoded.end != 0, decoded.end != UInt32.max {
                end = base + Int64(decoded.end)
            }
            for index in openEnded {
                let cueStart = cues[index].timeRange.start
                // Ended by this packet; one at the same time or earlier (out of order) lasts
                // the default instead.
                let end = cueStart.ticks(in: 1000).map { $0 < start } == true ? MediaTime(value: start, timescale: 1000) : cueStart + Self.defaultDuration
                cues[index].timeRange = TimeRange(start: cueStart, end: end)
            }
            openEnded.removeAll()
            // An empty packet ends the cue before it (mov_text's "clear" samples).
            guard !text.isEmpty, text.utf8.count <= maximumCueBytes, start >= 0, start < maximumMilliseconds else { continue }
            guard cues.count < maximumCues else {
                throw SubtitleStreamError(path: path, reason: "its subtitle stream has more than \(maximumCues) cues")
            }
            let stop = min(end ?? maximumMilliseconds, maximumMilliseconds)
            guard stop > start else { continue }
            cues.append(CaptionCue(timeRange: TimeRange(start: MediaTime(value: start, timescale: 1000), end: MediaTime(value: stop, timescale: 1000)), text: text))
            if end == nil { openEnded.append(cues.count - 1) }
        }
        // A last cue with no end lasts the default.
        for index in openEnded {
            let start = cues[index].timeRange.start
            cues[index].timeRange = TimeRange(start: start, end: start + Self.defaultDuration)
        }
        return cues.sorted { $0.timeRange.start < $1.timeRange.start }
    }
}
