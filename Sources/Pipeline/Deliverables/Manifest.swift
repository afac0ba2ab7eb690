import Foundation
import DropcutRender
import DropcutSupport
import DropcutTimeline
import DropcutDigest

/// The manifest `{name}.dropcut.json` of a deliverable set: the input's name, the
/// generator and every file by the name it is published under, in the recipe's order —
/// written last, so its presence says the set is complete.
extension Deliverables {
    /// One file written: what the manifest says of it.
    public struct File: Sendable, Hashable, Codable {
        /// Relative to the outbox: an HLS ladder's is its master playlist's, in its folder
        /// (`clip/clip.m3u8`).
        public var name: String
        /// `video`, `poster`, `preview`, `hls` or `manifest`. An HLS ladder's `bytes` are
        /// those of every file in its folder, its size the tallest rung's, its `sha256`
        /// the master playlist's.
        public var kind: String
        public var bytes: Int64
        public var width: Int
        public var height: Int
        /// Seconds; videos and previews.
        public var duration: Double?
        /// A poster's time in the output, or where a preview starts, seconds.
        public var time: Double?
        public var sha256: String
        /// How a video's picture was made: `copied` (the source's packets as they are),
        /// `spliced: N of M frames copied` (smart render), `encoded`, or `encoded (the
        /// planned copy failed: why)` when a copy failed while rendering. Nil for other
        /// kinds.
        public var video: String?

        public init(name: String, kind: String, bytes: Int64, width: Int, height: Int, duration: Double? = nil,
                    time: Double? = nil, sha256: String) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
            self.width = width
            self.height = height
            self.duration = duration
            self.time = time
            self.sha256 = sha256
        }
    }


    /// The manifest's JSON: the input's name and every file, in the recipe's order.
    public static func manifest(input: String, files: [File]) throws -> Data {
        struct Manifest: Codable {
            var input: String
            var generator: String
            var files: [File]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Manifest(input: (input as NSString).lastPathComponent, generator: "dropcut \(DropcutVersion.current)", files: files))
        data.append(0x0A)
        return data
    }

    /// An HLS ladder as the manifest lists it.
    static func describe(ladder: HLSExportSession.Ladder, folder: String, name: String, duration: Double) async throws -> File {
        var bytes: Int64 = 0
        for file in ladder.files { bytes += try FileSize.bytes(at: (folder as NSString).appendingPathComponent(file)) }
        let top = ladder.playlist.variants.first?.size ?? PixelSize(width: 0, height: 0)
        let sha = try await BlockingWork.run("dropcut-checksum") { _ in try SHA256.hex(ofFile: ladder.master) }
        return File(name: name, kind: "hls", bytes: bytes, width: top.width, height: top.height, duration: duration,
                    time: nil, sha256: sha)
    }

    static func describe(_ path: String, name: String, kind: String, size: PixelSize, duration: Double?,
                         time: Double?) async throws -> File {
        let bytes = try FileSize.bytes(at: path)
        let sha = try await BlockingWork.run("dropcut-checksum") { _ in try SHA256.hex(ofFile: path) }
        return File(name: name, kind: kind, bytes: bytes, width: size.width, height: size.height,
                    duration: duration, time: time, sha256: sha)
    }
}
