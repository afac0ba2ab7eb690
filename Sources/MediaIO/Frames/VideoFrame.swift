internal import CDropcutFFmpeg
import DropcutTimeline

/// A picture, owning one `AVFrame` (allocated in `init`, freed in `deinit`). Planes are
/// reached through `withPlane`; the `AVFrame` itself never leaves MediaIO.
package final class VideoFrame {
    let frame: UnsafeMutablePointer<AVFrame>

    /// A frame of `width`x`height` in `pixelFormat`, with its buffers allocated
    /// (32-byte aligned rows, as SIMD code in swscale and the encoders like), tagged
    /// video-range BT.709.
    package init(width: Int, height: Int, pixelFormat: PixelFormat = .yuv420p) throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_frame_alloc", path: nil)
        }
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = pixelFormat.rawValue.rawValue
        // What dropcut writes: video-range BT.709 (the tags the encoder puts on the stream),
        // so a picture made here and converted again is not taken for untagged SD video.
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        let result = av_frame_get_buffer(frame, 32)
        if result < 0 {
            var doomed: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&doomed)
            throw FFmpegError(code: result, function: "av_frame_get_buffer", path: nil)
        }
        self.frame = frame
    }

    /// An empty frame for a decoder or a filter to fill (`avcodec_receive_frame`,
    /// `take(from:)` and `prepare(like:)` give it buffers).
    package init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_frame_alloc", path: nil)
        }
        self.frame = frame
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&doomed)
    }

    package var width: Int { Int(frame.pointee.width) }
    package var height: Int { Int(frame.pointee.height) }
    package var size: PixelSize { PixelSize(width: width, height: height) }
    package var pixelFormat: PixelFormat { PixelFormat(rawValue: AVPixelFormat(frame.pointee.format)) }

    /// The presentation timestamp in the frame's time base, as FFmpeg stores it.
    package var pts: Int64? {
        get { frame.pointee.pts == cff_nopts_value() ? nil : frame.pointee.pts }
        set { frame.pointee.pts = newValue ?? cff_nopts_value() }
    }

    /// Runs `body` with plane `index`'s bytes (`rows × stride` of them) and its stride.
    /// Rows are `stride` bytes apart; only the first `planeWidth(index)` bytes of a row
    /// are picture.
    package func withPlane<R>(_ index: Int, _ body: (UnsafeMutableRawBufferPointer, _ stride: Int) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < 4, "plane index \(index) out of range")
        let stride = Int(withUnsafePointer(to: &frame.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[index] } })
        let base = withUnsafePointer(to: &frame.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[index] }
        }
        guard let base, stride > 0 else { return try body(UnsafeMutableRawBufferPointer(start: nil, count: 0), 0) }
        return try body(UnsafeMutableRawBufferPointer(start: base, count: stride * planeHeight(index)), stride)
    }

    /// Rows in plane `index` (chroma planes of 4:2:0 have half as many, rounded up).
    package func planeHeight(_ index: Int) -> Int {
        index == 0 || index == 3 || !pixelFormat.isChromaSubsampledVertically ? height : (height + 1) / 2
    }

    /// Bytes of picture in one row of plane `index` (for 8-bit planar formats).
    package func planeWidth(_ index: Int) -> Int {
        index == 0 || index == 3 || !pixelFormat.isChromaSubsampledHorizontally ? width : (width + 1) / 2
    }

    /// True when the decoder says the frame holds two interlaced fields.
    package var isInterlaced: Bool { frame.pointee.interlaced_frame != 0 }
    /// For an interlaced frame: true when its top field (even lines) comes first.
    package var isTopFieldFirst: Bool { frame.pointee.top_field_first != 0 }

    /// True when `other` has this frame's size and pixel format (its planes line up).
    package func hasSameShape(as other: VideoFrame) -> Bool {
        width == other.width && height == other.height && frame.pointee.format == other.frame.pointee.format
    }

    /// Takes `other`'s picture and properties, leaving `other` empty for the next decode
    /// (av_frame_move_ref: no pixels are copied).
    package func take(from other: VideoFrame) {
        av_frame_unref(frame)
        av_frame_move_ref(frame, other.frame)
    }

    /// Releases the picture (a frame kept between uses holds no decoder buffer).
    package func release() {
        av_frame_unref(frame)
    }

    /// Gives the frame buffers of `model`'s size and format (kept when they already fit
    /// and are this frame's own, so a steady stream allocates nothing) and `model`'s
    /// properties: colour tags, timestamps, aspect.
    package func prepare(like model: VideoFrame) throws(FFmpegError) {
        let fits = frame.pointee.width == model.frame.pointee.width && frame.pointee.height == model.frame.pointee.height
            && frame.pointee.format == model.frame.pointee.format && frame.pointee.buf.0 != nil
            && av_frame_is_writable(frame) != 0
        if !fits {
            av_frame_unref(frame)
            frame.pointee.width = model.frame.pointee.width
            frame.pointee.height = model.frame.pointee.height
            frame.pointee.format = model.frame.pointee.format
            try check(av_frame_get_buffer(frame, 32), "av_frame_get_buffer", path: nil)
        }
        try check(av_frame_copy_props(frame, model.frame), "av_frame_copy_props", path: nil)
    }

    /// Makes the buffers writable, copying them if a decoder or encoder still holds a
    /// reference (av_frame_make_writable).
    package func makeWritable() throws(FFmpegError) {
        try check(av_frame_make_writable(frame), "av_frame_make_writable", path: nil)
    }
}

