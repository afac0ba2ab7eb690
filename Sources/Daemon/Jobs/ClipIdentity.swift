import Foundation
import DropcutDigest
import DropcutSupport

/// What a claimed clip is, byte for byte as far as a cheap look can tell: the file (device
/// and inode: a rename into the claim keeps them, a replacement does not), its size and
/// modification time, and a SHA-256 of its first and last `sampled` bytes (a rewrite that
/// keeps size and time — a tool that restores the time stamp — changes them). Recorded at
/// claim and looked at again before the output is committed: a render made from bytes
/// that changed since is never published (`ClipArrival`).
package struct ClipIdentity: Codable, Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modified: Int64
    /// Hex SHA-256 of the first and the last `sampled` bytes (the whole file when it is
    /// shorter than both together).
    package var digest: String

    package init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, digest: String) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.digest = digest
    }

    /// How many bytes of each end are hashed.
    package static let sampled = 64 * 1024

    /// The identity of the regular file at `path` and its first bytes (at most `sampled`:
    /// what `ClipEnding` judges). Never follows a symlink nor blocks on a FIFO; throws
    /// the `SystemError` naming the call and the path.
    package static func read(_ path: String) throws(SystemError) -> (identity: ClipIdentity, head: [UInt8]) {
        let fd = try sys("open", path) { open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        defer { close(fd) }
        var info = stat()
        try sys("fstat", path) { fstat(fd, &info) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError(errno: EINVAL, function: "fstat (not a regular file)", path: path)
        }
        let size = Int64(info.st_size)
        let head = try bytes(fd, path, at: 0, count: Int(min(size, Int64(sampled))))
        let tailStart = max(Int64(head.count), size - Int64(sampled))
        let tail = try bytes(fd, path, at: tailStart, count: Int(size - tailStart))
        var hash = SHA256()
        hash.update(head)
        hash.update(tail)
        let identity = ClipIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: size,
                                    modified: InboxScanner.nanoseconds(info.st_mtim), digest: hash.finish())
        return (identity, head)
    }

    /// `count` bytes at `offset`, fewer where the file ends sooner (it may be shrinking).
    private static func bytes(_ fd: Int32, _ path: String, at offset: Int64, count: Int) throws(SystemError) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw SystemError.last("pread", path)
            }
            if got == 0 { break }   // the end came sooner: what there is
            filled += got
        }
        return Array(buffer.prefix(filled))
    }
}
