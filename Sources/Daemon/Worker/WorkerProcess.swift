internal import CDropcutLinux
import Foundation
import DropcutSupport

/// One job's worker: a child process running `dropcut worker` (the same binary), which
/// parses, probes and renders the job the daemon hands it on its standard input. Whatever
/// an input does to it — a crash in libavcodec, a Swift trap, memory exhausted, a hang —
/// ends that process only. The daemon reads its events (fd 3) and the tail of its stderr,
/// stops it when it overruns its wall-clock limit or the job is cancelled, and reaps it.
///
/// Owns the child and the read ends of its pipes: `deinit` kills a child still running
/// and reaps it, so no worker outlives its supervision.
final class WorkerProcess {
    let pid: pid_t
    let started = ContinuousClock.now
    private var events: Int32
    private var errors: Int32
    private var reaped = false

    /// The descriptor a worker writes its events to.
    static let eventDescriptor: Int32 = 3
    /// How much of a worker's stderr is kept: its first lines say why it crashed.
    static let stderrBytes = 8192

    /// Starts `executable worker` with the request on its stdin, limits applied by the
    /// worker before it reads anything of the job.
    init(executable: String, request: WorkerRequest) throws(SystemError) {
        // A worker that dies before reading its request must not kill the daemon with
        // SIGPIPE (workers get every signal back to its default, SIG_IGN included).
        signal(SIGPIPE, SIG_IGN)
        let input = try Self.pipe(executable), eventPipe = try Self.pipe(executable), errorPipe = try Self.pipe(executable)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
            for fd in [input.read, eventPipe.write, errorPipe.write] { close(fd) }
        }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorPipe.write, 2)
        posix_spawn_file_actions_adddup2(&actions, eventPipe.write, Self.eventDescriptor)
        // Nothing else of the daemon's: its files are O_CLOEXEC, but a worker must not hold
        // the state folder's lock or an inotify descriptor even if something forgot. (Done
        // here, before the worker runs: closing them from inside the worker closed
        // libdispatch's epoll descriptor under its feet.)
        posix_spawn_file_actions_addclosefrom_np(&actions, Self.eventDescriptor + 1)
        // Every signal at its default and none blocked (the daemon ignores or blocks some
        // for its own handlers); its own process group, so a Ctrl-C at a terminal running
        // `watch --once` reaches the daemon, which stops its workers itself.
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        var child: pid_t = 0
        let arguments = ["dropcut", "worker"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // The daemon's environment, without Swift's crash backtracer: a worker that faults
        // dies at once by its signal (the backtracer would spawn a helper and take seconds,
        // and a SIGSEGV sent by kill(2) would return from its handler and carry on); a
        // trap's "Fatal error" message still reaches stderr.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        let result = posix_spawn(&child, executable, &actions, &attributes, &argv, &envp)
        guard result == 0 else {
            for fd in [input.write, eventPipe.read, errorPipe.read] { close(fd) }
            throw SystemError(errno: result, function: "posix_spawn", path: executable)
        }
        pid = child
        events = eventPipe.read
        errors = errorPipe.read
        // The request is a few KB, far below a pipe's buffer: this write does not block
        // (and fails with EPIPE, not a signal, if the worker is already gone).
        var data = (try? JSONEncoder().encode(request)) ?? Data()
        data.append(0x0A)
        _ = data.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
        close(input.write)
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        if events >= 0 { close(events) }
        if errors >= 0 { close(errors) }
    }

    private static func pipe(_ path: String) throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        try sys("pipe2", path) { pipe2(&fds, O_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Reads the worker's events until it ends, handing each to `handle` (on this thread),
    /// stops it when it runs past `limits.timeout(forDuration:)` (the duration from its
    /// `rendering` event; the minimum until then) or `cancellation` is set, and reaps it.
    /// Blocks: run it with `BlockingWork`.
    func supervise(limits: WorkerLimits, cancellation: Cancellation, handle: (WorkerEvent) -> Void) -> WorkerExit {
        var lineBuffer: [UInt8] = [], tail: [UInt8] = []
        var duration: Double?
        var outcome: WorkerEvent?
        var stoppedBy: WorkerExit.Stop?
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while events >= 0 || errors >= 0 {
            let elapsed = ContinuousClock.now - started
            let limit = limits.timeout(forDuration: duration)
            if stoppedBy == nil {
                if cancellation.isCancelled {
                    stoppedBy = .cancelled
                } else if elapsed >= limit {
                    stoppedBy = .timedOut(after: elapsed, limit: limit)
                }
                // SIGKILL: a worker stopped for overrunning may be stuck anywhere, even
                // SIGSTOPped; the daemon removes its partial output.
                if stoppedBy != nil { kill(pid, SIGKILL) }
            }
            var fds = [pollfd(fd: events, events: Int16(POLLIN), revents: 0), pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            let wait = stoppedBy == nil ? Int(min(200, max(1, (limit - elapsed).seconds * 1000))) : 200
            let ready = poll(&fds, 2, Int32(wait))
            if ready <= 0 { continue }   // timeout or EINTR
            if fds[0].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(events, $0.baseAddress, $0.count) }
                if count > 0 {
                    lineBuffer.append(contentsOf: chunk[0..<count])
                    while let newline = lineBuffer.firstIndex(of: 0x0A) {
                        if let event = WorkerEvent(line: lineBuffer[..<newline]) {
                            switch event {
                            case let .rendering(_, _, seconds), let .renderingSet(_, _, seconds): duration = seconds
                            case .finished, .failed, .thumbnail: outcome = event
                            case .progress, .described: break
                            }
                            handle(event)
                        }
                        lineBuffer.removeSubrange(...newline)
                    }
                    // A worker writing endless garbage without a newline is broken: its
                    // events are dropped, it is left to its limits.
                    if lineBuffer.count > WorkerEvent.maximumLineBytes { lineBuffer.removeAll() }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(events)
                    events = -1
                }
            }
            if fds[1].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
                if count > 0 {
                    // The head: a trap's "Fatal error: …" comes first, its backtrace after.
                    tail.append(contentsOf: chunk[0..<min(count, max(0, Self.stderrBytes - tail.count))])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(errors)
                    errors = -1
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        // WIFEXITED / WTERMSIG, which Swift does not import (macros).
        let signal = status & 0x7F
        return WorkerExit(status: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
                    stoppedBy: stoppedBy, elapsed: ContinuousClock.now - started, outcome: outcome,
                    wasRendering: duration != nil, stderr: String(decoding: tail, as: UTF8.self))
    }
}
