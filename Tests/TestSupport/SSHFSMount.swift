import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder of an `SFTPServer` mounted through `sshfs` (FUSE), as a host would mount a
/// share: a real network filesystem whose every operation is an SFTP request to the
/// test's own sshd on 127.0.0.1. Mount the same folder twice for two "hosts": each mount
/// has its own connection, its own `sftp-server` process and its own kernel caches.
///
/// `hardLinks: false` mounts through the server's `sftp-nolink` subsystem, which refuses
/// `hardlink@openssh.com`: `link()` fails there with EPERM, as when the server's
/// filesystem has no hard links. (sshfs's own `-o disable_hardlink`, passed in `options`,
/// refuses link() in the client, also EPERM: the kernel's FUSE client maps sshfs's ENOSYS.)
///
/// `unmount()` (also run by `deinit`, so a failing test still unmounts) detaches the mount;
/// the mount holds its server, which therefore outlives it.
public final class SSHFSMount: @unchecked Sendable {
    /// Where the folder is mounted (under the server's folder, `mounts/<n>`).
    public let path: String
    /// The server's folder that is mounted (its `export/` unless told otherwise).
    public let remote: String
    /// Whether `link()` works on this mount.
    public let hardLinks: Bool
    /// The server, kept running while the mount exists.
    public let server: SFTPServer
    private let lock = NSLock()
    private var mounted = true

    /// Mounts `remote` (default: the server's `export/`) of `server`. `options` are more
    /// `-o` options for sshfs. Throws a `CommandError` with sshfs's message when the mount
    /// fails (no /dev/fuse, sshfs missing, the server refusing the key...).
    public init(_ server: SFTPServer, remote: String? = nil, hardLinks: Bool = true, options: [String] = []) throws {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            throw CommandError(command: ["sshfs"], status: nil, stderr: "/dev/fuse: \(String(cString: strerror(errno))) (FUSE is needed for sshfs)")
        }
        guard Command.find("sshfs") != nil, Self.fusermount != nil else {
            throw CommandError(command: ["sshfs"], status: nil, stderr: "sshfs or fusermount3 not found: run scripts/bootstrap (sshfs, fuse3)")
        }
        self.server = server
        self.remote = remote ?? server.export
        self.hardLinks = hardLinks
        let mounts = (server.directory as NSString).appendingPathComponent("mounts")
        try FileManager.default.createDirectory(atPath: mounts, withIntermediateDirectories: true)
        path = (mounts as NSString).appendingPathComponent(UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        var arguments = ["-F", server.clientConfig, "dropcut-test:\(self.remote)", path]
        var all = options
        if !hardLinks { all.append("sftp_server=\(SFTPServer.noHardLinksSubsystem)") }
        if !all.isEmpty { arguments += ["-o", all.joined(separator: ",")] }
        // sshfs returns once the mount is in place, leaving its FUSE process (and ssh) in the
        // background — holding whatever its stdout and stderr are: a file, not a pipe.
        let log = path + ".log"
        let sshfs = Command.find("sshfs")!
        let status = Spawn.wait(try Spawn.child([sshfs] + arguments, output: log))
        guard status == 0, Self.isMounted(path) else {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: path)
            throw CommandError(command: [sshfs] + arguments, status: status, stderr: said + "\nsshd's log:\n" + server.log)
        }
    }

    /// The path of `name` inside the mount.
    public func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Unmounts (lazily if something still uses it) and removes the mount point. Idempotent.
    public func unmount() {
        lock.lock()
        defer { lock.unlock() }
        guard mounted else { return }
        mounted = false
        Self.unmount(path)
        rmdir(path)
    }

    deinit { unmount() }

    /// `fusermount3`, or the older `fusermount`.
    static var fusermount: String? { Command.find("fusermount3") ?? Command.find("fusermount") }

    /// Detaches the FUSE mount at `path`: a plain unmount, else a lazy one (a process of a
    /// failed test may still hold a file open there). The sshfs process then exits.
    static func unmount(_ path: String) {
        guard let fusermount else { return }
        if (try? Command.run(fusermount, ["-u", "-q", path]))?.status != 0 {
            _ = try? Command.run(fusermount, ["-u", "-z", "-q", path])
        }
    }

    /// Whether `path` is a FUSE sshfs mount point now.
    public static func isMounted(_ path: String) -> Bool {
        mountPoints().contains { $0.path == path && $0.type == "fuse.sshfs" }
    }

    /// This machine's mount points and their types, from /proc/self/mountinfo (octal
    /// escapes in paths decoded).
    static func mountPoints() -> [(path: String, type: String)] {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { return nil }
            return (decode(String(fields[4])), String(fields[dash + 1]))
        }
    }

    /// A mountinfo path with its `\040`-style escapes decoded.
    static func decode(_ escaped: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(escaped.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
