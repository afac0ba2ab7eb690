import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `posix_spawn` pieces `PeakMemory` and `DetachedProcess` share.
enum Spawn {
    /// Runs `body` with spawn attributes that give the child default signal dispositions
    /// and an empty signal mask: test threads block most signals and may ignore SIGPIPE.
    static func withResetSignals<R>(_ body: (inout posix_spawnattr_t) throws -> R) rethrows -> R {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        return try body(&attributes)
    }

    /// `argv` as the NULL-terminated C array `posix_spawn` takes, for the time of `body`.
    static func withCArguments<R>(_ argv: [String], _ body: ([UnsafeMutablePointer<CChar>?]) throws -> R) rethrows -> R {
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        return try body(arguments)
    }

    /// A wait status as an exit status: the code, or 128 + N when killed by signal N.
    static func exitStatus(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Adds close actions for every descriptor ≥ `lowest`: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+, declared only under
    /// _GNU_SOURCE so Swift cannot see it: looked up with dlsym), else one close per
    /// descriptor open now, from /proc/self/fd.
    static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Int32 {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            return unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd >= lowest {
            let rc = posix_spawn_file_actions_addclose(&actions, fd)
            if rc != 0 { return rc }
        }
        return 0
    }

    /// Starts `argv` (argv[0] a path) as a child of this process, with stdin from
    /// /dev/null, stdout and stderr appended to `output`, no other descriptor of this process
    /// (a test pipe held open by a program that forks into the background would keep
    /// whoever reads it waiting: Foundation's `Process` does), default signals. The caller
    /// reaps it with waitpid.
    static func child(_ argv: [String], output: String, environment: [String: String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if rc == 0 { rc = posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644) }
        if rc == 0 { rc = posix_spawn_file_actions_adddup2(&actions, 1, 2) }
        if rc == 0 { rc = closeDescriptors(from: 3, in: &actions) }
        guard rc == 0 else { throw CommandError(command: argv, status: nil, stderr: "posix_spawn_file_actions: \(String(cString: strerror(rc)))") }
        var pid = pid_t()
        rc = withResetSignals { attributes in
            withCArguments(argv) { arguments in
                if let environment {
                    return withCArguments(environment.map { "\($0.key)=\($0.value)" }) { posix_spawn(&pid, argv[0], &actions, &attributes, arguments, $0) }
                }
                return posix_spawn(&pid, argv[0], &actions, &attributes, arguments, environ)
            }
        }
        guard rc == 0 else { throw CommandError(command: argv, status: nil, stderr: "posix_spawn: \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Waits for the child `pid` to exit; its exit status (128 + N for signal N).
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
        return waited == pid ? exitStatus(status) : -1
    }
}
