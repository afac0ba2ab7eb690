import Synchronization

/// What the scheduler's loop sleeps on, and whether it is to end: woken before its next
/// poll by anything that happens (a job ends, inotify sees a file, a reload — `signal`),
/// asked to stop (SIGTERM, `requestStop`), and told that its stop timeout ran out while
/// jobs still ran (`timeOut`). Atomics: signalled from any thread.
final class LoopControl: Sendable {
    private let wakeup = Wakeup()
    private let stopRequested = Atomic<Bool>(false)
    private let timedOut = Atomic<Bool>(false)

    /// Whether the loop is to stop: it claims nothing more, and lets running jobs finish.
    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }
    /// Whether `stop_timeout` ran out while stopping: running jobs are cancelled.
    var hasTimedOut: Bool { timedOut.load(ordering: .acquiring) }

    /// Wakes the loop's current or next wait.
    func signal() { wakeup.signal() }

    /// Returns after `timeout` or at the first `signal`.
    func wait(timeout: Duration) async { await wakeup.wait(timeout: timeout) }

    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wakeup.signal()
    }

    func timeOut() {
        timedOut.store(true, ordering: .releasing)
        wakeup.signal()
    }
}
