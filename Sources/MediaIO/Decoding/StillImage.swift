internal import CDropcutFFmpeg
import DropcutTimeline

/// Pictures from image files — PNG (8 and 16 bit, palette, with alpha) and JPEG —
/// decoded with libavcodec, for overlays.
package enum StillImage {
    /// Decodes the first picture of the file at `path` and converts it to `format`
    /// (straight, not premultiplied, alpha for `.rgba`). Throws an `FFmpegError` naming
    /// the file when it is missing, not an image, or has no picture, or when a PNG's or
    /// JPEG's header breaks `PictureLimits` (judged before decoding, as for still clips:
    /// an overlay is decoded, converted and premultiplied whole).
    package static func decode(_ path: String, as format: PixelFormat = .rgba) throws(FFmpegError) -> VideoFrame {
        if StillPicture.isPicture(path) { _ = try StillPicture.checkedHeader(path) }
        let source = try StreamDecoder(path: path, kind: .video, formats: Demuxer.images)
        let decoded = try VideoFrame()
        guard try source.decodeNext(into: decoded.frame) else {
            throw FFmpegError(code: FFmpegError.endOfFile, function: "avcodec_receive_frame", path: path, streamIndex: source.streamIndex)
        }
        if decoded.pixelFormat == format { return decoded }
        let converted = try VideoFrame(width: decoded.width, height: decoded.height, pixelFormat: format)
        let whole = PixelRect(size: decoded.size)
        try Scaler().scale(decoded, region: whole, into: converted, region: whole)
        return converted
    }
}
