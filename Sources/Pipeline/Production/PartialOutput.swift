import Foundation
import DropcutSupport
import DropcutTimeline

/// Where a render is written until it is complete: a hidden file in the folder of its
/// final name — hidden so that inbox scanners (dropcut's own among them) skip it, in the
/// same folder so that publishing it is an atomic rename or link, with the final name's
/// extension because the extension picks the container. The one naming scheme for
/// `dropcut render` and the daemon.
public struct PartialOutput: Sendable, Hashable {
    /// The temporary file's path.
    public let path: String

    /// The longest part of the final name kept in the temporary name, in bytes: with the
    /// tag and extension it stays far below NAME_MAX (255) however long the clip's name.
    static let maximumStemBytes = 96

    /// `directory/.<stem>.partial-<tag>.<ext>` for an output called `filename`. `tag` tells
    /// concurrent renders apart (a process id, a job id).
    public init(directory: String, filename: String, tag: String) {
        let ext = (filename as NSString).pathExtension
        let stem = FileName.truncated((filename as NSString).deletingPathExtension, toBytes: Self.maximumStemBytes)
        let hidden = ".\(stem).partial-\(tag)" + (ext.isEmpty ? "" : ".\(ext)")
        path = directory.isEmpty ? hidden : (directory as NSString).appendingPathComponent(hidden)
    }

    /// The tag of a temporary output's file name (`.<stem>.partial-<tag>` and the
    /// extension; tags hold no dot), nil for any other name.
    package static func tag(ofName name: String) -> String? {
        guard name.hasPrefix("."), let marker = name.range(of: ".partial-", options: .backwards) else { return nil }
        let tag = name[marker.upperBound...].prefix { $0 != "." }
        return tag.isEmpty ? nil : String(tag)
    }

    /// Removes every temporary output in `directory` tagged with one of `tags`; returns
    /// their names.
    @discardableResult
    package static func removeAll(taggedWith tags: Set<String>, in directory: String) -> [String] {
        guard !tags.isEmpty else { return [] }
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let tag = tag(ofName: name), tags.contains(tag) else { continue }
            PartialOutput(path: (directory as NSString).appendingPathComponent(name)).remove()
            removed.append(name)
        }
        return removed.sorted()
    }

    /// The temporary name beside `destination`.
    public init(besides destination: String, tag: String) {
        self.init(directory: (destination as NSString).deletingLastPathComponent,
                  filename: (destination as NSString).lastPathComponent, tag: tag)
    }

    /// A temporary output recorded earlier (a daemon job's record).
    public init(path: String) {
        self.path = path
    }

    /// Removes the file if it is there: a render that failed or was interrupted, or the
    /// leftover of a crash. A folder (an HLS ladder's) goes with everything in it.
    public func remove() {
        if unlink(path) != 0, errno == EISDIR || errno == EPERM {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
