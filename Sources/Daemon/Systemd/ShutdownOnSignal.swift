import Logging
import ServiceLifecycle

/// The daemon's graceful stop on SIGTERM or SIGINT (`systemctl stop`, Ctrl-C), a `Service`
/// in the group: it ends when one arrives — whenever it arrived, the daemon's first line
/// included (`DaemonSignals`) — and run with `successTerminationBehavior:
/// .gracefullyShutdownGroup` that shuts the group down as its own signal handling did.
package struct ShutdownOnSignal: Service {
    let signals: DaemonSignals
    let logger: Logger

    package init(signals: DaemonSignals, logger: Logger) {
        self.signals = signals
        self.logger = logger
    }

    package func run() async throws {
        let signals = self.signals
        let number = await withGracefulShutdownHandler {
            await signals.next(.stop)
        } onGracefulShutdown: {
            signals.wake(.stop)
        }
        if let number { logger.notice("\(DaemonSignals.name(number)): stopping gracefully") }
    }
}
