import CDropcutZlib
import Foundation

/// A decompression bomb: a valid 16-bit RGBA PNG whose pixels take hundreds of MB decoded
/// from a file of about 1 MB, every row the same grey.
///
/// Written here rather than by the ffmpeg CLI, which spent 10 s of CPU on each one
/// (converting and deflating 800 MB). The zlib stream is built from two raw deflate
/// chunks, each ending in a full flush — the first row (filter None), then one row of
/// filter Up (all zero: the row above repeated) — and the second chunk is written once per
/// remaining row: after a full flush deflate starts afresh, so the same row compresses to
/// the same bytes every time. The Adler-32 of the whole stream is combined arithmetically.
public enum PNGBombFixture {
    /// Writes `dir/name`, `width`x`height` 16-bit RGBA, and returns its path.
    public static func write(in dir: String, name: String = "bomb.png", width: Int = 16384, height: Int = 6102) throws -> String {
        precondition(width > 0 && height > 1 && width <= 1 << 20 && height <= 1 << 20, "a size a PNG can state")
        let rowBytes = 1 + width * 8
        var first = [UInt8](repeating: 0x80, count: rowBytes)
        first[0] = 0  // filter None
        for pixel in 0..<width { first[1 + pixel * 8 + 6] = 0xFF; first[1 + pixel * 8 + 7] = 0xFF }  // opaque
        var up = [UInt8](repeating: 0, count: rowBytes)
        up[0] = 2  // filter Up: each sample is the one above

        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { deflateEnd(&stream) }
        func deflated(_ input: inout [UInt8], flush: Int32) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
            let count = input.withUnsafeMutableBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    stream.next_in = source.baseAddress
                    stream.avail_in = uInt(source.count)
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    _ = deflate(&stream, flush)
                    return target.count - Int(stream.avail_out)
                }
            }
            return Array(output[..<count])
        }
        let head = deflated(&first, flush: Z_FULL_FLUSH)
        let repeated = deflated(&up, flush: Z_FULL_FLUSH)
        var nothing: [UInt8] = []
        let tail = deflated(&nothing, flush: Z_FINISH)

        // Adler-32 of row 0, then of the zero rows combined (adler32_combine needs no data).
        let firstSum = first.withUnsafeBufferPointer { adler32(adler32(0, nil, 0), $0.baseAddress, uInt($0.count)) }
        let upSum = up.withUnsafeBufferPointer { adler32(adler32(0, nil, 0), $0.baseAddress, uInt($0.count)) }
        var sum = firstSum
        for _ in 1..<height { sum = adler32_combine(sum, upSum, off_t(rowBytes)) }

        var zlibStream: [UInt8] = [0x78, 0xDA]  // deflate, 32 KB window, best compression
        zlibStream.reserveCapacity(head.count + repeated.count * (height - 1) + tail.count + 6)
        zlibStream += head
        for _ in 1..<height { zlibStream += repeated }
        zlibStream += tail
        zlibStream += bigEndian(UInt32(truncatingIfNeeded: sum))

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [16, 6, 0, 0, 0])
        png += chunk("IDAT", zlibStream)
        png += chunk("IEND", [])
        let path = (dir as NSString).appendingPathComponent(name)
        try Data(png).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { crc32(crc32(0, nil, 0), $0.baseAddress, uInt($0.count)) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(UInt32(truncatingIfNeeded: crc))
    }
}
