import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline
import DropcutDigest

/// A single rendered output described as a deliverable set's manifest describes its files
/// (bytes, size, duration, SHA-256): what a webhook's `job.done` lists for a job without
/// `outputs:`. The daemon reaches the probe only through the pipeline, so it is here.
public enum OutputDescription {
    /// Probes the finished file at `path` (its video's shown size, its duration) and
    /// hashes it, streamed in blocks. Blocking: run it off the cooperative pool.
    public static func describe(_ path: String, kind: String = "video") throws -> Deliverables.File {
        let bytes = try FileSize.bytes(at: path)
        let media = try AssetProbe().probe(path)
        let size = media.video?.naturalSize
        let seconds = media.duration.seconds
        return Deliverables.File(name: (path as NSString).lastPathComponent, kind: kind, bytes: bytes,
                                 width: size?.width ?? 0, height: size?.height ?? 0,
                                 duration: seconds.isFinite ? seconds : nil, sha256: try SHA256.hex(ofFile: path))
    }
}
