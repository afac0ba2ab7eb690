internal import CDropcutFFmpeg
import DropcutTimeline

/// An H.264 (libx264) or HEVC (libx265) encoder, holding one `CodecContext`
/// (freed with the encoder).
///
/// The loop is FFmpeg's (doc/examples/encode_video.c): `send` a frame, then call
/// `receivePacket(into:)` until it answers `.needsInput`; at the end `send(nil)` and
/// receive until `.endOfStream`. `Muxer.drain(_:into:)` runs the receiving half.
///
/// The time base is the frame duration, so a constant-rate stream numbers its frames
/// 0, 1, 2... in `VideoFrame.pts`. The encoder keeps a reference to a frame it has been
/// sent: call `VideoFrame.makeWritable()` before drawing into the same frame again.
package final class VideoEncoder {
    /// What the encoder was opened with.
    package let settings: VideoEncoderSettings
    /// One tick of the encoder's clock: the frame duration. Packet timestamps are in it.
    package let timeBase: MediaTime

    private let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private var flushed = false

    /// Opens the encoder `settings.codec.encoderName`. `globalHeader` puts the parameter
    /// sets (SPS/PPS/VPS) in the codec extradata instead of in-band, which MP4/MOV need
    /// (`Muxer.needsGlobalHeader`).
    ///
    /// Throws an `FFmpegError` when the encoder is not in this FFmpeg build
    /// ("Encoder not found"), or rejects the settings: an unknown preset, a size the pixel
    /// format cannot hold, an invalid frame duration, an HDR colour in fewer than 10 bits
    /// ("Invalid argument", from `avcodec_open2`).
    package init(settings: VideoEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        self.settings = settings
        let name = settings.codec.encoderName
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder_by_name", path: nil)
        }
        let codecContext = try CodecContext(codec: codec, path: nil)
        try Self.configure(codecContext.pointer, settings: settings, globalHeader: globalHeader)
        try codecContext.open()
        self.codecContext = codecContext
        self.timeBase = codecContext.timeBase
    }

    private static func configure(_ context: UnsafeMutablePointer<AVCodecContext>, settings: VideoEncoderSettings,
                                  globalHeader: Bool) throws(FFmpegError) {
        let format = settings.pixelFormat.rawValue
        // libx264 refuses an odd size for 4:2:0 with AVERROR_EXTERNAL ("Generic error in an
        // external library") and libx265 with AVERROR_INVALIDDATA, neither naming the
        // cause: report it as the invalid argument to avcodec_open2 that it is, up front.
        if let descriptor = av_pix_fmt_desc_get(format) {
            let xStep = 1 << Int(descriptor.pointee.log2_chroma_w), yStep = 1 << Int(descriptor.pointee.log2_chroma_h)
            if settings.size.width % xStep != 0 || settings.size.height % yStep != 0 {
                throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_open2", path: nil)
            }
        }
        // HDR in 8 bits bands visibly and is a known failure of other pipelines (8-bit
        // output still tagged HLG): refuse it as an invalid argument.
        if settings.color.isHDR && settings.pixelFormat.bitDepth < 10 {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_open2", path: nil)
        }
        let c = context
        c.pointee.width = Int32(clamping: settings.size.width)
        c.pointee.height = Int32(clamping: settings.size.height)
        c.pointee.pix_fmt = format
        // A zero, negative or non-numeric duration gives a time base avcodec_open2 rejects.
        let tick = rational(settings.frameDuration)
        c.pointee.time_base = tick
        c.pointee.framerate = AVRational(num: tick.den, den: tick.num)
        c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // Tag the stream (BT.709 for SDR) so players do not guess (they guess BT.601 for
        // small pictures). yuvj formats are full range by definition.
        let tags = ColorTags.tags(of: settings.color)
        c.pointee.color_range = settings.pixelFormat.isFullRangeYUV ? AVCOL_RANGE_JPEG : tags.range
        c.pointee.colorspace = tags.matrix
        c.pointee.color_primaries = tags.primaries
        c.pointee.color_trc = tags.transfer
        if let points = settings.colourCodePoints {
            // Only values ISO/IEC 23091-2 defines (0...255; the libraries' enums reach 22).
            guard (0...255).contains(points.primaries), (0...255).contains(points.transfer), (0...255).contains(points.matrix) else {
                throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_open2", path: nil)
            }
            c.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(points.primaries))
            c.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(points.transfer))
            c.pointee.colorspace = AVColorSpace(rawValue: UInt32(points.matrix))
            c.pointee.color_range = points.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        }
        c.pointee.thread_count = 0  // one thread per core, chosen by the encoder
        if globalHeader { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }

        // A fixed GOP: keyframes every `interval` frames only, closed (x264's GOPs are closed
        // unless asked; x265's are open by default).
        var fixedGOP: String?
        if let interval = settings.keyframeInterval {
            guard interval >= 1, let frames = Int32(exactly: interval) else {
                throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_open2", path: nil)
            }
            c.pointee.gop_size = frames
            c.pointee.keyint_min = frames
            fixedGOP = "keyint=\(interval):min-keyint=\(interval):scenecut=0:open-gop=0"
        }

        let options = c.pointee.priv_data
        if settings.codec == .h264 {
            var parameters = fixedGOP.map { [$0] } ?? []
            if let match = settings.spliceMatch {
                // Only what the caller checked: a profile x264 makes, a level and id in range.
                guard ["baseline", "main", "high"].contains(match.profile), (9...62).contains(match.level),
                      (0...31).contains(match.parameterSetID), !(match.profile == "baseline" && match.cabac) else {
                    throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_open2", path: nil)
                }
                parameters.append("annexb=0:sps-id=\(match.parameterSetID):cabac=\(match.cabac ? 1 : 0)")
                try check(av_opt_set(options, "level", String(match.level), 0), "av_opt_set", path: nil)
            }
            if !parameters.isEmpty {
                try check(av_opt_set(options, "x264-params", parameters.joined(separator: ":"), 0), "av_opt_set", path: nil)
            }
        }
        try check(av_opt_set(options, "crf", String(settings.crf), 0), "av_opt_set", path: nil)
        try check(av_opt_set(options, "preset", settings.preset, 0), "av_opt_set", path: nil)
        // High profile plays everywhere 8-bit 4:2:0 does; other formats need x264's own
        // choice (High 4:2:2, High 4:4:4), and so does `crf: 0`, which is lossless: x264
        // codes it only in High 4:4:4 Predictive and refuses "high" outright.
        if settings.codec == .h264, settings.crf > 0 || settings.spliceMatch != nil,
           format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_NV12 {
            try check(av_opt_set(options, "profile", settings.spliceMatch?.profile ?? "high", 0), "av_opt_set", path: nil)
        }
        // x265 prints its own banner and statistics to stderr, bypassing av_log (and so
        // the daemon's log level): keep only its warnings and errors.
        if settings.codec == .hevc {
            var parameters = "log-level=warning"
            // HLG: the alternative transfer characteristics SEI (payload 147) with HLG (18)
            // as the preferred transfer, on every random-access picture — what ETSI TS
            // 101 154 asks HLG10 streams to carry — beside the VUI's own HLG tag (docs/hdr.md
            // "Keeping HDR" has why both). No mastering-display or light-level SEI: HLG
            // needs none, and x265 writes them only when told to.
            if settings.color.transfer == .hlg { parameters += ":atc-sei=18" }
            if let fixedGOP { parameters += ":" + fixedGOP }
            try check(av_opt_set(options, "x265-params", parameters, 0), "av_opt_set", path: nil)
        }
    }

    /// `time` as an `AVRational`, reduced (and approximated if it does not fit in 32 bits).
    private static func rational(_ time: MediaTime) -> AVRational {
        guard time.isNumeric else { return AVRational(num: 0, den: 0) }
        var num: Int32 = 0, den: Int32 = 0
        av_reduce(&num, &den, time.value, Int64(time.timescale), Int64(Int32.max))
        return AVRational(num: num, den: den)
    }

    /// The stream's `CODECS` value for an HLS playlist (RFC 6381: `avc1.640028`,
    /// `hvc1.1.6.L93.B0`), read from the parameter sets the encoder put in its extradata
    /// (opened with `globalHeader`); nil when there are none.
    package var codecsAttribute: String? {
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
        switch settings.codec {
        case .h264: return CodecsAttribute.avc(parameterSets: bytes)
        case .hevc: return CodecsAttribute.hevc(parameterSets: bytes)
        }
    }

    /// The codec extradata the encoder was opened with (with `globalHeader`: its
    /// parameter sets); empty when there is none.
    package var extradata: [UInt8] {
        guard let extradata = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: extradata, count: Int(context.pointee.extradata_size)))
    }

    /// The most frames a packet is decoded ahead of its presentation (B-frame reordering).
    package var reorderDepth: Int { Int(context.pointee.has_b_frames) }

    /// Sends one frame (its `pts` in `timeBase` units, i.e. a frame number for constant
    /// rate), or nil to flush: after `send(nil)`, receive until `.endOfStream`. Flushing
    /// twice is harmless; a frame after the flush throws.
    ///
    /// A frame whose size or pixel format differs from the settings, or without a pts,
    /// throws "Invalid argument" (the encoders would read outside it or mistime it).
    package func send(_ frame: VideoFrame?) throws(FFmpegError) {
        guard let frame else {
            if flushed { return }
            try check(avcodec_send_frame(context, nil), "avcodec_send_frame", path: nil)
            flushed = true
            return
        }
        guard frame.width == settings.size.width, frame.height == settings.size.height,
              frame.pixelFormat == settings.pixelFormat, frame.pts != nil else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_send_frame", path: nil)
        }
        // A frame that came out of a decoder keeps its picture type, and libx264 turns an
        // I there into a forced keyframe: let the encoder choose its own GOP.
        frame.frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
        try check(avcodec_send_frame(context, frame.frame), "avcodec_send_frame", path: nil)
    }

    /// Fills `packet` with the next compressed packet, timestamps in `timeBase`, or says
    /// why there is none: `.needsInput` (send another frame) or `.endOfStream` (flushed
    /// and empty). Whatever `packet` held before is released.
    package func receivePacket(into packet: Packet) throws(FFmpegError) -> EncoderResult {
        let result = try codecContext.receivePacket(into: packet)
        guard result == .packet else { return result }
        // libx264/libx265 leave the duration unset, and MP4 then gives the last frame no
        // time at all: each packet is one frame, one tick of this time base.
        if packet.packet.pointee.duration == 0 { packet.packet.pointee.duration = 1 }
        return .packet
    }
}

