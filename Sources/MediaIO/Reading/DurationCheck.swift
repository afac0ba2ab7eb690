import DropcutTimeline

/// How long a file and its streams really last, without taking the header's word for it.
///
/// A duration taken on trust becomes a composition's length, and a render runs for that
/// long: a fragmented MP4 whose segment index (`sidx`) claims 39 hours for a 2 s clip
/// made a composition of 4 million frames. Headers go wrong in many ways — a browser's
/// WebM says nothing, an MP3 without an Info header is guessed from its bitrate, a
/// recorder that crashed leaves the duration it planned, a truncated file keeps the one it
/// had. So a stated duration is checked where that is cheap: each stream the composition
/// uses must have packets that end where its header says (one seek to just before the
/// stated end and the packets from there to the end of the file — no decoding, a second
/// or two of data for an ordinary MP4). Only when that fails, or when there is no duration
/// or FFmpeg estimated it, is the whole file read, packets only; what was measured then
/// replaces the header wherever the two disagree.
enum DurationCheck {
    /// The durations to believe: the container's, and each checked stream's by index
    /// (from its start time, as `AssetProbe`'s time ranges are).
    struct Durations: Equatable {
        var container: MediaTime
        var streams: [Int: MediaTime]
    }

    /// How far before a stream's stated end the check seeks. The seek lands on the
    /// keyframe before it, so a few seconds of packets at most are read.
    static let window = MediaTime(seconds: 1)

    /// The durations of `demuxer`'s file and of its streams `used`, checked against the
    /// packets (see the type). Leaves the demuxer anywhere: whoever reads the file
    /// afterwards opens their own.
    static func durations(of demuxer: Demuxer, streams used: [StreamInfo]) throws(FFmpegError) -> Durations {
        let container = usable(demuxer.duration)
        let measured: [Int: MediaTime]
        if let container, !demuxer.durationIsEstimated {
            if let seen = try endsAsStated(demuxer, used) {
                var stated: [Int: MediaTime] = [:]
                for stream in used {
                    let duration = usable(stream.duration) ?? container
                    // Within the tolerance, but short of the stated end: an edit list
                    // starting inside a frame (a cut made without re-encoding) counts the
                    // part of the frame it discards. What is shown ends where the last
                    // shown frame does, as ffmpeg renders it (12 frames of 1 s, not 12.5 s).
                    if let end = statedEnd(of: stream, in: demuxer), let last = seen[stream.index], last < end,
                       let shorter = usable(duration - (end - last)) {
                        stated[stream.index] = shorter
                    } else {
                        stated[stream.index] = duration
                    }
                }
                let longest = stated.values.max() ?? container
                return Durations(container: MediaTime.min(container, longest), streams: stated)
            }
            // Not a header that lies but a file that ends early: every stream's index
            // places media past the end (one stream's alone is a damaged index entry,
            // measured like any disagreement). Rendering the part that arrived would pass
            // off half a clip as the whole; the file is refused as incomplete.
            if !used.isEmpty, used.allSatisfy({ demuxer.indexExtendsPastEnd(ofStream: $0.index) }), let cut = used.first {
                throw FFmpegError(code: FFmpegError.invalidData, function: "the sample index", path: demuxer.path,
                                  streamIndex: cut.index,
                                  note: "the file is incomplete: its index places media past the end of the file (cut short while it was copied?)",
                                  incompleteFile: true)
            }
            measured = try demuxer.reopened().measuredDurations()
        } else {
            // Nothing read yet: the demuxer still stands at the first packet.
            measured = try demuxer.measuredDurations()
        }
        return believed(container: container, measured: measured, used: used)
    }

