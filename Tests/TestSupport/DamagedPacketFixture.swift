import Foundation

/// An MP4 whose video packets announce a NAL unit longer than the packet ("Invalid NAL
/// unit size"): what a bit flip in a length field does. The demuxer reads the packet, a
/// decoder conceals it, and a copy must not pass it on. Made from a clean clip by writing
/// each chosen packet's first length prefix (4 bytes, as x264 writes them) 1000 bytes past
/// its size.
public enum DamagedPacketFixture {
    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `clip` to `path` with its video packets `indices` (in the file's order, from
    /// 0) damaged so.
    public static func damage(_ clip: String, packets indices: [Int], into path: String) async throws {
        let listing = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                         "packet=pos,size", "-of", "csv=p=0", clip])
        let packets = listing.split(whereSeparator: \.isNewline).map { $0.split(separator: ",").compactMap { Int($0) } }
        var data = try Data(contentsOf: URL(fileURLWithPath: clip))
        for index in indices {
            guard packets.indices.contains(index), packets[index].count == 2, let size = UInt32(exactly: packets[index][0] + 1000) else {
                throw FixtureError(description: "\(clip) has no video packet \(index) with a size and a position")
            }
            let position = packets[index][1]
            guard position >= 0, position + 4 <= data.count else {
                throw FixtureError(description: "\(clip): packet \(index) lies outside the file")
            }
            withUnsafeBytes(of: size.bigEndian) { data.replaceSubrange(position..<(position + 4), with: $0) }
        }
        try data.write(to: URL(fileURLWithPath: path))
    }
}
