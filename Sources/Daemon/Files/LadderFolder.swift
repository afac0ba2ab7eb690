import Foundation
import DropcutPipeline
import DropcutSupport

/// An HLS ladder's folder as the daemon publishes it in a deliverable set (`clip/` holding
/// `clip.m3u8`, `240p/…`, `audio/…`): checked, given the folder's permissions and made
/// durable — every file and folder in it fsynced — before it is published whole, by one
/// exclusive rename of the folder (`DurableFiles.publishExclusively`).
///
/// The worker wrote it, and what a worker leaves is checked like any input (a worker taken
/// over by a hostile clip must not make the daemon chmod or publish anything else): every
/// entry must be a regular file or a folder, at most `maximumDepth` folders deep, and
/// anything else refuses the whole ladder. Each is looked at (`fstatat`, no symlink
/// followed) before it is opened relative to its folder, and checked again once open
/// (`O_NOFOLLOW`, `O_NONBLOCK`: something swapped in between is neither followed nor
/// waited on). The sizes
/// of its files add up to the bytes the manifest states for it, which the caller checks
/// against the worker's description.
///
/// Permissions: `output_mode` is written for files (0644, 0640: who may read an output). A
/// folder gets the same bits plus x wherever r is set — a folder whose files one may read
/// must be searchable by that one too: 0644 → 0755, 0640 → 0750, 0600 → 0700 — and always
/// rwx for its owner, the daemon, which must be able to take a ladder back (remove or move
/// what is in it) whatever the mode. `output_group` applies to both.
enum LadderFolder {
    /// How deep a ladder's folders go: the ladder's own, a rung's; a little room beyond.
    static let maximumDepth = 4

    /// What sealing found: the bytes of every file in the folder and the folder's inode
    /// (what finds it again once published, as a file's inode does).
    struct Sealed: Hashable {
        var bytes: Int64
        var inode: UInt64
    }

    /// A folder's permission bits for the files' `mode` (see the type's comment).
    static func directoryMode(for mode: mode_t) -> mode_t {
        (mode | ((mode & 0o444) >> 2) | 0o700) & 0o777
    }

    /// Checks the folder at `path` and everything in it, applies `mode` (files; folders get
    /// `directoryMode`) and `group`, and fsyncs each file, then each folder after what it
    /// holds. Throws for anything but regular files and folders, naming the entry.
    static func seal(_ path: String, mode: mode_t?, group: gid_t?) throws(SystemError) -> Sealed {
        let fd = try sys("open (O_NOFOLLOW: a ladder is a folder)", path) {
            open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        }
        defer { close(fd) }
        var bytes: Int64 = 0
        let inode = try seal(fd, path: path, depth: 0, mode: mode, group: group, bytes: &bytes)
        return Sealed(bytes: bytes, inode: inode)
    }

    /// `seal` for the entry open as `fd` (shown as `path`); adds its files' sizes to `bytes`
    /// and returns its inode.
    private static func seal(_ fd: Int32, path: String, depth: Int, mode: mode_t?, group: gid_t?,
                             bytes: inout Int64) throws(SystemError) -> UInt64 {
        var info = stat()
        try sys("fstat", path) { fstat(fd, &info) }
        switch info.st_mode & S_IFMT {
        case S_IFREG where depth > 0:
            bytes += Int64(info.st_size)
            if let mode { try sys("fchmod", path) { fchmod(fd, mode) } }
        case S_IFDIR:
            guard depth < maximumDepth else {
                throw SystemError(errno: ELOOP, function: "refusing an HLS ladder more than \(maximumDepth) folders deep", path: path)
            }
            for name in try entries(fd, path: path) {
                let child = (path as NSString).appendingPathComponent(name)
                // Looked at before it is opened: opening a device can act on it.
                var kind = stat()
                try sys("fstatat", child) { fstatat(fd, name, &kind, AT_SYMLINK_NOFOLLOW) }
                guard [S_IFREG, S_IFDIR].contains(kind.st_mode & S_IFMT) else {
                    throw SystemError(errno: (kind.st_mode & S_IFMT) == S_IFLNK ? ELOOP : EINVAL,
                                      function: "refusing an entry of an HLS ladder that is neither a file nor a folder", path: child)
                }
                let entry = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                guard entry >= 0 else {
                    let code = errno
                    throw SystemError(errno: code, function: code == ELOOP
                                      ? "refusing a symlink in an HLS ladder (it holds files and folders only)" : "open", path: child)
                }
                defer { close(entry) }
                _ = try seal(entry, path: child, depth: depth + 1, mode: mode, group: group, bytes: &bytes)
            }
            if let mode { try sys("fchmod", path) { fchmod(fd, directoryMode(for: mode)) } }
        default:
            throw SystemError(errno: EINVAL, function: "refusing an entry of an HLS ladder that is neither a file nor a folder", path: path)
        }
        if let group { try sys("fchown", path) { fchown(fd, uid_t.max, group) } }
        try sys("fsync", path) { fsync(fd) }
        return UInt64(info.st_ino)
    }

    /// The names in the folder open as `fd` (without `.` and `..`), sorted.
    private static func entries(_ fd: Int32, path: String) throws(SystemError) -> [String] {
        // fdopendir takes the descriptor it is given: a duplicate, so `fd` stays ours.
        let copy = try sys("dup", path) { dup(fd) }
        guard let stream = fdopendir(copy) else {
            let error = SystemError.last("fdopendir", path)
            close(copy)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError.last("readdir", path) }
                break
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
