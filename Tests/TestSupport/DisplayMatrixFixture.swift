import Foundation

/// Writes any display matrix into an MP4/MOV: the ffmpeg CLI (5.1) can tag a rotation
/// (`-metadata:s:v rotate=`) but not a mirror, so the test copies the file and overwrites
/// the first track header's (`tkhd`) matrix with the nine numbers a phone would store —
/// the linear part given, the translation that keeps the picture at the origin.
public enum DisplayMatrixFixture {
    public struct NoTrackHeader: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): no tkhd box to write a matrix into" }
    }

    /// Copies `source` (video first, as the ffmpeg CLI writes it) to `path` with the
    /// linear part `[a b; c d]` (each 0 or ±1) for a `width`x`height` picture; returns `path`.
    @discardableResult
    public static func write(_ source: String, to path: String, a: Int32, b: Int32, c: Int32, d: Int32,
                             width: Int32, height: Int32) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        guard let type = data.range(of: Data("tkhd".utf8)) else { throw NoTrackHeader(path: source) }
        // After the type: version + flags (4), times, track id, reserved and duration (20
        // bytes in version 0, 32 in version 1), reserved (8), layer, group, volume and
        // reserved (8), then the matrix.
        let version = data[type.upperBound]
        let offset = type.upperBound + 4 + (version == 0 ? 20 : 32) + 8 + 8
        let corners = [(0, 0), (width, 0), (0, height), (width, height)]
        let tx = -(corners.map { a * $0.0 + c * $0.1 }.min() ?? 0), ty = -(corners.map { b * $0.0 + d * $0.1 }.min() ?? 0)
        let matrix: [Int32] = [a << 16, b << 16, 0, c << 16, d << 16, 0, tx << 16, ty << 16, 1 << 30]
        var bytes = Data()
        for value in matrix { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        data.replaceSubrange(offset..<(offset + 36), with: bytes)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
