import CFFmpeg
import Timeline

/// An open media file: owns one `AVFormatContext` from `avformat_open_input` until
/// `deinit` closes it. Reads the stream table at open.
public final class Demuxer {
    public let path: String
    /// Every stream, in file order (some phone files put audio first).
    public let streams: [StreamInfo]
    /// The container's duration, when known.
    public let duration: MediaTime?
    /// The container format's short name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`...).
    public let formatName: String

    private var context: UnsafeMutablePointer<AVFormatContext>?

    /// Opens `path` and probes its streams. Throws an `FFmpegError` naming the file when it
    /// is missing, unreadable or not media.
    public init(path: String) throws(FFmpegError) {
        self.path = path
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&context, path, nil, nil), "avformat_open_input", path: path)
        guard let opened = context else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_open_input", path: path)
        }
        do {
            try check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info", path: path)
        } catch {
            avformat_close_input(&context)
            throw error
        }
        self.context = opened
        self.streams = (0..<Int(opened.pointee.nb_streams)).map { Demuxer.describe(opened.pointee.streams[$0]!) }
        let containerDuration = opened.pointee.duration
        self.duration = containerDuration == cff_nopts_value() || containerDuration <= 0
            ? nil : MediaTime(value: containerDuration, timescale: AV_TIME_BASE)
        self.formatName = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
    }

    deinit {
        avformat_close_input(&context)
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>) -> StreamInfo {
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
        return StreamInfo(
            index: Int(stream.pointee.index),
            kind: kind,
            codecName: String(cString: avcodec_get_name(parameters.codec_id)),
            timeBase: timeBase,
            duration: duration,
            size: kind == .video ? PixelSize(width: Int(parameters.width), height: Int(parameters.height)) : nil,
            sampleRate: kind == .audio ? Int(parameters.sample_rate) : nil,
            channels: kind == .audio ? Int(parameters.ch_layout.nb_channels) : nil)
    }
}
