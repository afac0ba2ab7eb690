import Foundation
import DropcutSupport
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP for the daemon, caught by a handler installed on the first
/// line of `dropcut watch`. swift-service-lifecycle's signal sequences set SIG_IGN and
/// listen a moment later (a dispatch source registers asynchronously): a `systemctl stop`
/// in the daemon's first fraction of a second either killed it (the default action, before
/// SIG_IGN) or was lost (after it), and the daemon ran on. Here there is no such window:
/// the handler is in place from the start and only writes the signal's number to a pipe
/// (async-signal-safe); `ShutdownOnSignal` and `ConfigReloader` read it.
package final class DaemonSignals: Sendable {
    /// What a signal asks for.
    package enum Request: Sendable {
        /// SIGTERM, SIGINT: stop gracefully.
        case stop
        /// SIGHUP: reload the config.
        case reload
    }

    private let stop: (read: Int32, write: Int32)
    private let reload: (read: Int32, write: Int32)

    /// Installs the handler; once per process (the handler writes to the pipes of the last
    /// one installed).
    package static func install() throws(SystemError) -> DaemonSignals {
        let signals = try DaemonSignals()
        signalPipes = (signals.stop.write, signals.reload.write)
        for number in [SIGTERM, SIGINT, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = daemonSignalHandler
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            if sigaction(number, &action, nil) != 0 {
                throw SystemError.last("sigaction", "signal \(number)")
            }
        }
        return signals
    }

    private init() throws(SystemError) {
        stop = try Self.pipe()
        reload = try Self.pipe()
    }

    /// Never closed: the handler may write to them until the process ends.
    private static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw SystemError.last("pipe", "signal pipe") }
        // Not inherited by workers (set at once: nothing forks while the daemon starts).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // The handler must never block on a full pipe (a flood of signals is one request).
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    /// Waits for the next signal asking for `request` and returns its number, or nil once
    /// `wake(request)` is called or the task is cancelled (a group that fails cancels its
    /// services rather than shutting them down).
    package func next(_ request: Request) async -> Int32? {
        let end = request == .stop ? stop.read : reload.read
        return await withTaskCancellationHandler {
            try? await BlockingWork.run("signals") { _ -> Int32? in
                var byte: UInt8 = 0
                while true {
                    let n = read(end, &byte, 1)
                    if n == 1 { return byte == 0 ? nil : Int32(byte) }
                    if n < 0 && errno == EINTR { continue }
                    return nil
                }
            } ?? nil
        } onCancel: {
            wake(request)
        }
    }

    /// Ends a `next(request)` that is waiting, or the next one to come.
    package func wake(_ request: Request) {
        var zero: UInt8 = 0
        _ = write(request == .stop ? stop.write : reload.write, &zero, 1)
    }

    /// The signal's name, for the journal.
    package static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(number)"
        }
    }
}

/// The pipes the handler writes to; set before it is installed, never after.
nonisolated(unsafe) private var signalPipes: (stop: Int32, reload: Int32) = (-1, -1)

private func daemonSignalHandler(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(number == SIGHUP ? signalPipes.reload : signalPipes.stop, &byte, 1)
    errno = saved
}