    /// When every stream in `used` has packets ending where its header says (within
    /// `differ`'s tolerance), where each one's last shown packet ends, for those whose
    /// last packet states its duration; nil otherwise. Seeks each stream to `window`
    /// before its stated end and reads to the end of the file; a stream whose end was
    /// already seen reading another's tail is not sought again. A seek that fails, or a
    /// tail without the stream's packets, proves nothing: nil.
    static func endsAsStated(_ demuxer: Demuxer, _ used: [StreamInfo]) throws(FFmpegError) -> [Int: MediaTime]? {
        var spans = PacketSpans()
        for stream in used {
            guard let end = statedEnd(of: stream, in: demuxer) else { return nil }
            if let seen = seenEnd(of: stream, in: spans), !differ(seen, end) { continue }
            let from = MediaTime.max(stream.startTime ?? .zero, end - window)
            guard (try? demuxer.seek(stream: stream.index, to: from)) != nil else { return nil }
            try demuxer.readSpans(into: &spans)
            guard let seen = seenEnd(of: stream, in: spans), !differ(seen, end) else { return nil }
        }
        var ends: [Int: MediaTime] = [:]
        for stream in used where spans.endIsTimed(of: stream.index, timeBase: stream.timeBase) {
            ends[stream.index] = seenEnd(of: stream, in: spans)
        }
        return ends
    }

    /// Where the header says `stream`'s last packet ends, in stream time: its start plus
    /// its duration, or — for streams that state none (Matroska's) — the container's end.
    static func statedEnd(of stream: StreamInfo, in demuxer: Demuxer) -> MediaTime? {
        let end: MediaTime
        if let duration = usable(stream.duration) {
            end = (stream.startTime ?? .zero) + duration
        } else if let duration = usable(demuxer.duration) {
            end = (demuxer.startTime ?? stream.startTime ?? .zero) + duration
        } else {
            return nil
        }
        return end.isNumeric ? end : nil
    }

    /// Where the last packet of `stream` read so far ends, in stream time.
    private static func seenEnd(of stream: StreamInfo, in spans: PacketSpans) -> MediaTime? {
        spans.endTicks(of: stream.index, timeBase: stream.timeBase).map { stream.timeBase.multiplied(by: $0, dividedBy: 1) }
    }

    /// The header's durations where the packets agree with them, the measured ones where
    /// they do not (or where the header has none). The container lasts as long as the
    /// longest stream used (any stream when none of those had timestamps). A stream whose
    /// packets were not found at all lasts no longer than the file: a header cannot make a
    /// track without samples last hours.
    static func believed(container: MediaTime?, measured: [Int: MediaTime], used: [StreamInfo]) -> Durations {
        let real = used.compactMap { measured[$0.index] }.max() ?? measured.values.max()
        let file = pick(stated: container, measured: real) ?? .zero
        var streams: [Int: MediaTime] = [:]
        for stream in used {
            let stated = usable(stream.duration)
            if let found = measured[stream.index] {
                streams[stream.index] = pick(stated: stated, measured: found) ?? file
            } else {
                streams[stream.index] = MediaTime.min(stated ?? file, file)
            }
        }
        return Durations(container: file, streams: streams)
    }

    /// The stated time unless the measured one differs from it.
    private static func pick(stated: MediaTime?, measured: MediaTime?) -> MediaTime? {
        guard let measured = usable(measured) else { return stated }
        guard let stated, !differ(stated, measured) else { return measured }
        return stated
    }

    /// True when two durations (or ends) disagree: by more than 1 s, or by more than 10 %
    /// of the shorter — but never over less than 0.1 s, the frame or two by which the end
    /// of a last packet without a duration, or AAC's priming, may fairly differ.
    static func differ(_ a: MediaTime, _ b: MediaTime) -> Bool {
        guard a.isNumeric, b.isNumeric else { return true }
        let gap = abs(a.seconds - b.seconds), shorter = min(abs(a.seconds), abs(b.seconds))
        return gap > min(1, max(0.1, shorter / 10))
    }

    /// `time` when it is a real, positive length; nil for none, 0, negative, infinite or
    /// invalid (what a damaged header may hold).
    static func usable(_ time: MediaTime?) -> MediaTime? {
        guard let time, time.isNumeric, time > .zero else { return nil }
        return time
    }
}
