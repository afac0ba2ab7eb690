import Foundation
import Logging
import DropcutPipeline
import ServiceLifecycle
import DropcutSupport

/// The daemon's heart and dispatcher, a swift-service-lifecycle `Service`: recovers
/// unfinished jobs, says READY=1, then polls the inboxes, claims settled clips oldest
/// first while a worker is free (from its `WorkSource`), runs each job, retries transient
/// failures with backoff, pings the watchdog (WATCHDOG=1), and posts each status to its
/// `StatusPublisher` (STATUS=, status.json, the live board: a service of its own, put
/// before it in the group). What it decides from lives in parts each tested alone
/// (`JobTable`, `Inboxes`, `FarmView`, `LoopControl`). On graceful shutdown
/// (SIGTERM) it claims nothing more, lets running jobs finish within `stop_timeout`, then
/// cancels them (their inputs stay claimed and are redone at the next start).
///
/// With `once`, it returns when nothing is left to do: nothing running, waiting, settled
/// or still arriving.
///
/// Its claims' leases are renewed by a `LeaseRenewer` running beside it (put it first in
/// the `ServiceGroup`); without one, other hosts sharing an inbox would take its claims over.
public actor Scheduler: Service {
    var config: DaemonConfig
    let once: Bool
    let logger: Logger
    let runner: JobRunner
    /// The claims this daemon holds and whoever decides them (`ClaimCoordination`), where
    /// the work comes from (`WorkSource`) and the coordinator that assigns it, if any:
    /// made from the config by `ClaimCoordinations.make`.
    nonisolated let coordination: ClaimCoordinations.Made
    /// Where each status goes (STATUS=, status.json, the live board, the gauges): a
    /// service of its own in the group, posted to at every pass.
    package nonisolated let publisher: StatusPublisher
    let loop = LoopControl()
    var inboxes = Inboxes()
    var jobs = JobTable()
    var farm = FarmView()
    var lock: StateFolderLock?
    var tally = RunTally()

    /// `identity` is written into the leases of this daemon's claims (default: this host,
    /// `HostIdentity.current()`).
    public init(config: DaemonConfig, once: Bool = false, identity: HostIdentity? = nil, logger: Logger) {
        self.config = config
        self.once = once
        self.logger = logger
        let owner = identity ?? (try? HostIdentity.current())
            ?? HostIdentity(host: "unknown", machineID: "unknown", bootID: "unknown", pid: getpid())
        coordination = ClaimCoordinations.make(config, owner: owner, logger: logger)
        let metrics = DaemonMetrics(version: DropcutVersion.current, workers: config.workers)
        publisher = StatusPublisher(stateDirectory: config.stateDirectory, metrics: metrics)
        var runner = JobRunner(store: JobStore(stateDirectory: config.stateDirectory), logger: logger,
                               keeper: coordination.keeper, metrics: metrics)
        // Without webhooks nothing of them exists: no folder, no thread, no connection.
        if !config.webhooks.isEmpty {
            runner.webhooks = WebhookOutbox(stateDirectory: config.stateDirectory, endpoints: config.webhooks, host: owner.host)
        }
        self.runner = runner
    }

    /// The claims this daemon holds (renewed by `LeaseRenewer`).
    package nonisolated var keeper: any ClaimCoordination { coordination.keeper }
    /// Where the folders' work comes from: hosts racing for each clip on the share, or a
    /// coordinator assigning it.
    nonisolated var work: any WorkSource { coordination.work }
    /// The coordinator that assigns the work, where there is one; nil on a share.
    nonisolated var assignment: (any ClaimAssignment)? { coordination.assignment }
    /// What `/metrics` serves (counted whether or not anything serves it).
    package nonisolated var metrics: DaemonMetrics { publisher.metrics }
    /// Each status as it is published, for the listener's live events.
    package nonisolated var board: StatusBoard { publisher.board }
    var store: JobStore { runner.store }
    var notifier: SystemdNotifier { publisher.notifier }

    /// Jobs that failed for good in this run (`watch --once` exits 1 when there are any).
    public var failures: Int { tally.failures }
    /// Jobs finished in this run.
    public var completed: Int { tally.completed }

    /// The outbox the jobs write their webhook events to (`WebhookDelivery` sends them);
    /// nil when the config has no webhooks.
    package nonisolated var webhooks: WebhookOutbox? { runner.webhooks }

    // MARK: Service

    public func run() async throws {
        // The publisher publishes the last status posted, then ends, however this ends.
        defer { publisher.finish() }
        try prepare()
        try recover()
        let first = publish(urgent: true)
        notifier.ready(status: first.summary)
        logger.notice("dropcut ready: version \(DropcutVersion.current), watching \(config.folders.map(\.inbox).joined(separator: ", "))",
                      metadata: ["MESSAGE_ID": "\(MessageID.daemonReady.rawValue)", "DROPCUT_VERSION": "\(DropcutVersion.current)"])
        let loop = self.loop, notifier = self.notifier
        inboxes.startWatching { loop.signal() }
        defer { inboxes.stopWatching() }
        // WATCHDOG=1 from a thread of its own while this loop goes round (`WatchdogPinger`),
        // besides the loop's own pings: a busy actor no longer makes them late.
        let pinger = WatchdogPinger(notifier: notifier)
        pinger?.start()
        defer { pinger?.stop() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                while !loop.isStopping {
                    if notifier.watchdogInterval != nil { notifier.watchdog() }
                    pinger?.beat()
                    dispatch(into: &group)
                    if once && jobs.isEmpty && jobs.queued.isEmpty && inboxes.arriving == 0 { break }
                    await loop.wait(timeout: nextWait())
                }
                guard loop.isStopping else { return }
                notifier.stopping()
                logger.notice("stopping: \(jobs.busyWorkers) job(s) running, waiting up to \(config.stopTimeout)")
                let bound = config.stopTimeout
                group.addTask {
                    try? await Task.sleep(for: bound)
                    loop.timeOut()
                }
                while jobs.busyWorkers > 0 && !loop.hasTimedOut {
                    if notifier.watchdogInterval != nil { notifier.watchdog() }
                    pinger?.beat()
                    await loop.wait(timeout: .seconds(1))
                }
                if jobs.busyWorkers > 0 {
                    logger.warning("stop timeout reached: cancelling \(jobs.busyWorkers) job(s); their clips stay claimed and are redone at the next start")
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            loop.requestStop()
        }
        publish(urgent: true)
    }

    /// Asks the loop to stop as on SIGTERM (for embedding without a ServiceGroup).
    package nonisolated func requestStop() {
        loop.requestStop()
    }

    /// Takes a new config (SIGHUP): new folders start being watched, removed ones stop;
    /// running jobs finish with the config they started with. Keys that cannot change
    /// while the daemon runs (`ReloadRefusal`) keep their value; they are returned, for
    /// the reload's message, and the rest is applied.
    @discardableResult
    package func apply(_ new: DaemonConfig) throws(SystemError) -> [ReloadRefusal] {
        let refused = ReloadRefusal.refusals(from: config, to: new)
        for folder in new.folders { try prepare(folder) }
        inboxes.configure(new.folders, settle: new.settle, leaseTimeout: new.leaseTimeout)
        config.folders = new.folders
        config.pollInterval = new.pollInterval
        config.settle = new.settle
        config.workers = new.workers
        metrics.configuredWorkers(new.workers)
        config.stopTimeout = new.stopTimeout
        config.retryDelay = new.retryDelay
        config.leaseTimeout = new.leaseTimeout
        assignment?.leaseTimeoutChanged(to: new.leaseTimeout)
        config.limits = new.limits
        loop.signal()
        return refused
    }

    /// The status line (as sent with STATUS=).
    package nonisolated var summary: String { publisher.summary }

    /// How often `LeaseRenewer` renews the leases (a third of `lease_timeout`).
    package var leaseRenewal: Duration { config.leaseRenewal }

    // MARK: The loop

    /// One pass of the loop: starts due retries, then lists every inbox and claims settled
    /// clips while workers are free.
    func dispatch(into group: inout DiscardingTaskGroup) {
        var free = config.workers - jobs.busyWorkers
        startDueRetries(free: &free, into: &group)
        jobs.queued = jobs.waiting
        inboxes.arriving = 0
        if let assignment { refreshFarm(of: assignment, into: &group) }
        for folder in config.folders {
            guard let settled = scan(folder) else { continue }
            work.dispatch(folder, settled: settled, free: &free, scheduler: self, into: &group)
        }
        publish()
    }

    /// How long to sleep: until the next poll, the next watchdog ping, the next retry, or
    /// the moment an arriving file will have settled (inotify may wake it sooner).
    func nextWait() -> Duration {
        var wait = config.pollInterval
        if let watchdog = notifier.watchdogInterval { wait = min(wait, watchdog) }
        let now = ContinuousClock.now
        if let due = jobs.soonestDue { wait = min(wait, max(due - now, .milliseconds(10))) }
        if let due = inboxes.nextSettle { wait = min(wait, max(due - now, .zero) + .milliseconds(10)) }
        return wait
    }

    /// Posts the status as it is now to the publisher (`urgent`: published even when
    /// nothing changed), and returns it.
    @discardableResult
    func publish(urgent: Bool = false) -> DaemonStatus {
        var status = DaemonStatus(pid: getpid(), started: publisher.started, updated: Date(), config: config.path,
                                  running: jobs.running(at: .now), queued: jobs.queued, unavailable: inboxes.unavailable)
        status.claims = claimStatuses()
        status.leaseTimeout = config.leaseTimeout.seconds
        status.host = keeper.owner
        status.farm = farm.farm
        status.version = DropcutVersion.current
        publisher.post(.init(status: status, busyWorkers: jobs.busyWorkers, folders: config.folders.map(\.name)), urgent: urgent)
        return status
    }
}
