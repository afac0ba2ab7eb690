import Foundation
import Synchronization

/// Sends systemd's `WATCHDOG=1` from a thread of its own, every half of `WatchdogSec`,
/// for as long as the scheduler's loop shows it goes round (`beat`): a ping no longer
/// waits for the loop's turn on its actor and on the concurrency pool (a busy actor, or a
/// pool whose threads a loaded machine keeps busy, delayed the loop's own pings past the
/// watchdog's interval), yet a loop that stops going round for a whole `WatchdogSec`
/// stops the pings, and systemd restarts the hung daemon as before.
package final class WatchdogPinger: Sendable {
    private let notifier: SystemdNotifier
    /// Half the watchdog interval (`SystemdNotifier.watchdogInterval`): how often it pings.
    private let interval: Duration
    /// When the loop last went round (this host's monotonic clock), and whether to stop.
    private let state: Mutex<(beat: ContinuousClock.Instant, stopped: Bool)>

    /// A pinger for `notifier`'s watchdog; nil when systemd asked for none.
    package init?(notifier: SystemdNotifier) {
        guard let interval = notifier.watchdogInterval else { return nil }
        self.notifier = notifier
        self.interval = interval
        state = Mutex((ContinuousClock.now, false))
    }

    /// How long the loop may go without a beat before the pings stop: `WatchdogSec`, the
    /// time systemd itself gives a silent service.
    var silence: Duration { interval * 2 }

    /// The loop went round.
    package func beat() {
        state.withLock { $0.beat = .now }
    }

    /// Starts pinging (once).
    package func start() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: interval.seconds)
                let (beat, stopped) = state.withLock { ($0.beat, $0.stopped) }
                if stopped { return }
                if ContinuousClock.now - beat <= silence { notifier.watchdog() }
            }
        }
        thread.name = "dropcut-watchdog"
        thread.start()
    }

    /// Stops pinging (at the next tick: no ping is sent after it).
    package func stop() {
        state.withLock { $0.stopped = true }
    }
}
