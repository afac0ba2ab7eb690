internal import CDropcutFFmpeg
import Foundation
import DropcutTimeline

/// Encodes one picture as a still image file — JPEG (libavcodec's mjpeg, full-range
/// BT.601 4:2:0, as JFIF readers expect), PNG (RGB, 8 bits a channel) or WebP (libwebp,
/// 4:2:0) — for posters. Owns its `CodecContext` and `Scaler` for the one call: nothing
/// of FFmpeg's outlives `encode`.
package enum PictureEncoder {
    /// The encoder libavcodec knows the format by.
    static func encoderName(_ format: PictureFormat) -> String {
        switch format {
        case .jpeg: return "mjpeg"
        case .png: return "png"
        case .webp: return "libwebp"
        }
    }

    /// True when this FFmpeg build has the format's encoder (WebP needs libwebp).
    package static func canEncode(_ format: PictureFormat) -> Bool {
        avcodec_find_encoder_by_name(encoderName(format)) != nil
    }

    /// `frame` (any size and format the scaler reads) as the bytes of a `format` file.
    package static func encode(_ frame: VideoFrame, as format: PictureFormat) throws(FFmpegError) -> [UInt8] {
        guard let codec = avcodec_find_encoder_by_name(encoderName(format)) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder_by_name", path: nil)
        }
        let pixelFormat: PixelFormat
        switch format {
        // yuv420p tagged full range rather than yuvj420p, which swscale warns is deprecated.
        case .jpeg: pixelFormat = .yuv420p
        case .png: pixelFormat = PixelFormat(rawValue: AV_PIX_FMT_RGB24)
        case .webp: pixelFormat = .yuv420p
        }
        // A 4:2:0 picture has even sides (a poster is a video frame, so it does).
        let picture = try VideoFrame(width: frame.width, height: frame.height, pixelFormat: pixelFormat)
        switch format {
        case .jpeg:
            // JFIF: full range, BT.601 — what every JPEG reader (and ffmpeg's decoder) assumes.
            picture.frame.pointee.colorspace = AVCOL_SPC_BT470BG
            picture.frame.pointee.color_range = AVCOL_RANGE_JPEG
        case .webp:
            // WebP's lossy format is BT.601 video range, whatever the picture's size.
            picture.frame.pointee.colorspace = AVCOL_SPC_BT470BG
        case .png:
            break
        }
        let region = PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)
        try Scaler(filter: .bicubic).scale(frame, region: region, into: picture, region: region)
        picture.pts = 0

        let codecContext = try CodecContext(codec: codec, path: nil)
        let context = codecContext.pointer
        context.pointee.width = Int32(frame.width)
        context.pointee.height = Int32(frame.height)
        context.pointee.pix_fmt = pixelFormat.rawValue
        context.pointee.time_base = AVRational(num: 1, den: 25)
        switch format {
        case .jpeg:
            // q 2 of 2...31: the quality the ffmpeg CLI's `-q:v 2` gives (what guides
            // recommend for stills).
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = Int32(FF_QP2LAMBDA) * 2
            context.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointee.colorspace = AVCOL_SPC_BT470BG
        case .webp:
            av_opt_set(context.pointee.priv_data, "quality", "90", 0)
        case .png:
            break
        }
        try codecContext.open()
        try check(avcodec_send_frame(context, picture.frame), "avcodec_send_frame", path: nil)
        try check(avcodec_send_frame(context, nil), "avcodec_send_frame", path: nil)
        let packet = try Packet()
        var bytes: [UInt8] = []
        while try codecContext.receivePacket(into: packet) == .packet {
            if let data = packet.packet.pointee.data {
                bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(packet.packet.pointee.size)))
            }
        }
        guard !bytes.isEmpty else {
            throw FFmpegError(code: cff_averror_invaliddata(), function: "avcodec_receive_packet", path: nil)
        }
        return bytes
    }
}
