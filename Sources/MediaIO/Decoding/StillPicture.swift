internal import CDropcutFFmpeg
import Foundation
import DropcutTimeline

/// A still picture (PNG or JPEG) as a video layer shows it: decoded once, its alpha
/// composited over a background colour, and converted once into the compositor's working
/// format — 8-bit video-range BT.709 4:2:0, what SDR canvases are — so every output frame
/// of a still's span reuses the same picture, with no decoding, conversion or allocation
/// per frame.
///
/// A photo's EXIF orientation tag is kept as `displayMatrix`, as a movie's display matrix
/// is: the picture's pixels stay as stored and the composition turns them upright (the
/// track's `preferredTransform`), exactly, as it turns a portrait phone clip.
package final class StillPicture {
    package let path: String
    /// The picture's size in pixels (square pixels), as stored.
    package let size: PixelSize
    /// How the picture is shown: the EXIF orientation of a JPEG (libavcodec's decoder
    /// reads the tag into the frame as a display matrix); nil when the picture is shown
    /// as stored (no tag, tag 1, a PNG).
    package let displayMatrix: DisplayMatrix?
    /// True when the picture has transparent or translucent pixels (PNG alpha, a palette
    /// with transparency): those show the background it is composited over.
    package let hasAlpha: Bool
    /// The decoded picture in straight RGBA, kept only when it has alpha, to composite it
    /// again if another background is asked for.
    private let straight: VideoFrame?
    private let picture: VideoFrame
    /// The background `picture` was composited over (nil for opaque pictures).
    private var background: Color?


    /// The formats a still picture is recognised by: by content only (the PNG signature,
    /// the JPEG markers), never by the file's extension, so a `.png` that is not one is
    /// not opened as a picture and a photo named `.jpeg.bin` is.
    package static let formats = ["png_pipe", "jpeg_pipe"]

    /// Decodes the picture at `path` and prepares it over `background`. Throws an
    /// `FFmpegError` naming the file when it is missing, not a PNG or JPEG, too large
    /// (judged from its header, before decoding: `PictureLimits`), or cannot be decoded
    /// whole (truncated, corrupt: strictly, nothing concealed).
    package init(path: String, background: Color = .black) throws(FFmpegError) {
        self.path = path
        let header = try Self.checkedHeader(path)
        // Decoded once: the stream is not probed (that decodes it too), the header told
        // what it holds.
        let source = try StreamDecoder(path: path, kind: .video, formats: Self.formats, format: try Self.format(of: path),
                                       probeStreams: false, strict: true)
        let decoded = try VideoFrame()
        let decodedWhole: Bool
        do {
            decodedWhole = try source.decodeNext(into: decoded.frame)
        } catch where !error.isSystemFailure {
            throw FFmpegError(code: error.code, function: error.function, path: path, streamIndex: source.streamIndex,
                              note: "the picture is truncated or damaged: its data cannot be decoded whole")
        }
        // The decoder may still flag what it patched over (`decode_error_flags`, a
        // corrupt frame): a picture is shown whole or not at all.
        guard decodedWhole, decoded.frame.pointee.decode_error_flags == 0,
              decoded.frame.pointee.flags & AV_FRAME_FLAG_CORRUPT == 0 else {
            throw FFmpegError(code: FFmpegError.invalidData, function: "avcodec_receive_frame", path: path, streamIndex: source.streamIndex,
                              note: "the picture could not be decoded (truncated or damaged)")
        }
        guard decoded.size == header.size else {
            throw FFmpegError(code: FFmpegError.invalidData, function: "avcodec_receive_frame", path: path, streamIndex: source.streamIndex,
                              note: "the picture decodes to \(decoded.size) pixels where its header says \(header.size) (damaged)")
        }
        size = decoded.size
        displayMatrix = Self.displayMatrix(of: decoded)
        Self.relabelJPEGRange(decoded)
        let whole = PixelRect(size: size)
        picture = try VideoFrame(width: size.width, height: size.height, pixelFormat: .yuv420p)
        picture.setColorTags(.bt709)
        if decoded.pixelFormat.hasAlpha {
            let rgba = try VideoFrame(width: size.width, height: size.height, pixelFormat: .rgba)
            try Scaler().scale(decoded, region: whole, into: rgba, region: whole)
            hasAlpha = Self.hasTransparency(rgba)
            straight = hasAlpha ? rgba : nil
            if hasAlpha {
                try flatten(over: background)
            } else {
                try Scaler().scale(rgba, region: whole, into: picture, region: whole)
            }
        } else {
            hasAlpha = false
            straight = nil
            try Scaler().scale(decoded, region: whole, into: picture, region: whole)
        }
    }

    /// The picture as shown over `background`: the same frame every call (composited
    /// again only when a picture with alpha is asked for over another colour). It belongs
    /// to the picture; callers read it and never write it.
    package func frame(over background: Color) throws(FFmpegError) -> VideoFrame {
        if hasAlpha, background != self.background { try flatten(over: background) }
        return picture
    }

    /// True when the file at `path` is a PNG or JPEG picture by its content
    /// (`Demuxer.contentFormat(of:)`): what its extension says does not count.
    package static func isPicture(_ path: String) -> Bool {
        Demuxer.contentFormat(of: path).map(formats.contains) ?? false
    }

    /// The `ftyp` major brands of HEIF (ISO/IEC 23008-12) and AVIF still pictures: an
    /// iPhone's photos are `heic`. Image sequences (`msf1`, `hevc`, `avis`) are left to the
    /// movie demuxer, which reads their track.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1", "avif"]

    /// Throws an `FFmpegError` naming the file when it is a HEIF or AVIF picture (known by
    /// its `ftyp` box): the FFmpeg dropcut is built on (Debian 12's 5.1) cannot decode
    /// those, and opened as a movie one reads "moov atom not found". An iPhone photo is
    /// the common case, so the message says what to do.
    package static func refuseHEIF(_ path: String) throws(FFmpegError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 12), head.count == 12,
              String(decoding: head[head.startIndex + 4 ..< head.startIndex + 8], as: UTF8.self) == "ftyp" else { return }
        let brand = String(decoding: head[head.startIndex + 8 ..< head.startIndex + 12], as: UTF8.self)
        guard heifBrands.contains(brand) else { return }
        throw FFmpegError(code: FFmpegError.decoderNotFound, function: "avformat_open_input", path: path,
                          note: "a HEIF/AVIF picture (brand \(brand); iPhones save photos as HEIC), which this build's FFmpeg cannot decode: save it as JPEG or PNG")
    }

    /// The picture demuxer for the file at `path`, by its content (`png_pipe`, `jpeg_pipe`); an `FFmpegError`
    /// naming the file when it is not a PNG or JPEG.
    package static func format(of path: String) throws(FFmpegError) -> String {
        guard let format = Demuxer.contentFormat(of: path), formats.contains(format) else {
            throw FFmpegError(code: FFmpegError.demuxerNotFound, function: "avformat_open_input", path: path,
                              note: "not a supported picture (dropcut reads PNG and JPEG)")
        }
        return format
    }

    /// Checks the picture's header and decodes it once without keeping it: its size (as
    /// stored), codec (`png`, `mjpeg`) and orientation, or an `FFmpegError` naming the file
    /// when its header breaks a `PictureLimits` limit (which one, in words, undecoded) or
    /// it cannot be decoded (truncated, damaged).
    package static func probe(_ path: String) throws(FFmpegError) -> (size: PixelSize, codec: String, displayMatrix: DisplayMatrix?) {
        let header = try checkedHeader(path)
        let picture = try StillPicture(path: path)
        return (picture.size, header.codec, picture.displayMatrix)
    }

    /// The picture's header, read before anything decodes it, when it keeps within
    /// `PictureLimits`; else an `FFmpegError` naming the file and the limit it breaks.
    static func checkedHeader(_ path: String) throws(FFmpegError) -> PictureHeader {
        _ = try format(of: path)
        let header = try PictureHeader.read(path)
        if let problem = PictureLimits.problem(header.size, bytesPerPixel: header.bytesPerPixel) {
            throw FFmpegError(code: cff_averror(EINVAL), function: "picture size", path: path,
                              note: "the picture is \(header.size) pixels: \(problem); dropcut reads pictures of \(PictureLimits.description)")
        }
        return header
    }

    /// The display matrix the decoder attached to `frame` (a JPEG's EXIF orientation tag,
    /// 2 to 8; libavcodec ignores other values), nil when there is none or it leaves the
    /// picture as stored. `DisplayMatrix` snaps whatever it holds to the nearest exact
    /// quarter turn or mirror, so no value of the tag can ask for anything else.
    private static func displayMatrix(of frame: VideoFrame) -> DisplayMatrix? {
        guard let side = av_frame_get_side_data(frame.frame, AV_FRAME_DATA_DISPLAYMATRIX),
              let matrix = DisplayMatrix(sideData: side.pointee.data.map(UnsafeRawPointer.init), size: Int(side.pointee.size)),
              matrix.clockwiseQuarterTurns != 0 || matrix.isMirrored else { return nil }
        return matrix
    }

    /// A JPEG's full-range `yuvj` picture relabelled as the plain format with its range in
    /// the frame: the same bytes, converted the same, without swscale warning on stderr
    /// that a deprecated format is in use.
    private static func relabelJPEGRange(_ frame: VideoFrame) {
        let plain: [AVPixelFormat: AVPixelFormat] = [AV_PIX_FMT_YUVJ420P: AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ422P: AV_PIX_FMT_YUV422P,
                                                     AV_PIX_FMT_YUVJ444P: AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ440P: AV_PIX_FMT_YUV440P]
        guard let twin = plain[AVPixelFormat(frame.frame.pointee.format)] else { return }
        frame.frame.pointee.format = twin.rawValue
        frame.frame.pointee.color_range = AVCOL_RANGE_JPEG
    }

    /// True when any pixel of the straight RGBA `frame` is less than opaque.
    private static func hasTransparency(_ frame: VideoFrame) -> Bool {
        frame.withPlane(0) { bytes, stride in
            for y in 0..<frame.height {
                let row = y * stride
                for x in 0..<frame.width where bytes[row + x * 4 + 3] != 255 { return true }
            }
            return false
        }
    }

    /// Composites the straight picture over `background` (in the stored, gamma-encoded
    /// values, as every player and the overlay blend do) and converts the result into
    /// `picture`. Runs once per background, never per frame.
    private func flatten(over background: Color) throws(FFmpegError) {
        guard let straight else { return }
        let over = try VideoFrame(width: size.width, height: size.height, pixelFormat: .rgba)
        func byte(_ value: Double) -> UInt32 { UInt32((min(max(value, 0), 1) * 255).rounded()) }
        let fill = (byte(background.red), byte(background.green), byte(background.blue))
        straight.withPlane(0) { source, sourceStride in
            over.withPlane(0) { target, targetStride in
                for y in 0..<size.height {
                    for x in 0..<size.width {
                        let s = y * sourceStride + x * 4, t = y * targetStride + x * 4
                        let a = UInt32(source[s + 3]), rest = 255 - a
                        target[t] = UInt8((UInt32(source[s]) * a + fill.0 * rest + 127) / 255)
                        target[t + 1] = UInt8((UInt32(source[s + 1]) * a + fill.1 * rest + 127) / 255)
                        target[t + 2] = UInt8((UInt32(source[s + 2]) * a + fill.2 * rest + 127) / 255)
                        target[t + 3] = 255
                    }
                }
            }
        }
        let whole = PixelRect(size: size)
        try Scaler().scale(over, region: whole, into: picture, region: whole)
        self.background = background
    }
}