/// A pixel format, as FFmpeg names it. Only the formats dropcut handles are public
/// (`yuv420p`, `nv12`...); the FFmpeg enum stays inside MediaIO.
package struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let rawValue: AVPixelFormat
    init(rawValue: AVPixelFormat) { self.rawValue = rawValue }

    package static let yuv420p = PixelFormat(rawValue: AV_PIX_FMT_YUV420P)
    package static let yuvj420p = PixelFormat(rawValue: AV_PIX_FMT_YUVJ420P)
    package static let nv12 = PixelFormat(rawValue: AV_PIX_FMT_NV12)
    package static let rgba = PixelFormat(rawValue: AV_PIX_FMT_RGBA)
    package static let yuva420p = PixelFormat(rawValue: AV_PIX_FMT_YUVA420P)
    /// 8-bit luma only: what analysis looks at.
    package static let gray = PixelFormat(rawValue: AV_PIX_FMT_GRAY8)

    /// The format FFmpeg calls `name` (`yuv420p10le`), nil when it knows none.
    package static func named(_ name: String) -> PixelFormat? {
        let format = av_get_pix_fmt(name)
        return format == AV_PIX_FMT_NONE ? nil : PixelFormat(rawValue: format)
    }

    /// FFmpeg's name: `yuv420p`, `nv12`...
    package var description: String { av_get_pix_fmt_name(rawValue).map { String(cString: $0) } ?? "none" }

    /// The yuvj formats: full-range (JPEG) YUV by definition, whatever a frame's range says.
    var isFullRangeYUV: Bool {
        rawValue == AV_PIX_FMT_YUVJ420P || rawValue == AV_PIX_FMT_YUVJ422P || rawValue == AV_PIX_FMT_YUVJ444P
    }

    /// Bytes per sample when the format is planar YUV (three or four planes) of 8 to 16
    /// bits, native endian; nil for anything else (packed, semi-planar, RGB, floats).
    package var planarYUVSampleBytes: Int? {
        guard let descriptor = av_pix_fmt_desc_get(rawValue)?.pointee else { return nil }
        let flags = descriptor.flags
        guard flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_FLOAT) == 0, flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0,
              descriptor.nb_components >= 3 else { return nil }
        let depth = Int(descriptor.comp.0.depth)
        switch depth {
        case 8: return 1
        case 9...16: return 2
        default: return nil
        }
    }

    /// True when the format carries alpha: RGBA and YUVA layouts, grey with alpha, and
    /// palettes (whose entries may be transparent).
    var hasAlpha: Bool {
        guard let flags = av_pix_fmt_desc_get(rawValue)?.pointee.flags else { return false }
        return flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 || flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
    }

    var isChromaSubsampledHorizontally: Bool { (av_pix_fmt_desc_get(rawValue)?.pointee.log2_chroma_w ?? 0) > 0 }
    var isChromaSubsampledVertically: Bool { (av_pix_fmt_desc_get(rawValue)?.pointee.log2_chroma_h ?? 0) > 0 }
}
