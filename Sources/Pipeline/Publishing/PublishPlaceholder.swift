import Foundation
import DropcutSupport

/// A name reserved by creating it exclusively, as an empty file, then replaced by the file
/// it was reserved for with rename(2): publishing that never overwrites on a filesystem
/// with neither hard links nor renameat2(RENAME_NOREPLACE) — sshfs without its hard-link
/// extension, an NFS server without hard links. An exclusive create is exclusive wherever
/// a file can be created (over NFSv3+, SMB and SFTP the server does the check), so of
/// several processes or hosts reserving one name exactly one gets it, and the rename
/// replaces only that one's own reservation. Publishers that use link(2) or NOREPLACE
/// elsewhere see the reservation as a taken name too.
///
/// The reservation is made with mknod(2), never by opening the name, and it is never
/// opened afterwards (not even to read it): on a FUSE filesystem such as sshfs, a rename
/// onto a name the mount still counts as open — and a close(2) is released
/// asynchronously — first moves that file aside (`.fuse_hidden…`), so for a moment the
/// name does not exist on the server and another host's exclusive create of it succeeds;
/// the rename then replaces that host's reservation and both are told they hold the name
/// (the duplicate seen under load). mknod's exclusive create leaves nothing open.
///
/// The placeholder is the final name itself, not a lock file beside it, so nothing is
/// left to clean up on success (the rename replaces it) and no lock can go stale on its
/// own. It is visible for the moment between its creation and the rename: an empty file
/// of mode 0600 whose modification time is the job's mark (`mark(tag:)`, a second between
/// 2001 and 2017 derived from the job id: what every filesystem, SFTP's included, keeps of
/// a time). Nothing is written into it: writing would open it.
///
/// A crash in that moment leaves the placeholder. It is never removed by age: no clock on
/// a share can be trusted, and removing a name someone else holds is what must not happen.
/// The job that made it is recovered under the same tag (its id) and recognises its own
/// placeholder by the mark, which it replaces with the file; any other process treats it
/// as a taken name.
///
/// A folder (an HLS ladder's) is published the same way with an empty folder as its
/// placeholder: mkdir(2) is an exclusive create on every filesystem (EEXIST over sshfs,
/// NFS and SMB alike, the server deciding), and rename(2) of a folder onto an empty folder
/// replaces it atomically (POSIX; over sshfs the `posix-rename@openssh.com` extension the
/// file placeholder needs already is the server's rename(2)). The reserved folder has the
/// same mark and mode 0700, and counts as a leftover only while it is empty: a folder
/// someone else made, or put anything into, is never replaced, merged into or removed —
/// rename(2) itself refuses a folder that is not empty (ENOTEMPTY), and so does rmdir(2)
/// when a failed publish takes its reservation back. The ladder is never moved entry by
/// entry, so no crash can leave half of one under its name.
package struct PublishPlaceholder {
    /// The reserved name (bytes: a dropped name need not be UTF-8).
    package let path: [CChar]
    /// The reservation's file (or folder), to recognise it as still ours.
    package let device: UInt64
    package let inode: UInt64
    /// An empty folder, reserved for a folder.
    package var isFolder = false

    /// The modification time that marks job `tag`'s placeholders: FNV-1a of the id onto
    /// 500 million seconds from 2001-09-09 (no real output is that old and empty).
    package static func mark(tag: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in tag.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return 1_000_000_000 + Int(hash % 500_000_000)
    }

    /// Creates `path` exclusively as an empty placeholder of job `tag`, marked with the
    /// job's time (an untagged one keeps the current time: no job takes it back). Nil
    /// when the name is taken. EPERM/EACCES over sshfs can mean a name taken behind the
    /// kernel's cache (the SFTP server's "failure" for EEXIST), so a name that exists
    /// then is taken too, and one that does not yet show is asked for again; otherwise the
    /// error is thrown, naming the path. A filesystem that cannot make a file without
    /// opening it (ENOSYS, ENOTSUP) is refused: an opened placeholder is not exclusive there.
    /// `folder`: the placeholder is an empty folder (mkdir), for publishing a folder.
    package static func reserve(_ path: [CChar], tag: String?, folder: Bool = false) throws(SystemError) -> PublishPlaceholder? {
        // The client's cache can still say "no such file" for a moment after the server
        // refused the name (seen over sshfs with another mount creating it): asked again
        // after a pause, up to 1.5 s in all, before a refusal counts as a real one.
        for pause in [100_000, 200_000, 400_000, 800_000, 0] as [useconds_t] {
            if (folder ? mkdir(path, 0o700) : mknod(path, S_IFREG | 0o600, 0)) == 0 { break }
            let code = errno
            if code == EEXIST || ((code == EPERM || code == EACCES) && exists(path)) { return nil }
            if [ENOSYS, ENOTSUP, EOPNOTSUPP].contains(code) {
                throw SystemError(errno: code, function: "mknod (to reserve the name: this filesystem has neither hard links, "
                                  + "rename without replacing, nor exclusive creation of an empty file, so a name cannot be published "
                                  + "there without risking another host's file)", path: String(cString: path))
            }
            guard code == EPERM || code == EACCES, pause > 0 else {
                throw SystemError(errno: code, function: folder ? "mkdir (to reserve the name)" : "mknod (O_EXCL, to reserve the name)",
                                  path: String(cString: path))
            }
            usleep(pause)
        }
        if let tag {
            let time = timespec(tv_sec: mark(tag: tag), tv_nsec: 0)
            let times = [time, time]
            if utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) != 0 {
                let code = errno
                _ = folder ? rmdir(path) : unlink(path)   // ours: created just now, exclusively
                throw SystemError(errno: code, function: "utimensat (marking the placeholder)", path: String(cString: path))
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw SystemError(errno: errno, function: "lstat (the placeholder just made)", path: String(cString: path))
        }
        return PublishPlaceholder(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), isFolder: folder)
    }

    /// Whether `path` is a placeholder that job `tag` left (a crash between reserving and
    /// renaming): an empty regular file with the job's mark, seen without opening it — or,
    /// `folder`, an empty folder with the mark.
    package static func isLeftover(at path: [CChar], tag: String?, folder: Bool = false) -> Bool {
        guard let tag else { return false }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mtim.tv_sec == mark(tag: tag) else { return false }
        if folder { return (info.st_mode & S_IFMT) == S_IFDIR && isEmptyFolder(path) }
        return (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0
    }

    /// A leftover placeholder of job `tag` found at `path`, to be replaced.
    package static func leftover(at path: [CChar]) -> PublishPlaceholder? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return PublishPlaceholder(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                                  isFolder: (info.st_mode & S_IFMT) == S_IFDIR)
    }

    /// Whether the folder at `path` holds nothing (its link count says nothing over sshfs).
    package static func isEmptyFolder(_ path: [CChar]) -> Bool {
        guard let stream = opendir(path) else { return false }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// Puts `source` in place of the placeholder. If the rename fails the placeholder is
    /// removed (when it is still this reservation: the same empty file, or folder — rmdir
    /// removes only an empty one) and the error thrown — unless `source` is gone and the
    /// placeholder with it: the rename was done and only its answer was lost (a network
    /// filesystem's reply), which is success.
    package func replace(with source: String) throws(SystemError) {
        if rename(source, path) == 0 { return }
        let code = errno
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode,
           isFolder || info.st_size == 0 {
            _ = isFolder ? rmdir(path) : unlink(path)
        } else if !Self.exists(Array(source.utf8CString)) {
            return
        }
        throw SystemError(errno: code, function: "rename (onto its reserved name)", path: String(cString: path))
    }

    /// Whether anything has the name `path` (a symlink too).
    package static func exists(_ path: [CChar]) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
