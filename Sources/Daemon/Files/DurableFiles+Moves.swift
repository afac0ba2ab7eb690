import Foundation
import DropcutPipeline
import DropcutSupport

/// The daemon's durable moves and writes (`DurableFiles` is Pipeline's, beside the set
/// commit that publishes with it): originals into the archive or failed/, error files,
/// status files — each complete and fsynced before it has its name, never replacing one.
extension DurableFiles {
    /// Writes `data` to `path` through a hidden `.<name>.tmp-<pid>` beside it: write,
    /// fsync, rename, fsync the folder. Readers see the old or the new contents, never
    /// half. `durable: false` skips the fsyncs (still atomic for readers, not across power
    /// loss): for status files. The temporary name is cut to fit NAME_MAX however long
    /// `path`'s name.
    package static func write(_ data: Data, to path: String, mode: mode_t = 0o644, durable: Bool = true) throws(SystemError) {
        let hidden = FileName.hidden((path as NSString).lastPathComponent, suffix: ".tmp-\(getpid())")
        let temporary = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(hidden)
        let fd = try sys("open", temporary) { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        let failed = data.withUnsafeBytes { FileWriting.writeAll(fd, $0.baseAddress, $0.count) }
        if failed != 0 || (durable && fsync(fd) != 0) {
            let code = failed != 0 ? failed : errno
            close(fd)
            unlink(temporary)
            throw SystemError(errno: code, function: failed != 0 ? "write" : "fsync", path: temporary)
        }
        close(fd)
        do {
            try sys("rename", path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        if durable { try syncParent(of: path) }
    }

    /// Writes `data` as a new file in `directory` under the first free `name`, `name-1`...
    /// (never replacing a file: `linkUnique`), with permission bits `mode` whatever the
    /// umask; it is complete and fsynced before it has its name. On the way it is
    /// `.<name>.copying-<tag>`, which `finishMoves(in:tag:)` removes after a crash.
    /// Returns the final path.
    @discardableResult
    package static func writeUnique(_ data: Data, into directory: String, name: String, tag: String,
                                   mode: mode_t = 0o644) throws(SystemError) -> String {
        let temporary = (directory as NSString).appendingPathComponent(temporaryName(name, "copying", tag: tag))
        unlink(temporary)   // a crashed attempt's, under this job's own tag
        let fd = try sys("open", temporary) { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        let failed = data.withUnsafeBytes { FileWriting.writeAll(fd, $0.baseAddress, $0.count) }
        var code = failed, function = "write"
        if code == 0, fchmod(fd, mode) != 0 { (code, function) = (errno, "fchmod") }
        if code == 0, fsync(fd) != 0 { (code, function) = (errno, "fsync") }
        close(fd)
        guard code == 0 else {
            unlink(temporary)
            throw SystemError(errno: code, function: function, path: temporary)
        }
        do {
            return try linkUnique(temporary, into: directory, name: name, tag: tag)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Gives the file at `source` the first free name among `name`, `name-1`, ... in
    /// `directory` (same filesystem), never replacing a file, even when other processes or
    /// hosts publish to the same names at once (`publishExclusively`: link, else
    /// renameat2(RENAME_NOREPLACE), else an exclusive placeholder); then fsyncs the folder.
    /// `tag` (the job's id) lets the job's recovery take back a placeholder it left in a
    /// crash; `from` skips methods (tests of the fallbacks). Returns the final path.
    package static func linkUnique(_ source: String, into directory: String, name: String, tag: String? = nil,
                                  from first: PublishMethod = .link) throws(SystemError) -> String {
        for n in 0..<maximumNumbered {
            let candidate = (directory as NSString).appendingPathComponent(numbered(name, n))
            if try publishExclusively(source, as: candidate, tag: tag, from: first) {
                try sync(directory)
                return candidate
            }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)", path: (directory as NSString).appendingPathComponent(name))
    }

    /// Moves `source` into `directory` under the first free `name`, `name-1`, ...: a rename
    /// on the same filesystem; across filesystems a copy to a hidden temporary name,
    /// fsync, link into place, and only then unlink of the source. Returns the final path.
    ///
    /// On the way the file is `.<name>.moving-<tag>` in `directory` (complete: a copy is
    /// `.copying-` until fsynced), so a crash leaves something `finishMoves(in:tag:)` can
    /// put in place and nothing half-written under a visible name.
    @discardableResult
    package static func move(_ source: String, into directory: String, name: String, tag: String,
                            mode: mode_t? = nil, group: gid_t? = nil) throws(SystemError) -> String {
        try move(source, into: directory, name: name, tag: tag, mode: mode, group: group) { hidden throws(SystemError) in
            try linkUnique(hidden, into: directory, name: name, tag: tag)
        }
    }

    /// The steps of every move (see `move(_:into:name:tag:mode:group:)`), with `publish`
    /// giving the complete hidden file its visible name — the name as it is, or the bytes a
    /// clip was dropped with (`DurableFiles+DroppedNames`).
    static func move<Published>(_ source: String, into directory: String, name: String, tag: String,
                                mode: mode_t?, group: gid_t?,
                                publish: (String) throws(SystemError) -> Published) throws(SystemError) -> Published {
        try makeDirectories(directory)
        let hidden = (directory as NSString).appendingPathComponent(temporaryName(name, "moving", tag: tag))
        if rename(source, hidden) == 0 {
            try apply(mode: mode, group: group, to: hidden)
            return try publish(hidden)
        }
        guard errno == EXDEV else { throw SystemError.last("rename", source) }
        let copying = (directory as NSString).appendingPathComponent(temporaryName(name, "copying", tag: tag))
        do {
            unlink(copying)
            try copy(source, to: copying)
            try apply(mode: mode, group: group, to: copying)
            try sys("rename", hidden) { rename(copying, hidden) }
        } catch {
            unlink(copying)
            throw error
        }
        let final = try publish(hidden)
        try sys("unlink", source) { unlink(source) }
        try syncParent(of: source)
        return final
    }

    /// `.<name>.<stage>-<tag>`, or — when that would pass NAME_MAX (255 bytes) — the
    /// name's start and a hash of the whole name in its place, so a 250-byte clip name can
    /// still be archived.
    static func temporaryName(_ name: String, _ stage: String, tag: String) -> String {
        let suffix = ".\(stage)-\(tag)"
        let plain = "." + name + suffix
        guard plain.utf8.count > FileName.maximumBytes else { return plain }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a: stable across runs, unlike Hasher
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        // The hash goes before the suffix, in place of the name's cut-off end.
        let mark = "~" + String(hash, radix: 16)
        let kept = FileName.truncated(name, toBytes: FileName.maximumBytes - 1 - mark.utf8.count - suffix.utf8.count)
        return FileName.hidden(kept + mark, suffix: suffix)
    }

    /// Puts in place the files a crash left mid-`move` with this `tag` (complete copies
    /// under `.moving-`), and removes partial copies (`.copying-`). `names` are the names
    /// the job moves (a shortened temporary name is matched back to its name); returns
    /// the final paths.
    @discardableResult
    package static func finishMoves(in directory: String, tag: String, names: [String] = []) throws(SystemError) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var finished: [String] = []
        for entry in entries where entry.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(entry)
            if entry.hasSuffix(".copying-\(tag)") {
                unlink(path)
            } else if entry.hasSuffix(".moving-\(tag)") {
                let name = names.first { temporaryName($0, "moving", tag: tag) == entry }
                    ?? String(entry.dropFirst().dropLast(".moving-\(tag)".count))
                finished.append(try linkUnique(path, into: directory, name: name, tag: tag))
            }
        }
        return finished
    }

    /// Copies `source` to a new file `destination` with its permission bits and times (an
    /// archived original keeps its mtime and group, and is no more private or public than it was),
    /// and fsyncs it.
    static func copy(_ source: String, to destination: String) throws(SystemError) {
        let input = try sys("open", source) { open(source, O_RDONLY | O_CLOEXEC) }
        defer { close(input) }
        let output = try sys("open", destination) { open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        defer { close(output) }
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try sys("read", source) { read(input, buffer, size) }
            if count == 0 { break }
            let failed = FileWriting.writeAll(output, buffer, count)
            if failed != 0 { throw SystemError(errno: failed, function: "write", path: destination) }
        }
        // The original's mode and times, as `mv` keeps them across filesystems.
        var info = stat()
        if fstat(input, &info) == 0 {
            _ = fchown(output, uid_t.max, info.st_gid)   // best effort: only a group we are in
            _ = fchmod(output, info.st_mode & 0o7777)
            var times = [info.st_atim, info.st_mtim]
            _ = futimens(output, &times)
        }
        try sys("fsync", destination) { fsync(output) }
    }

    /// mkdir that treats an existing folder as success.
    static func mkdirIfMissing(_ path: String) -> Int32 {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return 0 }
        return -1
    }

    /// Creates `path` and its missing parents.
    package static func makeDirectories(_ path: String) throws(SystemError) {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path && access(parent, F_OK) != 0 { try makeDirectories(parent) }
        try sys("mkdir", path) { mkdirIfMissing(path) }
    }

    /// Checks that `path` is a real directory (not a symlink) owned by this process's user:
    /// the daemon's own folders inside an inbox (`.dropcut`, `claimed/<job>`), which anyone
    /// who can write to the inbox could replace with a symlink pointing elsewhere — every
    /// later rename, unlink and removal would then act outside the inbox.
    /// With `missingIsFine`, a path that does not exist passes (a job's folder already
    /// removed before a crash: nothing is left to act on).
    package static func requireOwnDirectory(_ path: String, missingIsFine: Bool = false) throws(SystemError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            if missingIsFine && errno == ENOENT { return }
            throw SystemError.last("lstat", path)
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw SystemError(errno: ELOOP, function: "refusing dropcut's folder, replaced by a symlink", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SystemError(errno: ENOTDIR, function: "refusing dropcut's folder, replaced by something else", path: path)
        }
        guard info.st_uid == geteuid() else {
            throw SystemError(errno: EPERM, function: "refusing dropcut's folder, owned by user \(info.st_uid)", path: path)
        }
    }

    /// Removes `path` and everything under it (symlinks themselves, never what they point
    /// to); a missing path is fine, and so is an entry that vanished meanwhile. A folder
    /// that is not empty yet is listed and tried again a few times over a second: on a
    /// FUSE share (sshfs) a file unlinked while another process still reads it lingers as
    /// `.fuse_hidden…` until that reader closes it — a claim folder whose lease was being
    /// read by a watching daemon was left behind, empty, by a single try.
    package static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            unlink(path)
            return
        }
        for attempt in 0..<10 {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                removeTree((path as NSString).appendingPathComponent(name))
            }
            if rmdir(path) == 0 || errno == ENOENT { return }
            guard errno == ENOTEMPTY || errno == EEXIST, attempt < 9 else { return }
            usleep(100_000)
        }
    }
}
