import Foundation
import ServiceLifecycle
import Synchronization
import DropcutPipeline
import DropcutSupport

/// Publishes the daemon's status wherever it is read: STATUS= to systemd when its summary
/// changes, `<state_dir>/status.json` (`dropcut status`), the live board the status page's
/// events stream from (`StatusBoard`), and the worker and queue gauges of `/metrics`.
///
/// A `Service` beside the scheduler, in the one group: the scheduler posts each status it
/// makes (`post`, never waiting for a write), and this publishes the newest. A change of
/// the jobs — one starts, ends, is queued, a farm or a claim changes — is published at
/// once; a change of progress alone at most once a second, the newest then (a render
/// reporting progress many times a second does not rewrite status.json each time). When
/// the scheduler has ended (`finish`), the last status posted is published and `run`
/// returns, so the status a stopped daemon leaves says what it left.
package final class StatusPublisher: Service, Sendable {
    /// A status as the scheduler made it, with what the gauges need beside it.
    package struct Snapshot: Sendable, Equatable {
        package var status: DaemonStatus
        /// Workers busy: running, or claiming, taking over or picking.
        package var busyWorkers: Int
        /// The configured folders (a folder with nothing queued reads 0).
        package var folders: [String]

        package init(status: DaemonStatus, busyWorkers: Int, folders: [String]) {
            self.status = status
            self.busyWorkers = busyWorkers
            self.folders = folders
        }
    }

    /// When a posted status is to be published.
    package enum Due: Equatable {
        case now
        /// Only its progress changed: once `after` has passed since the last publication.
        case after(Duration)
        /// Nothing but the time it was made changed.
        case unchanged
    }

    /// How often a change of progress alone is published at most.
    package static let progressInterval: Duration = .seconds(1)

    package let board = StatusBoard()
    package let metrics: DaemonMetrics
    let notifier: SystemdNotifier
    let stateDirectory: String
    /// When the daemon started (the status says so).
    package let started = Date()

    private struct Mailbox {
        var posted: Snapshot?
        var urgent = false
        var finished = false
    }
    private struct Published {
        var summary = ""
        var status: DaemonStatus?
        var at: ContinuousClock.Instant?
    }
    private let mailbox = Mutex(Mailbox())
    private let published = Mutex(Published())
    private let wakeup = Wakeup()

    package init(stateDirectory: String, metrics: DaemonMetrics, notifier: SystemdNotifier = SystemdNotifier()) {
        self.stateDirectory = stateDirectory
        self.metrics = metrics
        self.notifier = notifier
    }

    /// Posts the newest status; `urgent` publishes it even when nothing changed (the
    /// first status, the last, a lost claim). Never blocks on I/O.
    package func post(_ snapshot: Snapshot, urgent: Bool = false) {
        mailbox.withLock { box in
            box.posted = snapshot
            box.urgent = box.urgent || urgent
        }
        wakeup.signal()
    }

    /// The scheduler has ended: the last status posted is published, then `run` returns.
    package func finish() {
        mailbox.withLock { $0.finished = true }
        wakeup.signal()
    }

    /// The status line last sent with STATUS= (READY=1 after a reload says it again).
    package var summary: String { published.withLock { $0.summary } }

    /// When `status` is to be published, after `last` was at `lastAt` (`now`).
    package static func due(_ status: DaemonStatus, after last: DaemonStatus?, at lastAt: ContinuousClock.Instant?,
                            now: ContinuousClock.Instant) -> Due {
        guard var previous = last, let lastAt else { return .now }
        previous.updated = status.updated
        if previous == status { return .unchanged }
        // The same jobs running, only their progress (and speed) moved.
        guard previous.running.map(\.job) == status.running.map(\.job) else { return .now }
        for i in previous.running.indices {
            previous.running[i].progress = status.running[i].progress
            previous.running[i].speed = status.running[i].speed
        }
        guard previous == status else { return .now }
        let since = now - lastAt
        return since >= progressInterval ? .now : .after(progressInterval - since)
    }

    /// Publishes what is posted until the scheduler has ended (`finish`), or until
    /// cancelled. Graceful shutdown alone does not end it: the scheduler still drains its
    /// jobs then, and their ends are published.
    package func run() async {
        while !Task.isCancelled {
            let (snapshot, urgent, finished) = mailbox.withLock { ($0.posted, $0.urgent, $0.finished) }
            var wait: Duration = .seconds(3600)
            if let snapshot {
                let last = published.withLock { ($0.status, $0.at) }
                let due = urgent || finished ? .now : Self.due(snapshot.status, after: last.0, at: last.1, now: .now)
                switch due {
                case .now:
                    taken(snapshot)
                    publish(snapshot)
                case .unchanged:
                    taken(snapshot)
                case let .after(delay):
                    wait = delay
                }
            }
            if finished && mailbox.withLock({ $0.posted == nil }) { return }
            await withTaskCancellationHandler {
                await wakeup.wait(timeout: wait)
            } onCancel: {
                wakeup.signal()
            }
        }
    }

    /// Clears the mailbox of `snapshot` unless a newer one came in meanwhile.
    private func taken(_ snapshot: Snapshot) {
        mailbox.withLock { box in
            guard box.posted == snapshot else { return }
            box.posted = nil
            box.urgent = false
        }
    }

    /// Sends, writes and posts `snapshot`'s status, and sets the gauges from it.
    private func publish(_ snapshot: Snapshot) {
        let status = snapshot.status
        metrics.running(snapshot.busyWorkers)
        let now = Date()
        for folder in snapshot.folders {
            let waiting = status.queued.filter { $0.folder == folder }
            let oldest = waiting.compactMap(\.since).min().map { now.timeIntervalSince($0) } ?? 0
            metrics.queue(folder: folder, depth: waiting.count, oldestWaiting: oldest)
        }
        let summary = status.summary
        let changed = published.withLock { state in
            defer { state.summary = summary }
            return state.summary != summary
        }
        if changed { notifier.status(summary) }
        try? status.write(stateDirectory: stateDirectory)
        board.post(status)
        published.withLock { state in
            state.status = status
            state.at = .now
        }
    }
}
