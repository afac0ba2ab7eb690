import CDropcutZlib
import Foundation

/// iPhone `.AAE` slow-motion sidecars for tests, built as Photos writes them: an XML
/// property list whose base64 `adjustmentData` is a binary property list
/// `{ slowMotion: { rate, regions: [ { timeRange: { start, duration } } ] } }` of CMTime
/// dictionaries, deflated or not.
///
/// Independent of the parser in `Recipe` (its own deflate side, straight on zlib), so a
/// bug shared by writer and reader cannot hide.
public enum SlowMotionSidecarFixture {
    /// How `adjustmentData` is compressed.
    public enum Compression: Sendable, Hashable, CaseIterable {
        /// The binary property list as is.
        case none
        /// zlib-wrapped deflate (RFC 1950), as `compress2` writes it.
        case zlib
        /// Bare deflate (RFC 1951): `windowBits` -15.
        case rawDeflate
    }

    /// A zlib call that failed while compressing; the zlib status.
    public struct CompressionFailure: Error, Sendable, CustomStringConvertible {
        public var function: String
        public var status: Int32
        public var description: String { "\(function) failed with zlib status \(status)" }
    }

    /// A sidecar slowing `regions` (CMTime values over `timescale`) to `rate`.
    public static func data(rate: Double, regions: [(start: Int64, duration: Int64, timescale: Int32)],
                            compression: Compression) throws -> Data {
        try data(payload: payload(rate: rate, regions: regions), compression: compression)
    }

    /// Writes the sidecar of `data(rate:regions:compression:)` to `path`.
    public static func write(to path: String, rate: Double, regions: [(start: Int64, duration: Int64, timescale: Int32)],
                             compression: Compression) throws {
        try data(rate: rate, regions: regions, compression: compression).write(to: URL(fileURLWithPath: path))
    }

    /// The decoded payload dictionary, for tests that alter it before `data(payload:compression:)`:
    /// `rate` may be any property-list value, `flags` goes into every CMTime (1: valid).
    public static func payload(rate: Any, regions: [(start: Int64, duration: Int64, timescale: Int32)],
                               flags: Int = 1) -> [String: Any] {
        func time(_ value: Int64, _ timescale: Int32) -> [String: Any] {
            ["value": value, "timescale": Int(timescale), "flags": flags, "epoch": 0]
        }
        let list: [Any] = regions.map { region in
            ["timeRange": ["start": time(region.start, region.timescale), "duration": time(region.duration, region.timescale)]]
        }
        return ["slowMotion": ["rate": rate, "regions": list]]
    }

    /// A sidecar whose payload is `payload` as a binary property list, compressed as asked.
    public static func data(payload: [String: Any], compression: Compression) throws -> Data {
        let binary = try PropertyListSerialization.data(fromPropertyList: payload, format: .binary, options: 0)
        return try data(adjustmentData: compress(binary, compression))
    }

    /// The XML sidecar around `adjustmentData` bytes taken as they are (garbage included).
    public static func data(adjustmentData: Data) throws -> Data {
        let sidecar: [String: Any] = [
            "adjustmentFormatIdentifier": "com.apple.video.slomo",
            "adjustmentFormatVersion": "1.1",
            "adjustmentBaseVersion": 0,
            "adjustmentData": adjustmentData,
        ]
        return try PropertyListSerialization.data(fromPropertyList: sidecar, format: .xml, options: 0)
    }

    /// `bytes` compressed as asked.
    public static func compress(_ bytes: Data, _ compression: Compression) throws -> Data {
        switch compression {
        case .none: return bytes
        case .zlib: return try zlibCompress(bytes)
        case .rawDeflate: return try rawDeflate(bytes)
        }
    }

    private static func zlibCompress(_ bytes: Data) throws -> Data {
        var output = [UInt8](repeating: 0, count: Int(compressBound(uLong(bytes.count))))
        var length = uLongf(output.count)
        let input = [UInt8](bytes)
        let status = compress2(&output, &length, input, uLong(input.count), Z_BEST_COMPRESSION)
        guard status == Z_OK else { throw CompressionFailure(function: "compress2", status: status) }
        return Data(output[..<Int(length)])
    }

    private static func rawDeflate(_ bytes: Data) throws -> Data {
        var stream = z_stream()
        let initStatus = czlib_deflate_init2(&stream, Z_BEST_COMPRESSION, -15)
        guard initStatus == Z_OK else { throw CompressionFailure(function: "deflateInit2", status: initStatus) }
        defer { deflateEnd(&stream) }
        var input = [UInt8](bytes)
        // deflateBound covers the whole output, so one Z_FINISH call ends the stream.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let (status, produced) = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                let status = deflate(&stream, Z_FINISH)
                return (status, target.count - Int(stream.avail_out))
            }
        }
        guard status == Z_STREAM_END else { throw CompressionFailure(function: "deflate", status: status) }
        return Data(output[..<produced])
    }
}
