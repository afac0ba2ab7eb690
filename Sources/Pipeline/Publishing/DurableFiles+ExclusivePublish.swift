import Foundation
internal import CDropcutLinux
import DropcutSupport

/// Publishing a finished file under a name, exclusively on every filesystem: of several
/// processes — on several hosts sharing a folder — publishing to one name at once, exactly
/// one gets it and the others are told it is taken (and try `-1`, `-2`...); nothing that
/// has the name is ever replaced. Used for every visible name dropcut makes: outputs in
/// the outbox, originals in the archive and failed/, error files.
extension DurableFiles {
    /// Gives the complete file `source` the name `path` (in the same folder's filesystem)
    /// unless something has it: true when published (`source`'s name is gone), false when
    /// the name is taken. Tries the `PublishMethod`s from `first` on, each where the
    /// filesystem has it. `source` may be a folder (an HLS ladder's), published whole: link(2)
    /// refuses folders (EPERM), so a folder goes on to renameat2(RENAME_NOREPLACE), and
    /// where that is missing too (sshfs) to an empty folder as its placeholder. A name that already holds `source` (linked before a crash) or a
    /// placeholder job `tag` left (`PublishPlaceholder`) counts as this job's own.
    /// Throws what fails otherwise, naming `path` and the call.
    package static func publishExclusively(_ source: String, as path: String, tag: String?,
                                   from first: PublishMethod = .link) throws(SystemError) -> Bool {
        try publishExclusively(source, as: Array(path.utf8CString), tag: tag, from: first)
    }

    /// `publishExclusively(_:as:tag:from:)` for a name given as bytes (a dropped name that is
    /// not UTF-8, `RawFileName.path(in:)`).
    package static func publishExclusively(_ source: String, as path: [CChar], tag: String?,
                                   from first: PublishMethod = .link) throws(SystemError) -> Bool {
        if first <= .link {
            if link(source, path) == 0 {
                unlink(source)
                return true
            }
            let code = errno
            switch code {
            case EEXIST:
                return try takenOrOwn(source, path, tag: tag)
            case EPERM, ENOTSUP, EOPNOTSUPP, EMLINK, ENOSYS:
                // No hard links here (or too many on the file). Over sshfs EPERM can also be
                // a name taken behind the kernel's cache: the SFTP server's generic
                // "failure" for EEXIST. Either way, a name that exists is taken.
                if PublishPlaceholder.exists(path) { return try takenOrOwn(source, path, tag: tag) }
            default:
                throw SystemError(errno: code, function: "link", path: String(cString: path))
            }
        }
        if first <= .renameNoReplace {
            if dropcut_rename_noreplace(source, path) == 0 { return true }
            let code = errno
            switch code {
            case EEXIST:
                return try takenOrOwn(source, path, tag: tag)
            case EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP:
                break   // the filesystem cannot refuse a taken name in a rename
            default:
                throw SystemError(errno: code, function: "renameat2 (RENAME_NOREPLACE)", path: String(cString: path))
            }
        }
        // A folder (an HLS ladder's) is reserved as an empty folder: rename(2) cannot put
        // a folder in place of a file.
        guard let placeholder = try PublishPlaceholder.reserve(path, tag: tag, folder: isFolder(source)) else {
            return try takenOrOwn(source, path, tag: tag)
        }
        try placeholder.replace(with: source)
        return true
    }

    /// Whether `path` is a folder itself (not a symlink to one).
    package static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// For a name found taken: true (published) when it is this job's own — the same
    /// file as `source` (a link made before a crash: the temporary name goes) or a
    /// placeholder the job left (replaced by `source`) — else false.
    private static func takenOrOwn(_ source: String, _ path: [CChar], tag: String?) throws(SystemError) -> Bool {
        var mine = stat(), existing = stat()
        if lstat(source, &mine) == 0, lstat(path, &existing) == 0,
           mine.st_ino == existing.st_ino, mine.st_dev == existing.st_dev {
            unlink(source)
            return true
        }
        guard PublishPlaceholder.isLeftover(at: path, tag: tag, folder: isFolder(source)), let leftover = PublishPlaceholder.leftover(at: path) else { return false }
        try leftover.replace(with: source)
        return true
    }
}
