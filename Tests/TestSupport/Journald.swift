import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real systemd-journald for tests, and a reader for what it stored.
///
/// In a container or VM without systemd as PID 1 nothing starts journald, so
/// `ensureRunning()` starts `/lib/systemd/systemd-journald` itself, detached in its own
/// session (`DetachedProcess`) so it outlives the test process. It then writes the volatile journal
/// under `/run/log/journal/<machine-id>/`, which plain `journalctl` reads: no `--directory`,
/// `-m` or `--flush` is needed (checked on Debian 12, systemd 252).
public enum Journald {
    /// The native-protocol socket `sd_journal_sendv` writes to.
    public static let socketPath = "/run/systemd/journal/socket"
    /// The journald binary started when none is running.
    public static let executable = "/lib/systemd/systemd-journald"
    /// Where a journald started by `ensureRunning()` writes its own stdout and stderr.
    public static let logPath = "/tmp/dropcut-test-journald.log"

    /// Serializes `ensureRunning()` inside this process; a file lock does it across processes.
    private static let lock = NSLock()
    private static let lockFilePath = "/tmp/dropcut-test-journald.lock"

    /// Makes sure a journald accepts entries on `socketPath`, starting one when the socket
    /// is missing or stale (a socket file left behind by a journald that has exited refuses
    /// connections). Waits up to `timeout` for a started journald to accept connections.
    /// Safe to call from many tests at once, in one process or several.
    public static func ensureRunning(timeout: Duration = .seconds(5)) throws {
        lock.lock()
        defer { lock.unlock() }
        let lockFile = open(lockFilePath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lockFile >= 0 else { throw Failure("cannot open \(lockFilePath): \(String(cString: strerror(errno)))") }
        defer { close(lockFile) }  // closing releases the flock
        guard flock(lockFile, LOCK_EX) == 0 else {
            throw Failure("cannot lock \(lockFilePath): \(String(cString: strerror(errno)))")
        }

        if isAcceptingEntries() { return }
        try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
        try start()
        let deadline = ContinuousClock.now + timeout
        while !isAcceptingEntries() {
            if ContinuousClock.now >= deadline {
                let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw Failure("\(executable) did not accept connections on \(socketPath) within \(timeout); its output:\n\(log)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The entries whose `field` equals `value`, from `journalctl -o json --all --no-pager
    /// FIELD=value`, polled until at least one appears or `timeout` passes (then it returns
    /// what it has, possibly nothing). Each entry maps field names to values; only values
    /// journalctl prints as JSON strings are kept (it prints binary or non-printable values
    /// as byte arrays, and repeated fields as arrays: those are left out). Multi-line values
    /// are strings. Throws a `CommandError` when journalctl keeps failing.
    public static func entries(matching field: String, value: String, timeout: Duration = .seconds(5)) throws -> [[String: String]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let result = try Command.run("journalctl", ["-o", "json", "--all", "--no-pager", since, "\(field)=\(value)"])
            let expired = ContinuousClock.now >= deadline
            if result.status == 0 {
                let entries = try parse(result.stdout)
                if !entries.isEmpty || expired { return entries }
            } else if expired {
                throw CommandError(command: ["journalctl", "-o", "json", "--all", "--no-pager", since, "\(field)=\(value)"],
                                   status: result.status, stderr: result.stderr)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Entries since this test process started (`--since=@<seconds>`, a second early): the
    /// journal outlives a test run, and an earlier run's daemon may have had the PID a
    /// test now looks for (a ready line of version 0.1.0 was once found for a 0.2.0 daemon).
    static let since: String = {
        // /proc/self/stat's 22nd field: the start, in clock ticks after boot; /proc/stat's
        // btime: the boot, in seconds since the epoch.
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"),
              let ticks = stat[stat.index(after: close)...].split(separator: " ").dropFirst(19).first.flatMap({ Double($0) }),
              let boot = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?
                  .split(separator: "\n").first(where: { $0.hasPrefix("btime ") })?.split(separator: " ").last.flatMap({ Double($0) })
        else { return "--since=@0" }
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return "--since=@\(Int(boot + ticks / max(hertz, 1)) - 1)"
    }()

    /// `entries(matching:value:timeout:)`, awaited: the polls run on a thread of their own
    /// (`OwnThread`), so the wait holds no thread of the concurrency pool.
    public static func entries(matching field: String, value: String, timeout: Duration = .seconds(5)) async throws -> [[String: String]] {
        try await OwnThread.run { try entries(matching: field, value: value, timeout: timeout) }
    }

    /// Parses journalctl's JSON output: one object per line.
    static func parse(_ output: String) throws -> [[String: String]] {
        try output.split(whereSeparator: \.isNewline).map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let fields = object as? [String: Any] else {
                throw Failure("journalctl printed a line that is not a JSON object: \(line)")
            }
            return fields.compactMapValues { $0 as? String }
        }
    }

    /// Whether something accepts datagrams on `socketPath` (connect succeeds).
    public static func isAcceptingEntries() -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// Starts journald detached from this process (see `DetachedProcess`), its output
    /// appended to `logPath`.
    private static func start() throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure("\(executable) is missing: install the systemd package")
        }
        try DetachedProcess.start(executable, [], outputPath: logPath)
    }

    /// Journald could not be started or read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
