internal import CDropcutFFmpeg
import DropcutTimeline

/// An open media file: owns one `AVFormatContext` from `avformat_open_input` until
/// `deinit` closes it. Reads the stream table at open.
package final class Demuxer {
    package let path: String
    /// Every stream, in file order (some phone files put audio first).
    package let streams: [StreamInfo]
    /// The container's duration, when known. What the header says: `AssetProbe` checks it
    /// against the packets before a composition relies on it.
    package let duration: MediaTime?
    /// When the container's first sample is presented, when known.
    let startTime: MediaTime?
    /// True when FFmpeg guessed `duration` from the file size and the bitrate (an MP3
    /// without an Info header, a stream with no index): a guess, not a statement.
    let durationIsEstimated: Bool
    /// The container format's short name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`...).
    package let formatName: String
    /// The container's `creation_time` tag (ISO 8601, as cameras and phones write it).
    package let creationTime: String?

    /// The demuxers this file may be opened with, and the one it was told to use, for
    /// `reopened()`.
    private let formats: [String]
    private let format: String?
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// How many packets `read(into:)` has returned: what reading this file has cost so far
    /// (the packets `avformat_find_stream_info` probed at open are not counted).
    private(set) var packetsRead = 0

    /// The demuxers dropcut opens: real containers of recorded media. Not playlists
    /// (`hls`), scripts (`concat`), image sequences (`image2`), text (`tty`), devices,
    /// `lavfi` or network formats: any of those dropped into an inbox would make dropcut
    /// read other files (another folder's archive) or hosts into someone's output.
    package static let containers = [
        "mov", "mp4", "m4a", "3gp", "3g2", "mj2",   // QuickTime / MP4 (one demuxer)
        "matroska", "webm", "mpegts", "mpeg", "avi", "flv", "mxf", "asf", "dv",
        "mp3", "wav", "w64", "aac", "ac3", "eac3", "flac", "ogg", "aiff", "caf", "amr",
    ]

    /// The demuxers for still pictures (overlay images): one file each — `image2` reads no
    /// sequence or pattern here (`pattern_type` none).
    package static let images = ["image2", "png_pipe", "jpeg_pipe"]

    /// Opens `path` and probes its streams. Throws an `FFmpegError` naming the file when it
    /// is missing, unreadable, not media, or in a format that is not in `formats`
    /// (`containers`, or `images` for pictures). Only the `file` protocol is allowed, for
    /// the file and anything it refers to.
    ///
    /// `format` (one of `formats`) opens the file with that demuxer without probing it:
    /// for a picture whose format its content told (`contentFormat(of:)`), so that its
    /// name cannot make `image2` claim it by extension.
    ///
    /// `probeStreams: false` skips `avformat_find_stream_info`, which decodes a picture
    /// whole to learn its pixel format: for a still picture, whose header was already read
    /// and judged (`PictureHeader`) and which is decoded once, next. Its stream then states
    /// no size; the decoded frame does.
    package init(path: String, formats: [String] = Demuxer.containers, format: String? = nil,
                probeStreams: Bool = true) throws(FFmpegError) {
        self.path = path
        self.formats = formats
        self.format = format
        var forced: UnsafePointer<AVInputFormat>?
        if let format {
            guard formats.contains(format), let found = av_find_input_format(format) else {
                throw FFmpegError(code: FFmpegError.demuxerNotFound, function: "av_find_input_format", path: path, note: "no demuxer \(format) here")
            }
            forced = found
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        try check(av_dict_set(&options, "protocol_whitelist", "file", 0), "av_dict_set", path: path)
        try check(av_dict_set(&options, "format_whitelist", formats.joined(separator: ","), 0), "av_dict_set", path: path)
        try check(av_dict_set(&options, "pattern_type", "none", 0), "av_dict_set", path: path)
        let opened = avformat_open_input(&context, path, forced, &options)
        if opened == cff_averror(EINVAL) {
            // What avformat_open_input says when the probed format is not on the list.
            throw FFmpegError(code: FFmpegError.demuxerNotFound, function: "avformat_open_input", path: path,
                              note: formats.allSatisfy(Self.images.contains) ? "not a supported picture (dropcut reads PNG and JPEG)"
                                : "not a supported media container (dropcut reads MP4/MOV/3GP, Matroska/WebM, MPEG-TS/PS, AVI, FLV, MXF, ASF, DV and audio files)")
        }
        if opened == FFmpegError.invalidData, Self.startsWithISOBox(path) {
            // What FFmpeg says of an MP4/MOV whose index (moov) has not arrived: "moov atom
            // not found", logged, and invalid data returned.
            throw FFmpegError(code: opened, function: "avformat_open_input", path: path,
                              note: "the file is incomplete: an MP4/MOV without its index (the moov box), "
                                  + "so it was still being written or was cut short while it was copied",
                              incompleteFile: true)
        }
        try check(opened, "avformat_open_input", path: path)
        guard let opened = context else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_open_input", path: path)
        }
        do {
            if probeStreams { try check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info", path: path) }
        } catch {
            avformat_close_input(&context)
            throw error
        }
        self.context = opened
        self.streams = (0..<Int(opened.pointee.nb_streams)).map { Demuxer.describe(opened.pointee.streams[$0]!, in: opened) }
        let containerDuration = opened.pointee.duration
        self.duration = containerDuration == cff_nopts_value() || containerDuration <= 0
            ? nil : MediaTime(value: containerDuration, timescale: AV_TIME_BASE)
        let containerStart = opened.pointee.start_time
        self.startTime = containerStart == cff_nopts_value() ? nil : MediaTime(value: containerStart, timescale: AV_TIME_BASE)
        self.durationIsEstimated = opened.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
        self.formatName = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        self.creationTime = av_dict_get(opened.pointee.metadata, "creation_time", nil, 0)
            .flatMap { $0.pointee.value.map { String(cString: $0) } }
    }

    deinit {
        avformat_close_input(&context)
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let timeBase = MediaTime(value: Int64(stream.pointee.time_base.num), timescale: stream.pointee.time_base.den)
        let duration = stream.pointee.duration == cff_nopts_value() ? nil
            : timeBase.multiplied(by: stream.pointee.duration, dividedBy: 1)
        let kind: StreamInfo.Kind
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        var info = StreamInfo(
            index: Int(stream.pointee.index),
            kind: kind,
            codecName: String(cString: avcodec_get_name(parameters.codec_id)),
            timeBase: timeBase,
            duration: duration,
            size: kind == .video ? PixelSize(width: Int(parameters.width), height: Int(parameters.height)) : nil,
            sampleRate: kind == .audio ? Int(parameters.sample_rate) : nil,
            channels: kind == .audio ? Int(parameters.ch_layout.nb_channels) : nil)
        if stream.pointee.start_time != cff_nopts_value() {
            info.startTime = timeBase.multiplied(by: stream.pointee.start_time, dividedBy: 1)
        }
        switch kind {
        case .video:
            info.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(parameters.format)).map { String(cString: $0) }
            info.frameDuration = frameDuration(of: stream.pointee.r_frame_rate)
            info.averageFrameDuration = frameDuration(of: stream.pointee.avg_frame_rate)
            info.displayMatrix = displayMatrix(of: stream)
            // The container's ratio (MOV `pasp`, Matroska display size) wins over the
            // codec's, as the ffmpeg CLI decides.
            let aspect = av_guess_sample_aspect_ratio(context, stream, nil)
            info.pixelAspectRatio = PixelAspectRatio(horizontalSpacing: Int(aspect.num), verticalSpacing: Int(aspect.den))
            info.fieldOrder = fieldOrder(parameters.field_order)
            info.statesFieldOrder = parameters.field_order != AV_FIELD_UNKNOWN
            info.color = ColorTags.description(of: stream)
        case .audio:
            var layout = parameters.ch_layout
            var name = [CChar](repeating: 0, count: 64)
            if av_channel_layout_describe(&layout, &name, name.count) >= 0 {
                info.channelLayout = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        default:
            break
        }
        let disposition = stream.pointee.disposition
        info.isDefault = disposition & AV_DISPOSITION_DEFAULT != 0
        info.isAttachedPicture = disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        info.isDecodable = avcodec_find_decoder(parameters.codec_id) != nil
        return info
    }

    /// 1 / rate, or nil for an unknown (0/0) rate.
    private static func frameDuration(of rate: AVRational) -> MediaTime? {
        guard rate.num > 0, rate.den > 0 else { return nil }
        return MediaTime(value: Int64(rate.den), timescale: rate.num)
    }

    /// FFmpeg's field order as dropcut's; nil for progressive or unknown (an unknown one is
    /// then asked of the frames: `FieldOrderDetection`). `TB`/`BT` (fields
    /// coded in one order, shown in the other) are shown first field first as the names'
    /// second letter says: the field displayed first is what matters here.
    private static func fieldOrder(_ order: AVFieldOrder) -> FieldOrder? {
        switch order {
        case AV_FIELD_TT, AV_FIELD_BT: return .topFirst
        case AV_FIELD_BB, AV_FIELD_TB: return .bottomFirst
        default: return nil
        }
    }

    /// The stream's display matrix side data (nine 32-bit numbers, libavutil/display.h),
    /// read as it is: `DisplayMatrix` interprets it.
    private static func displayMatrix(of stream: UnsafeMutablePointer<AVStream>) -> DisplayMatrix? {
        var size: Int = 0
        let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size)
        return DisplayMatrix(sideData: data.map(UnsafeRawPointer.init), size: size)
    }

    // MARK: Reading

    /// The stream's time base as a one-tick time.
    func timeBase(ofStream index: Int) -> MediaTime {
        streams[index].timeBase
    }

    /// Codec parameters of stream `index`, for opening its decoder.
    func codecParameters(ofStream index: Int) -> UnsafeMutablePointer<AVCodecParameters>? {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams[index]!.pointee.codecpar
    }

    /// Stream `index` itself, for copying its parameters (`Muxer.addStream(copying:stream:)`).
    func stream(at index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams[index]
    }

    /// Reads the next packet of any stream into `packet`; false at the end of the file.
    func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let result = av_read_frame(context, packet.packet)
        if result == FFmpegError.endOfFile { return false }
        try check(result, "av_read_frame", path: path)
        packetsRead += 1
        return true
    }

    /// The same file opened again, at its first packet: for reading it from the start once
    /// this one has been moved (seeks on some demuxers cannot go back exactly to the start).
    /// Where source time 0 of `stream` lies, in the stream's own time: the file's start
    /// (its earliest stream's first sample), which all its tracks share as in AVFoundation
    /// — a video stream starting 80 ms after its audio (a camera's transport stream) keeps
    /// that offset, and frames presented before its own stated start are not lost — or the
    /// stream's own start when the file states none or one implausibly far from it (more
    /// than a second: a damaged or hostile timestamp must not shift a track).
    func origin(of stream: StreamInfo) -> MediaTime {
        guard let own = stream.startTime else { return startTime ?? .zero }
        guard let file = startTime, file <= own, (own - file).seconds <= 1 else { return own }
        return file
    }

    /// Whether stream `index`'s sample index (an MP4/MOV's sample tables) places media
    /// past the end of the file: the file was cut short (a copy or upload that stopped),
    /// and its header's duration is the one it was meant to have.
    func indexExtendsPastEnd(ofStream index: Int) -> Bool {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams),
              let stream = context.pointee.streams[index], let io = context.pointee.pb else { return false }
        let size = avio_size(io)
        let count = avformat_index_get_entries_count(stream)
        guard size > 0, count > 0, let last = avformat_index_get_entry(stream, count - 1) else { return false }
        let (end, overflow) = last.pointee.pos.addingReportingOverflow(Int64(last.pointee.size))
        return !overflow && last.pointee.pos >= 0 && end > size
    }

    func reopened() throws(FFmpegError) -> Demuxer {
        try Demuxer(path: path, formats: formats, format: format)
    }

    /// Reads every packet from where the demuxer stands to the end of the file into
    /// `spans` (no decoding), but those the container discards (`Packet.isDiscarded`). A read error ends the reading as the end of the file does —
    /// a damaged or truncated tail: what could be read is what the file holds — and
    /// returns false.
    @discardableResult
    func readSpans(into spans: inout PacketSpans) throws(FFmpegError) -> Bool {
        let packet = try Packet()
        while true {
            do {
                guard try read(into: packet) else { return true }
            } catch {
                return false
            }
            let index = Int(packet.packet.pointee.stream_index)
            // Samples an edit list leaves out are not part of the stream's length.
            guard streams.indices.contains(index), !packet.isDiscarded, let start = packet.pts ?? packet.dts else { continue }
            spans.add(stream: index, start: start, duration: packet.duration)
        }
    }

    /// How long each stream really lasts, by reading every packet from where the demuxer
    /// stands (no decoding): for containers that do not say (WebM from browsers, live
    /// recordings) or whose header cannot be believed (`DurationCheck`). From each
    /// stream's first timestamp to the end of its last packet, stray damaged timestamps
    /// far from the rest left out (`PacketSpans`); streams without timestamps are left out. Leaves the demuxer at the end of the file: whoever reads the file
    /// afterwards opens their own (as `AssetProbe` and the track readers do). Audio in
    /// fixed blocks lasts no longer than its packets can hold (`audioContent`).
    func measuredDurations() throws(FFmpegError) -> [Int: MediaTime] {
        var spans = PacketSpans()
        try readSpans(into: &spans)
        var durations: [Int: MediaTime] = [:]
        for index in spans.streams {
            // Measured because the header cannot be believed: a packet's stated duration
            // cannot be either (`PacketSpans.span`).
            guard let ticks = spans.durationTicks(of: index, timeBase: streams[index].timeBase, trustingDurations: false) else { continue }
            var duration = streams[index].timeBase.multiplied(by: ticks, dividedBy: 1)
            if let content = audioContent(ofStream: index, packets: spans.packetCount(of: index)), content < duration {
                duration = content
            }
            durations[index] = duration
        }
        return durations
    }

    /// How long the audio in `packets` packets of stream `index` can last, when its codec
    /// codes fixed blocks (AAC 1024 samples, MP3 1152): every packet holds one, whatever
    /// the timestamps say — a damaged time base (1/1000 for 44.1 kHz AAC) spread 2 s of
    /// sound over 72. A tenth more and a block spare, for priming and the odd packet
    /// split. Nil for codecs of varying blocks (PCM, Vorbis, Opus).
    func audioContent(ofStream index: Int, packets: Int) -> MediaTime? {
        guard let parameters = codecParameters(ofStream: index), parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return nil }
        let block = Int64(parameters.pointee.frame_size), rate = parameters.pointee.sample_rate
        guard block > 0, rate > 0, packets > 0 else { return nil }
        let samples = (Int64(packets) + 1) * block
        return MediaTime(value: samples + samples / 10, timescale: rate)
    }

    /// Seeks stream `index` to the last keyframe at or before `time` (stream time, start
    /// time included).
    func seek(stream index: Int, to time: MediaTime) throws(FFmpegError) {
        // The time base is num/den (num is 1 for nearly every container).
        let timeBase = streams[index].timeBase
        let ticks = time.convertScale(timeBase.timescale, rounding: .down).value / max(1, timeBase.value)
        try check(av_seek_frame(context, Int32(index), ticks, AVSEEK_FLAG_BACKWARD), "av_seek_frame", path: path, stream: index)
    }
}
