import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts a long-running program (a daemon) that must outlive the test process.
///
/// Foundation's `Process` cannot do this on Linux: it detects that a child exited through a
/// socket the child inherits, so when the child forks a daemon that keeps the socket open,
/// `waitUntilExit()` never returns. This uses `posix_spawn` directly instead.
public enum DetachedProcess {
    /// Starts `executable` with `args` through `setsid --fork`, so it runs in a new session
    /// and is re-parented to PID 1 at once (never this process's child). It gets stdin from
    /// /dev/null, stdout and stderr appended to `outputPath`, no other descriptor of this
    /// process (so it holds no test pipe open), default signal dispositions and an empty
    /// signal mask. Returns once `setsid` has exited, without waiting for the program to be
    /// ready. Throws a `CommandError` when it cannot be started.
    public static func start(_ executable: String, _ args: [String], outputPath: String) throws {
        guard let setsid = Command.find("setsid") else {
            throw CommandError(command: ["setsid", "--fork", executable] + args, status: nil,
                               stderr: "setsid (util-linux) not found on PATH")
        }
        let argv = [setsid, "--fork", executable] + args
        func failure(_ what: String, _ code: Int32) -> CommandError {
            CommandError(command: argv, status: nil, stderr: "\(what): \(String(cString: strerror(code)))")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if rc == 0 { rc = posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644) }
        if rc == 0 { rc = posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        if rc == 0 { rc = Spawn.closeDescriptors(from: 3, in: &actions) }
        guard rc == 0 else { throw failure("posix_spawn_file_actions", rc) }

        var pid = pid_t()
        rc = Spawn.withResetSignals { attributes in
            Spawn.withCArguments(argv) { posix_spawn(&pid, setsid, &actions, &attributes, $0, environ) }
        }
        guard rc == 0 else { throw failure("posix_spawn", rc) }

        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
        guard waited == pid else { return }  // already reaped elsewhere: the caller checks readiness
        let code = Spawn.exitStatus(status)
        guard code == 0 else {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw CommandError(command: argv, status: code, stderr: output)
        }
    }
}
