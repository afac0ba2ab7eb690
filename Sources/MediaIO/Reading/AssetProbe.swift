import DropcutTimeline

/// Probes real files for the composition builder: the first video and first audio
/// stream of a file as AVFoundation-style asset tracks.
///
/// Source time 0 is the file's first presented sample (`Demuxer.origin(of:)`: the start
/// all its tracks share), so a track's time range is `[0, offset + duration)`; readers add
/// the origin back when they seek.
/// Track ids are stream index + 1, as AVFoundation numbers tracks from 1.
public struct AssetProbe: MediaProbing {
    public init() {}

    /// The file's own captions (`SubtitleTrackReader`).
    public func subtitleCues(_ path: String) throws -> [CaptionCue] {
        try SubtitleTrackReader.cues(of: path)
    }

    /// Throws an `FFmpegError` naming the file when it cannot be opened as media. The
    /// durations are the real ones (`DurationCheck`), not the header's on trust; a video
    /// stream that does not say whether it is interlaced is asked through its first frame
    /// (`FieldOrderDetection`).
    ///
    /// A file that is no movie but a PNG or JPEG picture — told by its content, not its
    /// name — is a still image: one picture (`ProbedMedia.Video.isStillImage`), decoded
    /// here once so that a truncated or damaged picture fails now, before anything is
    /// rendered.
    public func probe(_ path: String) throws -> ProbedMedia {
        if StillPicture.isPicture(path) {
            let picture = try StillPicture.probe(path)
            let transform = picture.displayMatrix?.preferredTransform(naturalSize: picture.size) ?? .identity
            return ProbedMedia(path: path, duration: .zero, video: .stillImage(size: picture.size, preferredTransform: transform))
        }
        try StillPicture.refuseHEIF(path)
        let demuxer = try Demuxer(path: path)
        let used = Self.usedStreams(demuxer.streams)
        let durations = try DurationCheck.durations(of: demuxer, streams: [used.video, used.audio].compactMap { $0 })
        let video = try used.video.map { stream throws(FFmpegError) in try FieldOrderDetection.resolved(stream, of: demuxer) }
        var media = Self.describe(demuxer, video: video, audio: used.audio, durations: durations)
        // A variable rate may be frames left out of a constant one: whether every frame
        // lies on the grid is read from the packets' times (packets only, no decoding; the
        // file's data read once more, for variable-rate streams alone). A file whose
        // packets cannot all be read has no grid to rely on.
        if let video, let probed = media.video, probed.isVariableFrameRate {
            let index = try? KeyframeIndex.scan(path: path, trackID: TrackID(video.index + 1))
            media.video?.variableRateLiesOnGrid = index?.frameDuration == probed.frameDuration
        }
        if video == nil {
            media.undecodableVideoCodecs = demuxer.streams
                .filter { $0.kind == .video && !$0.isAttachedPicture && !$0.isDecodable }.map(\.codecName)
        }
        // Pictures the output leaves out, said by `plan` and the render's log: an output
        // has one video stream.
        media.otherVideoStreams = demuxer.streams
            .filter { $0.kind == .video && $0.size != nil && !$0.isAttachedPicture && $0.index != video?.index }.map(\.index)
        return media
    }

    /// The streams a composition takes from a file. Of each kind, the first stream FFmpeg
    /// can decode that the container marks as the default, else the first it can decode:
    /// a phone's spatial-audio track (APAC, no decoder) beside its AAC track, a second
    /// commentary track, are passed over without a word. Video needs a frame size and is
    /// never a cover picture. Data, timecode, metadata (`mebx`, `gpmd`) and subtitle
    /// streams are never used.
    static func usedStreams(_ streams: [StreamInfo]) -> (video: StreamInfo?, audio: StreamInfo?) {
        func pick(_ candidates: [StreamInfo]) -> StreamInfo? {
            let decodable = candidates.filter(\.isDecodable)
            return decodable.first(where: \.isDefault) ?? decodable.first
        }
        let video = streams.filter { $0.kind == .video && $0.size != nil && !$0.isAttachedPicture }
        let audio = streams.filter { $0.kind == .audio }
        return (pick(video), pick(audio.filter { ($0.channels ?? 1) > 0 }) ?? pick(audio))
    }

    /// The file as the composition builder sees it: its `video` and `audio` streams (the
    /// used ones, the video's field order resolved) with their checked durations.
    static func describe(_ demuxer: Demuxer, video: StreamInfo?, audio: StreamInfo?,
                         durations: DurationCheck.Durations) -> ProbedMedia {
        let container = durations.container
        var media = ProbedMedia(path: demuxer.path, duration: container, creationTime: demuxer.creationTime)
        /// A stream's extent from the file's shared origin: its own duration plus how
        /// long after the origin it starts.
        func extent(_ stream: StreamInfo) -> MediaTime {
            let own = durations.streams[stream.index] ?? container
            guard let start = stream.startTime else { return own }
            let offset = start - demuxer.origin(of: stream)
            return offset > .zero ? own + offset : own
        }
        if let video, let size = video.size, let shown = video.displaySize {
            media.video = .init(trackID: TrackID(video.index + 1),
                                timeRange: TimeRange(start: .zero, duration: extent(video)),
                                naturalSize: shown, encodedSize: size, pixelAspectRatio: video.pixelAspectRatio ?? .square,
                                fieldOrder: video.fieldOrder,
                                preferredTransform: video.displayMatrix?.preferredTransform(naturalSize: shown) ?? .identity,
                                frameDuration: nominalFrameDuration(video),
                                color: video.color?.resolved(width: size.width, height: size.height))
            media.video?.codec = video.codecName
            media.video?.pixelFormat = video.pixelFormat
            media.video?.isVariableFrameRate = video.isVariableFrameRate
            media.video?.colorIsStated = video.color.map {
                $0.primaries != .unknown && $0.transfer != .unknown && $0.matrix != .unknown
            } ?? false
        }
        if let audio {
            media.audio = .init(trackID: TrackID(audio.index + 1),
                                timeRange: TimeRange(start: .zero, duration: extent(audio)),
                                sampleRate: audio.sampleRate ?? 48000, channels: audio.channels ?? 2,
                                codec: audio.codecName)
        }
        return media
    }

    /// The time per frame a "source rate" output should use. For variable-rate video the
    /// nominal (real base) rate, the one every frame lies on, so a 30 fps clip with a
    /// pause or a 15 fps stretch stays 30 fps (the average would drop frames of the fast
    /// parts) — unless the nominal rate is implausibly far above the average (transport
    /// streams report 90 kHz), then the average.
    ///
    /// Interlaced video: the time per whole frame (two fields). Its nominal rate is often
    /// the field rate (H.264 in transport streams: 50 for 1080i50, whose frames come 25 a
    /// second), so the average decides when there is one.
    static func nominalFrameDuration(_ video: StreamInfo) -> MediaTime {
        if video.fieldOrder != nil, let average = video.averageFrameDuration { return average }
        switch (video.frameDuration, video.averageFrameDuration) {
        case let (nominal?, average?):
            return average.seconds / nominal.seconds <= 3 ? nominal : average
        case let (nominal?, nil): return nominal
        case let (nil, average?): return average
        case (nil, nil): return MediaTime(value: 1, timescale: 30)
        }
    }
}
