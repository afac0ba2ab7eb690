import Foundation

/// MP4s whose edit lists trim their tracks, as a phone's or an editor's "trim" leaves them:
/// the media holds the whole recording, the edit list (`moov/trak/edts/elst`) shows only
/// part of it. Made by writing a clip with the ffmpeg CLI (one single-entry edit list per
/// track) and rewriting each entry's segment duration in place — the ffmpeg CLI cannot
/// write an edit list that ends before the media does.
public enum EditListFixture {
    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Rewrites `path` so that every track's edit list shows only its first `seconds`.
    public static func trimEditLists(of path: String, toSeconds seconds: Double) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let moov = box("moov", in: bytes, 0..<bytes.count) else { throw FixtureError(description: "\(path): no moov") }
        let content = (moov.lowerBound + 8)..<moov.upperBound
        guard let mvhd = box("mvhd", in: bytes, content) else { throw FixtureError(description: "\(path): no mvhd") }
        // mvhd version 0: version/flags, creation, modification, then the movie timescale.
        let timescale = Int(read32(bytes, mvhd.lowerBound + 20))
        guard bytes[mvhd.lowerBound + 8] == 0, timescale > 0 else { throw FixtureError(description: "\(path): unexpected mvhd") }
        var trimmed = 0
        for trak in boxes("trak", in: bytes, content) {
            guard let edts = box("edts", in: bytes, (trak.lowerBound + 8)..<trak.upperBound),
                  let elst = box("elst", in: bytes, (edts.lowerBound + 8)..<edts.upperBound) else { continue }
            // elst version 0 with one entry: version/flags, count, then segment duration
            // (movie timescale), media time, rate.
            guard bytes[elst.lowerBound + 8] == 0, read32(bytes, elst.lowerBound + 12) == 1 else {
                throw FixtureError(description: "\(path): an edit list of another shape")
            }
            write32(&bytes, elst.lowerBound + 16, UInt32((seconds * Double(timescale)).rounded()))
            trimmed += 1
        }
        guard trimmed > 0 else { throw FixtureError(description: "\(path): no edit list to trim (write it with -use_editlist 1)") }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func write32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
    }

    /// The byte ranges (header included) of the boxes of `type` directly inside `range`.
    static func boxes(_ type: String, in bytes: [UInt8], _ range: Range<Int>) -> [Range<Int>] {
        var found: [Range<Int>] = [], at = range.lowerBound
        while at + 8 <= range.upperBound {
            let size = Int(read32(bytes, at))
            guard size >= 8, at + size <= range.upperBound else { break }
            if String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) == type { found.append(at..<at + size) }
            at += size
        }
        return found
    }

    static func box(_ type: String, in bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
        boxes(type, in: bytes, range).first
    }
}
