import Foundation

/// Writing a whole buffer to a file descriptor: what the daemon's durable files, its
/// manifest and a captions deliverable share.
package enum FileWriting {
    /// Writes all `count` bytes at `bytes` to `fd`, again after EINTR and after a short
    /// write; returns 0, or the errno of the failure (EIO when the system accepts nothing
    /// without saying why, so the loop always ends).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int32 {
        guard count > 0, let bytes else { return 0 }
        var offset = 0
        while offset < count {
            let written = write(fd, bytes + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return 0
    }
}
