import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs one program and reports the peak resident set size of that child alone
/// (`wait4`'s `rusage.ru_maxrss`), which `Process` cannot give: `getrusage(RUSAGE_CHILDREN)`
/// would mix in every other child the test process has reaped.
public enum PeakMemory {
    public struct Result: Sendable {
        /// Exit status; 128 + N when killed by signal N.
        public let status: Int32
        /// Peak resident set size in KiB (Linux reports `ru_maxrss` in kilobytes).
        public let peakKiB: Int
        public let stdout: String
        public let stderr: String
        /// Wall time from spawn to exit.
        public let seconds: Double

        public var peakMiB: Double { Double(peakKiB) / 1024 }
    }

    /// Spawns `executable` (a path, or a name looked up on `PATH`) with `args`, stdin from
    /// /dev/null and stdout/stderr captured through temporary files (no pipe to fill up),
    /// waits for it with `wait4` and returns its status, peak RSS and output. Throws a
    /// `CommandError` when it cannot be started.
    public static func run(_ executable: String, _ args: [String]) throws -> Result {
        guard let path = Command.find(executable) else {
            throw CommandError(command: [executable] + args, status: nil, stderr: "\(executable): not found")
        }
        let argv = [path] + args
        let base = NSTemporaryDirectory() + "dropcut-rss-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if rc == 0 { rc = posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        if rc == 0 { rc = posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        guard rc == 0 else {
            throw CommandError(command: argv, status: nil, stderr: "posix_spawn_file_actions: \(String(cString: strerror(rc)))")
        }
        let started = ContinuousClock.now
        var pid = pid_t()
        rc = Spawn.withResetSignals { attributes in
            Spawn.withCArguments(argv) { posix_spawn(&pid, path, &actions, &attributes, $0, environ) }
        }
        guard rc == 0 else {
            throw CommandError(command: argv, status: nil, stderr: "posix_spawn: \(String(cString: strerror(rc)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        var waited: pid_t
        repeat { waited = wait4(pid, &status, 0, &usage) } while waited == -1 && errno == EINTR
        guard waited == pid else {
            throw CommandError(command: argv, status: nil, stderr: "wait4: \(String(cString: strerror(errno)))")
        }
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        let code = Spawn.exitStatus(status)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(status: code, peakKiB: Int(usage.ru_maxrss), stdout: out, stderr: err, seconds: elapsed)
    }
}
