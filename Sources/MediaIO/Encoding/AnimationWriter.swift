internal import CDropcutFFmpeg
import Foundation
import DropcutTimeline

/// Writes an animation — WebP (libwebp's animation encoder through libavformat's webp
/// muxer) or GIF (libavcodec's gif encoder and muxer) —, silent, looping for ever, each
/// frame shown `frameDuration`. Pictures of any size and format are scaled into the
/// animation's size (bicubic; BT.601 video range as WebP stores it, RGB for GIF). The
/// frame that would run past the animation's `duration` is shown only until then (a
/// preview is cut at the output's end), never less than the format's tick. A GIF
/// frame gets a palette of its own (`MedianCutPalette`: 256 colours by median cut) and
/// light 4x4 ordered dithering.
/// Owns its format context, codec context, scaler and pictures; freed in `deinit`, which
/// also removes an unfinished file.
package final class AnimationWriter {
    package let path: String
    package let size: PixelSize
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let codecContext: CodecContext
    private let picture: VideoFrame
    /// GIF: the palette picture `picture` (RGB) is quantised into.
    private let indexed: VideoFrame?
    private let scaler = Scaler(filter: .bicubic)
    private let packet: Packet
    /// Milliseconds per frame, the encoder's clock.
    private let frameMilliseconds: Int64
    /// How long the whole animation lasts, in milliseconds: the last frame is cut there.
    private let totalMilliseconds: Int64
    /// GIF counts in hundredths of a second, WebP in milliseconds.
    private let tickMilliseconds: Int64
    private var frames: Int64 = 0
    /// Where the next frame starts, and how long the frame last added lasts (ms).
    private var elapsedMilliseconds: Int64 = 0
    private var lastFrameMilliseconds: Int64 = 0
    private var finished = false

    /// The animation formats.
    package enum Format: String, Sendable, Hashable, CaseIterable {
        case webp
        case gif

        /// The format for a file name's extension (any letter case), or nil.
        package init?(pathExtension: String) {
            self.init(rawValue: pathExtension.lowercased())
        }

        var encoderName: String { self == .webp ? "libwebp_anim" : "gif" }
    }

    /// True when this FFmpeg build has the format's encoder and muxer.
    package static func isAvailable(_ format: Format) -> Bool {
        avcodec_find_encoder_by_name(format.encoderName) != nil && av_guess_format(format.rawValue, nil, nil) != nil
    }

    /// Opens `path` for a `format` animation of `size` (even sides) at one frame per
    /// `frameDuration` (GIF counts in hundredths of a second), lasting at most `duration`
    /// (nil: as many frames as are added, each a whole `frameDuration`).
    package init(path: String, format animation: Format, size: PixelSize, frameDuration: MediaTime,
                duration: MediaTime? = nil) throws(FFmpegError) {
        self.path = path
        self.size = size
        tickMilliseconds = animation == .gif ? 10 : 1
        frameMilliseconds = Swift.max(1, Int64((frameDuration.seconds * 1000).rounded()))
        let total = duration.map { $0.seconds * 1000 } ?? .infinity
        totalMilliseconds = total.isFinite && total > 0 ? Int64(Swift.min(total, 1e12).rounded()) : .max
        guard let codec = avcodec_find_encoder_by_name(animation.encoderName) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder_by_name", path: path)
        }
        packet = try Packet()
        let codecContext = try CodecContext(codec: codec, path: path)
        let context = codecContext.pointer
        context.pointee.width = Int32(size.width)
        context.pointee.height = Int32(size.height)
        context.pointee.time_base = AVRational(num: 1, den: 1000)
        context.pointee.framerate = AVRational(num: 1000, den: Int32(clamping: frameMilliseconds))
        switch animation {
        case .webp:
            picture = try VideoFrame(width: size.width, height: size.height, pixelFormat: .yuv420p)
            picture.frame.pointee.colorspace = AVCOL_SPC_BT470BG
            indexed = nil
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            av_opt_set(context.pointee.priv_data, "quality", "75", 0)
        case .gif:
            picture = try VideoFrame(width: size.width, height: size.height, pixelFormat: PixelFormat(rawValue: AV_PIX_FMT_RGB24))
            indexed = try VideoFrame(width: size.width, height: size.height, pixelFormat: PixelFormat(rawValue: AV_PIX_FMT_PAL8))
            context.pointee.pix_fmt = AV_PIX_FMT_PAL8
            context.pointee.time_base = AVRational(num: 1, den: 100)
        }
        try codecContext.open()
        self.codecContext = codecContext

        var format: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&format, nil, animation.rawValue, path), "avformat_alloc_output_context2", path: path)
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
    package func add(_ frame: VideoFrame) throws(FFmpegError) {
        try picture.makeWritable()
        try scaler.scale(frame, region: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height),
                         into: picture, region: PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        var sent = picture
        if let indexed {
            try indexed.makeWritable()
            Self.quantise(picture, into: indexed)
            sent = indexed
        }
        // In the encoder's time base: milliseconds (WebP) or hundredths (GIF).
        let base = codecContext.pointer.pointee.time_base
        sent.pts = elapsedMilliseconds * Int64(base.den) / (1000 * Int64(base.num))
        // Cut at the animation's end, but never shorter than one tick.
        lastFrameMilliseconds = Swift.max(tickMilliseconds, Swift.min(frameMilliseconds, totalMilliseconds - elapsedMilliseconds))
        sent.frame.pointee.pkt_duration = lastFrameMilliseconds * Int64(base.den) / (1000 * Int64(base.num))
        elapsedMilliseconds += lastFrameMilliseconds
        frames += 1
        try check(avcodec_send_frame(codecContext.pointer, sent.frame), "avcodec_send_frame", path: path)
        try drain()
    }


    /// 4x4 Bayer thresholds, centred on 0 (-15...15, odd).
    private static let bayer: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5].map { $0 * 2 - 15 }

    /// The palette made for `rgb` (RGB24), written into `indexed`'s palette plane, and
    /// `rgb`'s pixels as its indices, dithered by up to ±4 levels a channel.
    private static func quantise(_ rgb: VideoFrame, into indexed: VideoFrame) {
        var histogram = [Int](repeating: 0, count: 1 << 15)
        rgb.withPlane(0) { source, stride in
            for y in 0..<rgb.height {
                for x in 0..<rgb.width {
                    let s = y * stride + x * 3
                    histogram[MedianCutPalette.cell(source[s], source[s + 1], source[s + 2])] += 1
                }
            }
        }
        var palette = MedianCutPalette(histogram: histogram)
        if let plane = indexed.frame.pointee.data.1 {
            plane.withMemoryRebound(to: UInt32.self, capacity: 256) { colours in
                for i in 0..<256 { colours[i] = i < palette.colours.count ? palette.colours[i] : 0xFF00_0000 }   // native-endian ARGB
            }
        }
        rgb.withPlane(0) { source, sourceStride in
            indexed.withPlane(0) { destination, destinationStride in
                for y in 0..<rgb.height {
                    for x in 0..<rgb.width {
                        let s = y * sourceStride + x * 3
                        let d = bayer[(y & 3) * 4 + (x & 3)] * 4 / 15
                        func dither(_ v: UInt8) -> UInt8 { UInt8(clamping: Int(v) + d) }
                        destination[y * destinationStride + x] = palette.index(r: dither(source[s]), g: dither(source[s + 1]), b: dither(source[s + 2]))
                    }
                }
            }
        }
    }

    /// Flushes the encoder and closes the file: complete only after this returns.
    package func finish() throws(FFmpegError) {
        guard let format, !finished else { return }
        try check(avcodec_send_frame(codecContext.pointer, nil), "avcodec_send_frame", path: path)
        try drain()
        if codecContext.pointer.pointee.time_base.den == 100, let options = format.pointee.priv_data {
            // The GIF muxer gives each frame the time to the next one; the last gets
            // `final_delay` (by default the delay before it: 0 for a single frame).
            try check(av_opt_set_int(options, "final_delay", Swift.max(1, (lastFrameMilliseconds + 5) / 10), 0), "av_opt_set_int", path: path)
        }
        try check(av_write_trailer(format), "av_write_trailer", path: path)
        try check(avio_closep(&format.pointee.pb), "avio_closep", path: path)
        if codecContext.pointer.pointee.time_base.den != 100 {
            // libwebp gives the last frame the duration of the one before it (FFmpeg does
            // not pass the animation's end): written into its ANMF chunk here.
            try Self.setLastWebPFrameDuration(path, milliseconds: lastFrameMilliseconds)
        }
        finished = true
    }

    /// Sets the duration of the last frame (its `ANMF` chunk's 24-bit field, WebP container
    /// specification) of the animated WebP this writer has just written at `path`. A still
    /// (one frame, no `ANMF` chunk) is left as it is. Walks the file's chunks, each step
    /// at least 8 bytes on, within the file's size.
    static func setLastWebPFrameDuration(_ path: String, milliseconds: Int64) throws(FFmpegError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw FFmpegError(code: cff_averror(errno), function: "open", path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FFmpegError(code: cff_averror(errno), function: "fstat", path: path) }
        let size = Int64(info.st_size)
        var header = [UInt8](repeating: 0, count: 8)
        func readHeader(at offset: Int64) -> Bool {
            header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 8, off_t(offset)) } == 8
        }
        var offset: Int64 = 12   // "RIFF" size "WEBP"
        var lastFrame: Int64?
        while offset + 8 <= size, readHeader(at: offset) {
            let length = Int64(header[4]) | Int64(header[5]) << 8 | Int64(header[6]) << 16 | Int64(header[7]) << 24
            if header[0..<4].elementsEqual("ANMF".utf8), length >= 16 { lastFrame = offset + 8 }
            offset += 8 + length + (length & 1)
        }
        guard let lastFrame else { return }
        let value = Swift.min(Swift.max(milliseconds, 1), 0xFF_FFFF)
        let bytes = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
        // X, Y, width - 1, height - 1 (3 bytes each), then the duration.
        guard bytes.withUnsafeBytes({ pwrite(fd, $0.baseAddress, 3, off_t(lastFrame + 12)) }) == 3 else {
            throw FFmpegError(code: cff_averror(errno), function: "pwrite", path: path)
        }
    }

    private func drain() throws(FFmpegError) {
        guard let format, let stream = format.pointee.streams[0] else { return }
        while try codecContext.receivePacket(into: packet) == .packet {
            packet.packet.pointee.stream_index = 0
            if packet.packet.pointee.duration == 0 {
                let base = codecContext.pointer.pointee.time_base
                packet.packet.pointee.duration = lastFrameMilliseconds * Int64(base.den) / (1000 * Int64(base.num))
            }
            av_packet_rescale_ts(packet.packet, codecContext.pointer.pointee.time_base, stream.pointee.time_base)
            try check(av_interleaved_write_frame(format, packet.packet), "av_interleaved_write_frame", path: path)
        }
    }
}
