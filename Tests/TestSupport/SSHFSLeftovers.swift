import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a test process that died (crashed, was killed) left of its `SFTPServer`s: their
/// folders `<tmp>/dropcut-sshfs-<pid>-<uuid>/`, sshfs mounts under them and sshd
/// processes. Only those whose test process is gone are touched — other tests (another
/// engineer's, running at the same time) keep theirs.
enum SSHFSLeftovers {
    /// The start of every server folder's name; the test process's pid follows.
    static let prefix = "dropcut-sshfs-"

    /// Unmounts, stops and removes the leftovers of test processes that no longer exist.
    static func removeThoseOfDeadTests() {
        let base = FileManager.default.temporaryDirectory.path
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            guard let owner = pid_t(entry.dropFirst(prefix.count).prefix { $0 != "-" }), !isAlive(owner) else { continue }
            let folder = (base as NSString).appendingPathComponent(entry)
            for mount in SSHFSMount.mountPoints() where mount.path.hasPrefix(folder + "/") {
                SSHFSMount.unmount(mount.path)
            }
            stopServer(of: folder)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Whether a process `pid` exists (EPERM: it does, someone else's).
    static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Kills the sshd of a dead test's folder: the pid in its pid file, only if that
    /// process is sshd running that folder's config (a pid is reused once its process is gone).
    static func stopServer(of folder: String) {
        let pidFile = (folder as NSString).appendingPathComponent("sshd.pid")
        guard let pidText = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1,
              let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return }
        // sshd rewrites its command line ("sshd: /usr/sbin/sshd -D -f <config> ... [listener]").
        let text = String(decoding: commandLine.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        guard text.contains(SFTPServer.sshd), text.contains((folder as NSString).appendingPathComponent("sshd_config") + " ") else { return }
        kill(pid, SIGKILL)
    }
}
