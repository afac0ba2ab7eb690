internal import CDropcutFFmpeg
import Foundation
import DropcutTimeline

/// What a PNG's or JPEG's header says about the picture, read from the file's first bytes
/// without FFmpeg: its size and how many bytes a pixel takes decoded. So a picture is
/// judged against `PictureLimits` before anything decodes it — `avformat_find_stream_info`
/// decodes a whole PNG to learn its pixel format, 800 MB for a 1 MB 16-bit bomb — and a
/// size FFmpeg refuses to state (65000x65000, a width of zero) is reported as the size it
/// is, not as a damaged picture.
struct PictureHeader: Equatable {
    var size: PixelSize
    /// Bytes a pixel takes in the decoder's output (at most; 4:2:0 JPEGs take less).
    var bytesPerPixel: Int
    /// FFmpeg's name of the codec: `png` or `mjpeg`.
    var codec: String

    /// How far into a JPEG its frame header (SOF) is looked for: past EXIF, ICC and XMP
    /// segments (64 KB each at most), far more than cameras and editors write before it.
    static let jpegSearchLimit = 4 << 20

    /// The header of the PNG or JPEG at `path`; an `FFmpegError` naming the file when it
    /// cannot be read, or its header is cut short or damaged.
    static func read(_ path: String) throws(FFmpegError) -> PictureHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FFmpegError(code: cff_averror(ENOENT), function: "open", path: path, note: "the picture cannot be opened")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: jpegSearchLimit)) ?? Data()
        let bytes = [UInt8](head)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return try png(bytes, path: path)
        }
        if bytes.starts(with: [0xFF, 0xD8]) {
            return try jpeg(bytes, path: path)
        }
        throw damaged(path, "neither a PNG nor a JPEG signature")
    }

    /// IHDR, the first chunk: width, height (4 bytes each), bit depth, colour type.
    static func png(_ bytes: [UInt8], path: String) throws(FFmpegError) -> PictureHeader {
        guard bytes.count >= 26, bytes[12..<16].elementsEqual("IHDR".utf8) else { throw damaged(path, "no PNG header (IHDR)") }
        let width = Int(be32(bytes, 16)), height = Int(be32(bytes, 20))
        let depth = Int(bytes[24]), type = Int(bytes[25])
        // Samples a pixel by colour type (PNG spec, 11.2.2): grey, -, RGB, palette index,
        // grey + alpha, -, RGBA; and the depths each allows.
        let channels: [Int: (samples: Int, depths: Set<Int>)] = [
            0: (1, [1, 2, 4, 8, 16]), 2: (3, [8, 16]), 3: (1, [1, 2, 4, 8]), 4: (2, [8, 16]), 6: (4, [8, 16]),
        ]
        guard let layout = channels[type], layout.depths.contains(depth) else {
            throw damaged(path, "a PNG colour type \(type) at \(depth) bits, which PNG does not have")
        }
        return PictureHeader(size: PixelSize(width: width, height: height),
                             bytesPerPixel: layout.samples * (depth == 16 ? 2 : 1), codec: "png")
    }

    /// The first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC): precision,
    /// height, width, component count. Segments before it are skipped by their lengths;
    /// each step moves forward by at least two bytes, so the walk ends.
    static func jpeg(_ bytes: [UInt8], path: String) throws(FFmpegError) -> PictureHeader {
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { throw damaged(path, "a JPEG segment that does not start with a marker") }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }                      // fill byte
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { at += 2; continue }   // no length
            if marker == 0xD9 || marker == 0xDA { break }                // end, or a scan before any frame header
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2 else { throw damaged(path, "a JPEG segment of length \(length)") }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard length >= 8, at + 10 <= bytes.count else { break }
                let precision = Int(bytes[at + 4])
                let height = Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]), width = Int(bytes[at + 7]) << 8 | Int(bytes[at + 8])
                let components = Int(bytes[at + 9])
                guard (1...4).contains(components), (2...16).contains(precision) else {
                    throw damaged(path, "a JPEG frame of \(components) components at \(precision) bits")
                }
                return PictureHeader(size: PixelSize(width: width, height: height),
                                     bytesPerPixel: components * (precision > 8 ? 2 : 1), codec: "mjpeg")
            }
            at += 2 + length
        }
        throw damaged(path, bytes.count < jpegSearchLimit ? "no JPEG frame header before the end of the file"
                                                          : "no JPEG frame header in its first \(jpegSearchLimit >> 20) MB")
    }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func damaged(_ path: String, _ what: String) -> FFmpegError {
        FFmpegError(code: FFmpegError.invalidData, function: "the picture's header", path: path,
                    note: "the picture has no size (truncated or damaged: \(what))")
    }
}
