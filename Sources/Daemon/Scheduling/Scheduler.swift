import Foundation
import Logging
import DropcutPipeline
import ServiceLifecycle
import DropcutSupport

/// The daemon's heart, a swift-service-lifecycle `Service`: recovers unfinished jobs,
/// says READY=1, then polls the inboxes, claims settled clips oldest first while a worker
/// is free, runs each job, retries transient failures with backoff, and keeps systemd
/// (STATUS=, WATCHDOG=1) and `<state_dir>/status.json` up to date. On graceful shutdown
/// (SIGTERM) it claims nothing more, lets running jobs finish within `stop_timeout`, then
/// cancels them (their inputs stay claimed and are redone at the next start).
///
/// With `once`, it returns when nothing is left to do: nothing running, waiting, settled
/// or still arriving.
///
/// Its claims' leases are renewed by a `LeaseRenewer` running beside it (put it first in
/// the `ServiceGroup`); without one, other hosts sharing an inbox would take its claims over.
public actor Scheduler: Service {
    /// A job this process holds. Queued clips are still in the inbox (not claimed), so
    /// another dropcut sharing the inbox can take them.
    enum Phase {
        /// Being claimed (renamed into the claimed folder off the actor); keyed by
        /// `claimKey` until the claim's record exists. It holds a worker.
        case claiming
        case running(JobRecord, progress: Double, started: Date)
        /// A transient failure waiting for its backoff, or a recovered job, due at `until`.
        case waiting(JobRecord, FolderConfig, until: ContinuousClock.Instant)
    }

    var config: DaemonConfig
    let once: Bool
    let logger: Logger
    let store: JobStore
    let runner: JobRunner
    /// The claims this daemon holds, and whoever decides them (`ClaimCoordination`, made
    /// from the config by `ClaimCoordinations.make`). Renewed by `LeaseRenewer`.
    package nonisolated let keeper: any ClaimCoordination
    /// The farm as last read from the coordinator (`refreshFarm`), when and whether a read
    /// is in flight.
    var farm: DaemonStatus.Farm?
    var farmRead = ContinuousClock.now - .seconds(3600)
    var farmReading = false
    /// The hosts the farm gauges have named (each reads 0 once it holds nothing).
    var farmHosts: Set<String> = []
    /// Whether the coordination is ready (`ClaimCoordination.prepare`: a coordinator's
    /// schema known to be this dropcut's, at start or at the first pick after a start
    /// without it).
    var coordinatorReady = false
    /// With `once` and claims assigned: the clips (by folder and name, NUL between) a pick left to
    /// others or could not claim. A run that asked again for them at every pass would never
    /// end: each pick holds its workers' slots while it is in flight.
    var passedOver: Set<String> = []
    /// What `/metrics` serves (counted whether or not anything serves it).
    package nonisolated let metrics: DaemonMetrics
    /// Each status as it is published, for the listener's live events.
    package nonisolated let board = StatusBoard()
    let notifier = SystemdNotifier()
    let wakeup = Wakeup()
    let stop = StopRequest()
    var scanners: [String: InboxScanner] = [:]
    /// The claims in each inbox's claimed folder, every host's, by folder name.
    var observers: [String: ClaimObserver] = [:]
    var watcher: InboxWatcher?
    var jobs: [String: Phase] = [:]
    /// Running jobs whose worker is writing its output: the output's duration and since
    /// when (for the speed `status` and the status page show).
    var renderings: [String: (duration: Double, since: ContinuousClock.Instant)] = [:]
    /// Clips whose claim failed (by claim key), not claimed again before the instant, with
    /// the error last logged for them (logged again only when it changes).
    var claimBlocked: [String: (until: ContinuousClock.Instant, error: String)] = [:]
    /// Jobs waiting for a folder that is away (an unmounted share), with the reason last
    /// logged for them.
    var waitingFor: [String: String] = [:]
    var queued: [DaemonStatus.Queued] = []
    var arriving = 0
    var unavailable: [String: String] = [:]
    let started = Date()
    var lastSummary = ""
    var lastStatus: DaemonStatus?
    var lastStatusWrite = ContinuousClock.now
    var lockDescriptor: Int32 = -1
    var stopTimedOut = false
    /// Jobs that failed for good in this run (`watch --once` exits 1 when there are any).
    public internal(set) var failures = 0
    /// Jobs finished in this run.
    public internal(set) var completed = 0

    /// `identity` is written into the leases of this daemon's claims (default: this host,
    /// `HostIdentity.current()`).
    public init(config: DaemonConfig, once: Bool = false, identity: HostIdentity? = nil, logger: Logger) {
        self.config = config
        self.once = once
        self.logger = logger
        self.store = JobStore(stateDirectory: config.stateDirectory)
        let owner = identity ?? (try? HostIdentity.current())
            ?? HostIdentity(host: "unknown", machineID: "unknown", bootID: "unknown", pid: getpid())
        self.keeper = ClaimCoordinations.make(config, owner: owner, logger: logger)
        self.metrics = DaemonMetrics(version: DropcutVersion.current, workers: config.workers)
        var runner = JobRunner(store: store, logger: logger, keeper: keeper, metrics: metrics)
        // Without webhooks nothing of them exists: no folder, no thread, no connection.
        if !config.webhooks.isEmpty {
            runner.webhooks = WebhookOutbox(stateDirectory: config.stateDirectory, endpoints: config.webhooks, host: owner.host)
        }
        self.runner = runner
    }

    /// The outbox the jobs write their webhook events to (`WebhookDelivery` sends them);
    /// nil when the config has no webhooks.
    package nonisolated var webhooks: WebhookOutbox? { runner.webhooks }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    // MARK: Service

    public func run() async throws {
        try prepare()
        try recover()
        publish(force: true)
        notifier.ready(status: lastSummary)
        logger.notice("dropcut ready: version \(DropcutVersion.current), watching \(config.folders.map(\.inbox).joined(separator: ", "))",
                      metadata: ["MESSAGE_ID": "\(MessageID.daemonReady.rawValue)", "DROPCUT_VERSION": "\(DropcutVersion.current)"])
        let stop = self.stop, wakeup = self.wakeup, notifier = self.notifier
        watcher = InboxWatcher { wakeup.signal() }
        watcher?.watch(config.folders.map(\.inbox))
        defer { watcher?.stop() }
        // WATCHDOG=1 from a thread of its own while this loop goes round (`WatchdogPinger`),
        // besides the loop's own pings: a busy actor no longer makes them late.
        let pinger = WatchdogPinger(notifier: notifier)
        pinger?.start()
        defer { pinger?.stop() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                while !stop.isRequested {
                    if notifier.watchdogInterval != nil { notifier.watchdog() }
                    pinger?.beat()
                    dispatch(into: &group)
                    if once && jobs.isEmpty && queued.isEmpty && arriving == 0 { break }
                    await wakeup.wait(timeout: nextWait())
                }
                guard stop.isRequested else { return }
                notifier.stopping()
                logger.notice("stopping: \(runningCount) job(s) running, waiting up to \(config.stopTimeout)")
                let bound = config.stopTimeout
                group.addTask { [weak self] in
                    try? await Task.sleep(for: bound)
                    await self?.timeOutStop()
                }
                while runningCount > 0 && !stopTimedOut {
                    if notifier.watchdogInterval != nil { notifier.watchdog() }
                    pinger?.beat()
                    await wakeup.wait(timeout: .seconds(1))
                }
                if runningCount > 0 {
                    logger.warning("stop timeout reached: cancelling \(runningCount) job(s); their clips stay claimed and are redone at the next start")
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            stop.request()
            wakeup.signal()
        }
        publish(force: true)
    }

    func timeOutStop() {
        stopTimedOut = true
        wakeup.signal()
    }

    /// Asks the loop to stop as on SIGTERM (for embedding without a ServiceGroup).
    package nonisolated func requestStop() {
        stop.request()
        wakeup.signal()
    }

    /// Takes a new config (SIGHUP): new folders start being watched, removed ones stop;
    /// running jobs finish with the config they started with. Keys that cannot change
    /// while the daemon runs (`ReloadRefusal`) keep their value; they are returned, for
    /// the reload's message, and the rest is applied.
    @discardableResult
    package func apply(_ new: DaemonConfig) throws(SystemError) -> [ReloadRefusal] {
        let refused = ReloadRefusal.refusals(from: config, to: new)
        for folder in new.folders { try prepare(folder) }
        var kept: [String: InboxScanner] = [:]
        var observing: [String: ClaimObserver] = [:]
        for folder in new.folders {
            if var scanner = scanners[folder.name], scanner.inbox == folder.inbox {
                scanner.settle = new.settle
                kept[folder.name] = scanner
            } else {
                kept[folder.name] = InboxScanner(inbox: folder.inbox, settle: new.settle)
            }
            if var observer = observers[folder.name], observer.claimedDirectory == folder.claimedDirectory {
                observer.leaseTimeout = new.leaseTimeout
                observing[folder.name] = observer
            } else {
                observing[folder.name] = ClaimObserver(claimedDirectory: folder.claimedDirectory, leaseTimeout: new.leaseTimeout)
            }
        }
        scanners = kept
        observers = observing
        watcher?.watch(new.folders.map(\.inbox))
        config.folders = new.folders
        config.pollInterval = new.pollInterval
        config.settle = new.settle
        config.workers = new.workers
        metrics.configuredWorkers(new.workers)
        config.stopTimeout = new.stopTimeout
        config.retryDelay = new.retryDelay
        config.leaseTimeout = new.leaseTimeout
        keeper.leaseTimeoutChanged(to: new.leaseTimeout)
        config.limits = new.limits
        wakeup.signal()
        return refused
    }

    /// The status line (as sent with STATUS=).
    package var summary: String { lastSummary }

    /// How often `LeaseRenewer` renews the leases (a third of `lease_timeout`).
    package var leaseRenewal: Duration { config.leaseRenewal }

    // MARK: The loop

    /// Jobs holding a worker: running, or being claimed.
    var runningCount: Int {
        jobs.values.reduce(0) { count, phase in
            switch phase {
            case .running, .claiming: return count + 1
            case .waiting: return count
            }
        }
    }

    /// One pass of the loop: starts due retries, then lists every inbox and claims settled
    /// clips while workers are free.
    func dispatch(into group: inout DiscardingTaskGroup) {
        var free = config.workers - runningCount
        startDueRetries(free: &free, into: &group)
        queued = jobs.values.compactMap { phase in
            if case let .waiting(record, _, _) = phase {
                return DaemonStatus.Queued(folder: record.folder, input: record.input, retryAt: record.retryAt, since: record.updatedAt)
            }
            return nil
        }
        arriving = 0
        if let coordinator = keeper.farmCoordinator { refreshFarm(of: coordinator, into: &group) }
        for folder in config.folders {
            guard let settled = scan(folder) else { continue }
            if keeper.assignsClaims {
                dispatchAssigned(folder, settled: settled, free: &free, into: &group)
                continue
            }
            // Expired claims before new clips: they are older work than anything still in
            // the inbox. (The inbox is listed first: an inbox that is away has no claims to
            // judge either.)
            observeClaims(folder, free: &free, into: &group)
            // Forget failed claims of clips no longer there (removed, or claimed elsewhere).
            let listed = Set(settled.map { claimKey(folder.name, $0.name) })
            let prefix = claimKey(folder.name, "")
            claimBlocked = claimBlocked.filter { !$0.key.hasPrefix(prefix) || listed.contains($0.key) }
            for clip in settled {
                let key = claimKey(folder.name, clip.name)
                if jobs[key] != nil { continue }   // its claim is in flight
                if let blocked = claimBlocked[key] {
                    // A claim that failed is tried again at the next poll; with --once, not
                    // at all (it counted as a failure, and the run must end).
                    if once || blocked.until > .now { continue }
                }
                if free > 0 && !stop.isRequested {
                    startClaim(clip, folder, in: &group)
                    free -= 1
                } else {
                    queued.append(DaemonStatus.Queued(folder: folder.name, input: clip.name, since: clip.modified))
                }
            }
        }
        publish(force: false)
    }

    /// How long to sleep: until the next poll, the next watchdog ping, the next retry, or
    /// the moment an arriving file will have settled (inotify may wake it sooner).
    func nextWait() -> Duration {
        var wait = config.pollInterval
        if let watchdog = notifier.watchdogInterval { wait = min(wait, watchdog) }
        let now = ContinuousClock.now
        for phase in jobs.values {
            if case let .waiting(_, _, until) = phase { wait = min(wait, max(until - now, .milliseconds(10))) }
        }
        for scanner in scanners.values {
            if let due = scanner.nextSettle { wait = min(wait, max(due - now, .zero) + .milliseconds(10)) }
        }
        return wait
    }

    /// Sends STATUS= when the summary changed and writes status.json when something changed
    /// (at most once a second for progress alone).
    func publish(force: Bool) {
        let running = jobs.values.compactMap { phase -> DaemonStatus.Running? in
            guard case let .running(record, progress, started) = phase else { return nil }
            var running = DaemonStatus.Running(job: record.id, folder: record.folder, input: record.input, progress: progress, started: started)
            if let rendering = renderings[record.id] {
                let elapsed = (ContinuousClock.now - rendering.since).seconds
                running.speed = elapsed > 0.5 ? progress * rendering.duration / elapsed : nil
            }
            return running
        }.sorted { $0.started < $1.started }
        var status = DaemonStatus(pid: getpid(), started: started, updated: Date(), config: config.path,
                                  running: running, queued: queued, unavailable: unavailable)
        status.claims = claimStatuses()
        status.leaseTimeout = config.leaseTimeout.seconds
        status.host = keeper.owner
        status.farm = farm
        status.version = DropcutVersion.current
        // Progress alone updates STATUS= and status.json at most once a second; anything
        // else (a job starts or ends, the queue changes) at once.
        let now = ContinuousClock.now
        var previous = lastStatus
        previous?.updated = status.updated
        if !force && previous == status { return }
        if !force, var shape = previous, shape.running.map(\.job) == running.map(\.job) {
            for i in shape.running.indices {
                shape.running[i].progress = running[i].progress
                shape.running[i].speed = running[i].speed
            }
            if shape == status && now - lastStatusWrite < .seconds(1) { return }
        }
        updateMetrics()
        let summary = status.summary
        if summary != lastSummary {
            lastSummary = summary
            notifier.status(summary)
        }
        try? status.write(stateDirectory: config.stateDirectory)
        board.post(status)
        lastStatus = status
        lastStatusWrite = now
    }

    /// The queue and worker gauges, from what `publish` is about to write.
    func updateMetrics() {
        metrics.running(runningCount)
        let now = Date()
        for folder in config.folders {
            let waiting = queued.filter { $0.folder == folder.name }
            let oldest = waiting.compactMap(\.since).min().map { now.timeIntervalSince($0) } ?? 0
            metrics.queue(folder: folder.name, depth: waiting.count, oldestWaiting: oldest)
        }
    }
}
