import Foundation

/// A name reserved by creating it exclusively (O_CREAT|O_EXCL), then replaced by the file
/// it was reserved for with rename(2): publishing that never overwrites on a filesystem
/// with neither hard links nor renameat2(RENAME_NOREPLACE) — sshfs without its hard-link
/// extension, an NFS server without hard links. O_EXCL is exclusive wherever a file can be created
/// (over NFSv3+, SMB and SFTP the server does the check), so of several processes or hosts
/// reserving one name exactly one gets it, and the rename replaces only that one's own
/// reservation. Publishers that use link(2) or NOREPLACE elsewhere see the reservation
/// as a taken name too.
///
/// The placeholder is the final name itself, not a lock file beside it, so nothing is
/// left to clean up on success (the rename replaces it) and no lock can go stale on its
/// own. It is visible for the moment between its creation and the rename: a small file of
/// mode 0600 holding a marker that names the job, the host and the process.
///
/// A crash in that moment leaves the placeholder. It is never removed by age: no clock on
/// a share can be trusted, and removing a name someone else holds is what must not happen.
/// The job that made it is recovered under the same tag (its id) and recognises its own
/// placeholder by the marker's `job` line, which it replaces with the file; any other
/// process treats it as a taken name. A placeholder whose job never comes back stays, and
/// says which job it was.
struct PublishPlaceholder {
    /// The reserved name (bytes: a dropped name need not be UTF-8).
    let path: [CChar]
    /// Exactly what this reservation wrote, to recognise it as still ours.
    let marker: Data

    static let firstLine = "dropcut publish placeholder"

    /// The marker's start for the job `tag`: what a crashed attempt of the same job left.
    static func prefix(tag: String) -> Data {
        Data("\(firstLine)\njob \(tag)\n".utf8)
    }

    /// The marker of a new reservation: job, host, process and a random part (two
    /// reservations of one job are still told apart).
    static func marker(tag: String?) -> Data {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        return Data("\(firstLine)\njob \(tag ?? "-")\nhost \(String(cString: host))\npid \(getpid())\nnonce \(UUID().uuidString)\n".utf8)
    }

    /// Creates `path` exclusively as a placeholder of job `tag`, its marker fsynced. Nil
    /// when the name is taken. EPERM/EACCES over sshfs can mean a name taken behind the
    /// kernel's cache (the SFTP server's "failure" for EEXIST), so a name that exists
    /// then is taken too, and one that does not yet show is asked for again; otherwise the
    /// error is thrown, naming the path.
    static func reserve(_ path: [CChar], tag: String?) throws(SystemError) -> PublishPlaceholder? {
        var fd: Int32 = -1
        // The client's cache can still say "no such file" for a moment after the server
        // refused the name (seen over sshfs with another mount creating it): asked again
        // after a pause, up to 1.5 s in all, before a refusal counts as a real one.
        for pause in [100_000, 200_000, 400_000, 800_000, 0] as [useconds_t] {
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 { break }
            let code = errno
            if code == EEXIST || ((code == EPERM || code == EACCES) && exists(path)) { return nil }
            guard code == EPERM || code == EACCES, pause > 0 else {
                throw SystemError(errno: code, function: "open (O_EXCL, to reserve the name)", path: String(cString: path))
            }
            usleep(pause)
        }
        let marker = marker(tag: tag)
        let failed = marker.withUnsafeBytes { DurableFiles.writeAll(fd, $0.baseAddress, $0.count) }
        if failed != 0 || fsync(fd) != 0 {
            let code = failed != 0 ? failed : errno
            close(fd)
            unlink(path)   // ours: created just now, exclusively
            throw SystemError(errno: code, function: failed != 0 ? "write (placeholder)" : "fsync (placeholder)", path: String(cString: path))
        }
        close(fd)
        return PublishPlaceholder(path: path, marker: marker)
    }

    /// Whether `path` is a placeholder that job `tag` left (a crash between reserving and
    /// renaming): a small regular file whose marker names that job.
    static func isLeftover(at path: [CChar], tag: String?) -> Bool {
        guard let tag, let contents = smallFile(path) else { return false }
        return contents.starts(with: prefix(tag: tag))
    }

    /// Puts `source` in place of the placeholder. If the rename fails the placeholder is
    /// removed (when it still holds this reservation's marker) and the error thrown —
    /// unless `source` is gone and the placeholder with it: the rename was done and only
    /// its answer was lost (a network filesystem's reply), which is success.
    func replace(with source: String) throws(SystemError) {
        if rename(source, path) == 0 { return }
        let code = errno
        if Self.smallFile(path) == marker {
            unlink(path)
        } else if !Self.exists(Array(source.utf8CString)) {
            return
        }
        throw SystemError(errno: code, function: "rename (onto its reserved name)", path: String(cString: path))
    }

    /// The contents of `path` if it is a regular file of at most 4 KiB (placeholders are
    /// about 150 bytes), without following a symlink or blocking on a FIFO.
    static func smallFile(_ path: [CChar]) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 4096 else { return nil }
        var buffer = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        let count = read(fd, &buffer, buffer.count)
        return count < 0 ? nil : Data(buffer.prefix(count))
    }

    /// Whether anything has the name `path` (a symlink too).
    static func exists(_ path: [CChar]) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
