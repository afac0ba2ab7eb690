import Foundation
import DropcutSupport

/// File steps that survive a crash or power loss at any point: data and directory
/// entries are fsynced before the step that depends on them, and nothing is ever
/// overwritten or unlinked before its copy is safe. Declared here, beside the one set
/// commit (`SetCommit`) that publishes with it; the daemon's moves of originals and error
/// files extend it (`DurableFiles+Moves` in the daemon).
package enum DurableFiles {
    /// fsyncs the file or directory at `path`.
    package static func sync(_ path: String) throws(SystemError) {
        let fd = try sys("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        try sys("fsync", path) { fsync(fd) }
    }

    /// fsyncs the folder holding `path`, so a rename or link into it is on disk.
    package static func syncParent(of path: String) throws(SystemError) {
        try sync((path as NSString).deletingLastPathComponent)
    }

    /// How many numbered names are tried before a name counts as taken for good.
    package static let maximumNumbered = 10_000

    /// `name` with `-1`, `-2`... before its extension: `clip.mp4`, `clip-1.mp4`; the stem
    /// shortened where the number would take the name past NAME_MAX (255 bytes).
    package static func numbered(_ name: String, _ n: Int) -> String {
        guard n > 0 else { return name }
        let ext = (name as NSString).pathExtension
        let tail = "-\(n)" + (ext.isEmpty ? "" : ".\(ext)")
        let stem = (name as NSString).deletingPathExtension
        return FileName.fitting(stem, suffix: tail)
    }

    /// Sets permission bits and group (when given) of `path`.
    package static func apply(mode: mode_t?, group: gid_t?, to path: String) throws(SystemError) {
        if let mode { try sys("chmod", path) { chmod(path, mode) } }
        if let group { try sys("chown", path) { chown(path, uid_t.max, group) } }
    }
}
