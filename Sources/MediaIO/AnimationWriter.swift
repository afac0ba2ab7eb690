internal import CFFmpeg
import Foundation
import Timeline

/// Writes an animated WebP (libwebp's animation encoder through libavformat's webp muxer):
/// silent, looping forever, each frame shown `frameDuration`. Pictures of any size and
/// format are scaled into the animation's size (bicubic, BT.601 video range as WebP
/// stores it). Owns its format context, codec context, scaler and picture; freed in
/// `deinit`, which also removes an unfinished file.
public final class AnimationWriter {
    public let path: String
    public let size: PixelSize
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let codecContext: CodecContext
    private let picture: VideoFrame
    private let scaler = Scaler(filter: .bicubic)
    private let packet: Packet
    /// Milliseconds per frame, the encoder's clock.
    private let frameMilliseconds: Int64
    private var frames: Int64 = 0
    private var finished = false

    /// True when this FFmpeg build has libwebp's animation encoder and the webp muxer.
    public static var isAvailable: Bool {
        avcodec_find_encoder_by_name("libwebp_anim") != nil && av_guess_format("webp", nil, nil) != nil
    }

    /// Opens `path` for an animation of `size` (even sides) at one frame per `frameDuration`.
    public init(path: String, size: PixelSize, frameDuration: MediaTime) throws(FFmpegError) {
        self.path = path
        self.size = size
        frameMilliseconds = Swift.max(1, Int64((frameDuration.seconds * 1000).rounded()))
        guard let codec = avcodec_find_encoder_by_name("libwebp_anim") else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder_by_name", path: path)
        }
        packet = try Packet()
        picture = try VideoFrame(width: size.width, height: size.height, pixelFormat: .yuv420p)
        picture.frame.pointee.colorspace = AVCOL_SPC_BT470BG
        let codecContext = try CodecContext(codec: codec, path: path)
        let context = codecContext.pointer
        context.pointee.width = Int32(size.width)
        context.pointee.height = Int32(size.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: 1, den: 1000)
        context.pointee.framerate = AVRational(num: 1000, den: Int32(clamping: frameMilliseconds))
        av_opt_set(context.pointee.priv_data, "quality", "75", 0)
        try codecContext.open()
        self.codecContext = codecContext

        var format: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&format, nil, "webp", path), "avformat_alloc_output_context2", path: path)
        guard let format else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_alloc_output_context2", path: path)
        }
        self.format = format
        guard let stream = avformat_new_stream(format, nil) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_new_stream", path: path)
        }
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, context), "avcodec_parameters_from_context", path: path)
        stream.pointee.time_base = context.pointee.time_base
        try check(avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", path: path)
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        try check(av_dict_set(&options, "loop", "0", 0), "av_dict_set", path: path)   // 0: for ever
        try check(avformat_write_header(format, &options), "avformat_write_header", path: path)
    }

    deinit {
        if let format {
            if format.pointee.pb != nil { avio_closep(&format.pointee.pb) }
            avformat_free_context(format)
        }
        if !finished { _ = unlink(path) }
    }

    /// Adds `frame`, scaled into the animation.
    public func add(_ frame: VideoFrame) throws(FFmpegError) {
        try picture.makeWritable()
        try scaler.scale(frame, region: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height),
                         into: picture, region: PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        picture.pts = frames * frameMilliseconds
        frames += 1
        try check(avcodec_send_frame(codecContext.pointer, picture.frame), "avcodec_send_frame", path: path)
        try drain()
    }

    /// Flushes the encoder and closes the file: complete only after this returns.
    public func finish() throws(FFmpegError) {
        guard let format, !finished else { return }
        try check(avcodec_send_frame(codecContext.pointer, nil), "avcodec_send_frame", path: path)
        try drain()
        try check(av_write_trailer(format), "av_write_trailer", path: path)
        try check(avio_closep(&format.pointee.pb), "avio_closep", path: path)
        finished = true
    }

    private func drain() throws(FFmpegError) {
        guard let format, let stream = format.pointee.streams[0] else { return }
        while try codecContext.receivePacket(into: packet) == .packet {
            packet.packet.pointee.stream_index = 0
            av_packet_rescale_ts(packet.packet, codecContext.pointer.pointee.time_base, stream.pointee.time_base)
            try check(av_interleaved_write_frame(format, packet.packet), "av_interleaved_write_frame", path: path)
        }
    }
}
