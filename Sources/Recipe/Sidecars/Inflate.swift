internal import CDropcutZlib
import Foundation

/// Decompresses deflate data with zlib, for the compressed payloads of `.AAE` sidecars.
///
/// Sidecars are written by devices we do not control, so the output is capped: a small
/// corrupt or hostile payload must not be able to expand into gigabytes.
enum Inflate {
    /// How the deflate stream is framed.
    enum Wrapper: Sendable, Hashable {
        /// RFC 1950: a 2-byte header and an Adler-32 trailer (what `compress2` writes).
        case zlib
        /// RFC 1951: the bare deflate stream.
        case raw

        /// zlib's `windowBits`: negative selects raw deflate.
        var windowBits: Int32 {
            switch self {
            case .zlib: return 15
            case .raw: return -15
            }
        }
    }

    /// Why a stream could not be inflated.
    enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The input ended before the end of the deflate stream.
        case truncated
        /// The stream is malformed; zlib's message.
        case corrupt(String)
        /// The output would exceed `limit` bytes.
        case tooLarge(limit: Int)

        var description: String {
            switch self {
            case .truncated: return "the compressed data ends early (truncated)"
            case let .corrupt(message): return "corrupt compressed data (\(message))"
            case let .tooLarge(limit): return "decompresses to more than \(limit / (1 << 20)) MiB"
            }
        }
    }

    /// The most a payload may decompress to; real slow-motion payloads are a few hundred bytes.
    static let defaultLimit = 16 << 20

    /// The inflated bytes of `input`, framed as `wrapper`. Bytes after the end of the
    /// stream are ignored.
    static func decompress(_ input: Data, wrapper: Wrapper, limit: Int = defaultLimit) throws(Failure) -> Data {
        // avail_in is 32-bit; anything near that size is not a sidecar payload anyway.
        guard input.count <= Int(UInt32.max) else { throw .tooLarge(limit: limit) }
        var stream = z_stream()
        let initStatus = czlib_inflate_init2(&stream, wrapper.windowBits)
        guard initStatus == Z_OK else { throw .corrupt("inflateInit2 failed with status \(initStatus)") }
        defer { inflateEnd(&stream) }

        // withUnsafeBytes only rethrows untyped errors, so the loop reports through a Result.
        let result: Result<Data, Failure> = input.withUnsafeBytes { raw in
            stream.next_in = raw.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
            stream.avail_in = uInt(raw.count)
            var output = Data()
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = CDropcutZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[..<produced])
                if output.count > limit { return .failure(.tooLarge(limit: limit)) }
                switch status {
                case Z_STREAM_END:
                    return .success(output)
                case Z_OK:
                    continue  // progress was made; zlib says Z_BUF_ERROR once none is possible
                case Z_BUF_ERROR:
                    // Output space was available, so the input ran out mid-stream.
                    return .failure(.truncated)
                case Z_NEED_DICT:
                    return .failure(.corrupt("needs a preset dictionary"))
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    return .failure(.corrupt(message))
                }
            }
        }
        return try result.get()
    }
}
