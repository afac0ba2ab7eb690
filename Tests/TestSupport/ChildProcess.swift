import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child program started with `posix_spawn` and reaped by its pid, outside Foundation's
/// `Process`. For programs that close the descriptors they inherit, such as
/// `systemd-socket-activate`: Foundation learns that a child exited when a socket the child
/// inherited closes, and then waits for it with a blocking `waitpid` on the one thread that
/// reaps every `Process` — so while such a program lived, no other test's `Process` was
/// reaped, and tests waiting for theirs on the concurrency pool's threads deadlocked the run.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let status = Mutex<Int32?>(nil)

    /// Starts `argv` (argv[0] a path) with stdin from /dev/null and stdout and stderr
    /// appended to `output`, no other descriptor of this process, default signals.
    public init(_ argv: [String], output: String, environment: [String: String]) throws {
        pid = try Spawn.child(argv, output: output, environment: environment)
    }

    /// Whether it still runs (reaping it once it has ended).
    public var isRunning: Bool { exitStatus == nil }

    /// Its exit status (128 + N when killed by signal N) once it has ended, else nil.
    public var exitStatus: Int32? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = Spawn.exitStatus(raw) }
            }
            return status
        }
    }

    public func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    deinit {
        if status.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            _ = Spawn.wait(pid)
        }
    }
}
