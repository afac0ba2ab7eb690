import Foundation
import DropcutSupport
import Synchronization

/// The mount each of the daemon's output folders (outbox, failed, archive) was on when it
/// started, so that an unmounted share is noticed instead of written around: an outbox
/// whose share is gone is an empty mount point on the parent filesystem, or missing under
/// a bare parent — creating it there and writing into it would hide every output once
/// the share is back. Such a folder fails the step with a transient error (retried with
/// backoff) until the share is mounted again.
///
/// Judged by mount point, not device number: a share mounted again usually gets a new
/// device number, and must count as back.
final class FolderMounts: Sendable {
    private let seen = Mutex<[String: String]>([:])

    /// Notes the mount `path` is on now (at start, after creating it; on reload).
    func record(_ path: String) {
        guard let mount = try? Self.mountPoint(of: path) else { return }
        seen.withLock { $0[path] = mount }
    }

    /// Throws when `path` (the folder's `role`: outbox, failed folder, archive) — or, when
    /// it is missing, the place it would be created — is not on the mount it was on at
    /// start. A folder never recorded passes.
    func require(_ path: String, role: String) throws(JobFailure) {
        guard let before = seen.withLock({ $0[path] }) else { return }
        let now: String?
        do {
            now = try Self.mountPoint(of: path)
        } catch {
            // Not a sign of a share gone: the daemon could not look (out of descriptors,
            // EMFILE, is the usual cause). Said as it is, and retried like an unmounted share.
            throw .unavailable("cannot check that the \(role) \(path) is still on \(before): \(error)")
        }
        guard now != before else { return }
        throw .unavailable("the \(role) \(path) is no longer on \(before) but on \(now ?? "nothing") (an unmounted share?); waiting for it")
    }

    /// The mount point `path` lies on (/proc/self/mountinfo's longest mount point that
    /// contains its real path); for a missing path, that of where it would be created.
    /// Throws when the mount table cannot be read (EMFILE, ENFILE): that is no answer, and
    /// must never be taken for "on nothing", which reads as an unmounted share.
    static func mountPoint(of path: String) throws(SystemError) -> String? {
        guard let real = realPath(path) else { return nil }
        let table = try mountTable()
        var best: String?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            let point = unescape(String(fields[4]))
            let inside = point == "/" || real == point || real.hasPrefix(point + "/")
            if inside && point.count >= (best?.count ?? 0) { best = point }
        }
        return best
    }

    /// The resolved path of `path`, or of its nearest existing ancestor with the rest
    /// appended.
    static func realPath(_ path: String) -> String? {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path, let base = realPath(parent) else { return nil }
        return (base as NSString).appendingPathComponent((path as NSString).lastPathComponent)
    }

    /// /proc/self/mountinfo's text, read with open(2) so that the reason it cannot be read
    /// (errno) is kept.
    static func mountTable(_ path: String = "/proc/self/mountinfo") throws(SystemError) -> String {
        let fd = try sys("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = try sys("read", path) { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// mountinfo writes space, tab, newline and backslash as octal escapes (`\040`).
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4,
               let value = UInt8(String(decoding: utf8.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
