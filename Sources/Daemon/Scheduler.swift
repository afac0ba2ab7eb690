import Foundation
import Logging
import Pipeline
import ServiceLifecycle
import Synchronization

/// The daemon's heart, a swift-service-lifecycle `Service`: recovers unfinished jobs,
/// says READY=1, then polls the inboxes, claims settled clips oldest first while a worker
/// is free, runs each job, retries transient failures with backoff, and keeps systemd
/// (STATUS=, WATCHDOG=1) and `<state_dir>/status.json` up to date. On graceful shutdown
/// (SIGTERM) it claims nothing more, lets running jobs finish within `stop_timeout`, then
/// cancels them (their inputs stay claimed and are redone at the next start).
///
/// With `once`, it returns when nothing is left to do: nothing running, waiting, settled
/// or still arriving.
public actor Scheduler: Service {
    /// A job this process holds. Queued clips are still in the inbox (not claimed), so
    /// another dropcut sharing the inbox can take them.
    private enum Phase {
        /// Being claimed (renamed into the claimed folder off the actor); keyed by
        /// `claimKey` until the claim's record exists.
        case claiming(folder: String, input: String)
        case running(JobRecord, progress: Double, started: Date)
        /// A transient failure waiting for its backoff, or a recovered job, due at `until`.
        case waiting(JobRecord, FolderConfig, until: ContinuousClock.Instant)
    }

    private var config: DaemonConfig
    private let once: Bool
    private let logger: Logger
    private let store: JobStore
    private let runner: JobRunner
    private let notifier = SystemdNotifier()
    private let wakeup = Wakeup()
    private let stop = StopRequest()
    private var scanners: [String: InboxScanner] = [:]
    private var watcher: InboxWatcher?
    private var jobs: [String: Phase] = [:]
    private var queued: [DaemonStatus.Queued] = []
    private var arriving = 0
    private var unavailable: [String: String] = [:]
    private let started = Date()
    private var lastSummary = ""
    private var lastStatus: DaemonStatus?
    private var lastStatusWrite = ContinuousClock.now
    private var lockDescriptor: Int32 = -1
    private var stopTimedOut = false
    /// Jobs that failed for good in this run (`watch --once` exits 1 when there are any).
    public private(set) var failures = 0
    /// Jobs finished in this run.
    public private(set) var completed = 0

    public init(config: DaemonConfig, once: Bool = false, logger: Logger) {
        self.config = config
        self.once = once
        self.logger = logger
        self.store = JobStore(stateDirectory: config.stateDirectory)
        self.runner = JobRunner(store: store, logger: logger)
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    // MARK: Service

    public func run() async throws {
        try prepare()
        try recover()
        publish(force: true)
        notifier.ready(status: lastSummary)
        logger.notice("dropcut ready: watching \(config.folders.map(\.inbox).joined(separator: ", "))",
                      metadata: ["MESSAGE_ID": "\(MessageID.daemonReady.rawValue)"])
        let stop = self.stop, wakeup = self.wakeup, notifier = self.notifier
        watcher = InboxWatcher { wakeup.signal() }
        watcher?.watch(config.folders.map(\.inbox))
        defer { watcher?.stop() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                while !stop.isRequested {
                    if notifier.watchdogInterval != nil { notifier.watchdog() }
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

    private func timeOutStop() {
        stopTimedOut = true
        wakeup.signal()
    }

    /// Asks the loop to stop as on SIGTERM (for embedding without a ServiceGroup).
    public nonisolated func requestStop() {
        stop.request()
        wakeup.signal()
    }

    /// Takes a new config (SIGHUP): new folders start being watched, removed ones stop;
    /// running jobs finish with the config they started with.
    public func apply(_ new: DaemonConfig) throws(SystemError) {
        for folder in new.folders { try prepare(folder) }
        var kept: [String: InboxScanner] = [:]
        for folder in new.folders {
            if var scanner = scanners[folder.name], scanner.inbox == folder.inbox {
                scanner.settle = new.settle
                kept[folder.name] = scanner
            } else {
                kept[folder.name] = InboxScanner(inbox: folder.inbox, settle: new.settle)
            }
        }
        scanners = kept
        watcher?.watch(new.folders.map(\.inbox))
        config.folders = new.folders
        config.pollInterval = new.pollInterval
        config.settle = new.settle
        config.workers = new.workers
        config.stopTimeout = new.stopTimeout
        config.retryDelay = new.retryDelay
        wakeup.signal()
    }

    /// The status line (as sent with STATUS=).
    public var summary: String { lastSummary }

    // MARK: Start-up

    /// Locks the state folder (one daemon per state folder), creates the folders.
    private func prepare() throws {
        try DurableFiles.makeDirectories(config.stateDirectory)
        try store.prepare()
        let lockPath = (config.stateDirectory as NSString).appendingPathComponent("lock")
        let fd = try sys("open", lockPath) { open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DaemonError("another dropcut is already using the state folder \(config.stateDirectory) (\(lockPath) is locked); give each daemon its own state_dir")
        }
        lockDescriptor = fd
        for folder in config.folders {
            try prepare(folder)
            scanners[folder.name] = InboxScanner(inbox: folder.inbox, settle: config.settle)
        }
    }

    private func prepare(_ folder: FolderConfig) throws(SystemError) {
        try DurableFiles.makeDirectories(folder.claimedDirectory)
        try DurableFiles.makeDirectories(folder.outbox)
        try DurableFiles.makeDirectories(folder.failed)
        if let archive = folder.archive { try DurableFiles.makeDirectories(archive) }
    }

    /// Puts every unfinished job of this state folder back on track: jobs that were
    /// committed are finished now (no re-render), the rest are queued to render again from
    /// their claimed copy (their partial outputs are removed first). Claimed folders left
    /// empty by a crash mid-claim are removed.
    private func recover() throws {
        for var record in store.all() where !record.isFinished {
            guard let folder = config.folder(named: record.folder) else {
                logger.warning("job \(record.id) belongs to folder '\(record.folder)', which is no longer configured; left as it is")
                continue
            }
            let log = runner.logger(for: record, folder: folder)
            switch record.state {
            case .claiming:
                if access(runner.claimedPath(record, folder, record.input), F_OK) == 0 {
                    record.state = .claimed
                    try store.save(&record)
                    fallthrough
                }
                rmdir(runner.claimedDirectory(record, folder))
                store.remove(record.id)
                continue
            case .claimed, .rendering, .waiting:
                if let partial = record.temporaryOutput { PartialOutput(path: partial).remove() }
                log.notice("recovering \(record.input): rendering it again from its claimed copy (was \(record.state.rawValue))")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .committing, .committed, .failing:
                log.notice("recovering \(record.input): finishing its \(record.state.rawValue) step")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .done, .failed:
                continue
            }
        }
        // Empty claimed folders: a crash between mkdir and the record (rmdir only removes
        // empty ones, so another process's claim in flight at most loses its race).
        for folder in config.folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory)) ?? [] {
                rmdir((folder.claimedDirectory as NSString).appendingPathComponent(name))
            }
        }
        store.prune()
    }

    // MARK: The loop

    /// Jobs holding a worker: running, or being claimed.
    private var runningCount: Int {
        jobs.values.reduce(0) { count, phase in
            switch phase {
            case .running, .claiming: return count + 1
            case .waiting: return count
            }
        }
    }

    /// One pass of the loop: starts due retries, then lists every inbox and claims settled
    /// clips while workers are free.
    private func dispatch(into group: inout DiscardingTaskGroup) {
        var free = config.workers - runningCount
        startDueRetries(free: &free, into: &group)
        queued = jobs.values.compactMap { phase in
            if case let .waiting(record, _, _) = phase {
                return DaemonStatus.Queued(folder: record.folder, input: record.input, retryAt: record.retryAt)
            }
            return nil
        }
        arriving = 0
        for folder in config.folders {
            guard let settled = scan(folder) else { continue }
            for clip in settled {
                if jobs[claimKey(folder.name, clip.name)] != nil { continue }   // its claim is in flight
                if free > 0 && !stop.isRequested {
                    startClaim(clip, folder, in: &group)
                    free -= 1
                } else {
                    queued.append(DaemonStatus.Queued(folder: folder.name, input: clip.name))
                }
            }
        }
        publish(force: false)
    }

    // MARK: Retry

    /// Starts the waiting jobs whose time has come, oldest claim first.
    private func startDueRetries(free: inout Int, into group: inout DiscardingTaskGroup) {
        let now = ContinuousClock.now
        let due = jobs.compactMap { id, phase -> (JobRecord, FolderConfig)? in
            if case let .waiting(record, folder, until) = phase, until <= now { return (record, folder) }
            return nil
        }.sorted { $0.0.claimedAt < $1.0.claimedAt }
        for (record, folder) in due where free > 0 && !stop.isRequested {
            jobs[record.id] = .running(record, progress: 0, started: Date())
            group.addTask { [self] in await self.run(record, folder) }
            free -= 1
        }
    }

    /// What to do with a failed job: wait and retry it (transient failures, within the
    /// folder's retries, and anything after its commit), or move it to failed/.
    nonisolated static func retryDelay(after failure: JobFailure, _ record: JobRecord, retries: Int,
                                       firstDelay: Duration) -> Duration? {
        let afterCommit = [.committing, .committed].contains(record.state)
        guard case .transient = failure, afterCommit || record.attempts <= retries else { return nil }
        let exponent = max(0, min(record.attempts - 1, 16))
        return min(firstDelay * (1 << exponent), .seconds(600))
    }

    // MARK: Scan

    /// Lists one inbox: the clips settled in it, or nil when it cannot be read (logged
    /// once per cause; an unreadable inbox is never taken for an empty one).
    private func scan(_ folder: FolderConfig) -> [SettledClip]? {
        guard var scanner = scanners[folder.name] else { return nil }
        let listing = scanner.scan()
        scanners[folder.name] = scanner
        switch listing {
        case let .unavailable(reason):
            if unavailable[folder.name] != reason {
                var log = logger
                log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
                log.error("\(reason); not treating it as empty, will retry", metadata: ["MESSAGE_ID": "\(MessageID.inboxUnavailable.rawValue)"])
                if once { failures += 1 }
            }
            unavailable[folder.name] = reason
            return nil
        case let .listed(settled, arrivingHere):
            if unavailable.removeValue(forKey: folder.name) != nil {
                logger.notice("inbox \(folder.inbox) is readable again", metadata: ["DROPCUT_FOLDER": "\(folder.name)"])
            }
            arriving += arrivingHere
            return settled
        }
    }

    // MARK: Claim

    /// The key of a claim in flight in `jobs` (file names cannot hold a NUL byte, so it
    /// cannot collide with a job id or another folder's claim).
    private func claimKey(_ folder: String, _ input: String) -> String {
        "claim\u{0}\(folder)\u{0}\(input)"
    }

    /// Claims `clip` off the actor (the claim renames and fsyncs, which can block on a slow
    /// or network filesystem), then runs its job in the same task.
    private func startClaim(_ clip: SettledClip, _ folder: FolderConfig, in group: inout DiscardingTaskGroup) {
        let key = claimKey(folder.name, clip.name)
        jobs[key] = .claiming(folder: folder.name, input: clip.name)
        let runner = self.runner
        group.addTask { [self] in
            let claimed: Result<JobRecord?, any Error>
            do {
                claimed = .success(try await BlockingWork.run("dropcut-claim") { _ in try runner.claim(clip, folder: folder) })
            } catch {
                claimed = .failure(error)
            }
            guard let record = await self.claimed(clip, folder, key: key, claimed) else { return }
            await self.run(record, folder)
        }
    }

    /// Books a finished claim: the job is now running under its id, or the clip went to
    /// another process, or it could not be claimed (logged; retried at the next poll, or a
    /// failure for `--once`, which must end).
    private func claimed(_ clip: SettledClip, _ folder: FolderConfig, key: String,
                         _ result: Result<JobRecord?, any Error>) -> JobRecord? {
        jobs[key] = nil
        defer { wakeup.signal() }
        switch result {
        case let .success(record?):
            scanners[folder.name]?.forget(clip.name)
            jobs[record.id] = .running(record, progress: 0, started: Date())
            return record
        case .success(nil):
            scanners[folder.name]?.forget(clip.name)   // another process claimed it first
            return nil
        case let .failure(error):
            let code = (error as? SystemError)?.errno ?? 0
            logger.error("cannot claim \(clip.name): \(error)", metadata: ["DROPCUT_FOLDER": "\(folder.name)", "ERRNO": "\(code)"])
            if once {
                failures += 1
                scanners[folder.name]?.forget(clip.name)
            }
            return nil
        }
    }

    // MARK: Run

    /// Runs a job to its end, off the actor: resume it from its recorded state; on a
    /// failure that will not be retried, move it to failed/ (files moved off the pool too).
    private nonisolated func run(_ start: JobRecord, _ folder: FolderConfig) async {
        var record = start
        let id = start.id
        let relay = ProgressRelay { [weak self] fraction in
            Task { await self?.progress(id, fraction) }
        }
        do {
            try await runner.resume(&record, folder: folder) { relay.report($0) }
            await finished(record, folder, .done)
            return
        } catch {
            let failure = JobFailure.classify(error)
            if case .cancelled = failure {
                await finished(record, folder, .cancelled)
                return
            }
            if let delay = Self.retryDelay(after: failure, record, retries: folder.retries, firstDelay: await config.retryDelay) {
                await finished(record, folder, .retry(failure, after: delay))
                return
            }
            do {
                try await runner.offPool(&record, "dropcut-fail") { [runner] in try runner.fail(&$0, folder: folder, failure: failure) }
                await finished(record, folder, .failed)
            } catch {
                await finished(record, folder, .failedToMove(error))
            }
        }
    }

    /// How a job's run ended.
    private enum Outcome {
        case done
        case cancelled
        case retry(JobFailure, after: Duration)
        case failed
        /// It failed for good, but moving it to failed/ failed too.
        case failedToMove(any Error)
    }

    private func progress(_ id: String, _ fraction: Double) {
        guard case let .running(record, _, started) = jobs[id] else { return }
        jobs[id] = .running(record, progress: fraction, started: started)
        publish(force: false)
    }

    private func finished(_ finalRecord: JobRecord, _ folder: FolderConfig, _ outcome: Outcome) {
        var record = finalRecord
        jobs[record.id] = nil
        defer {
            publish(force: true)
            wakeup.signal()
        }
        let log = runner.logger(for: record, folder: folder)
        switch outcome {
        case .done:
            completed += 1
        case .cancelled:
            if record.state == .rendering {
                record.state = .claimed
                try? store.save(&record)
            }
            log.notice("\(record.input): interrupted by shutdown; it stays claimed and is redone at the next start")
        case let .retry(failure, delay):
            var log = log
            if let code = failure.errno { log[metadataKey: "ERRNO"] = "\(code)" }
            if ![.committing, .committed].contains(record.state) { record.state = .waiting }
            record.retryAt = Date().addingTimeInterval(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            try? store.save(&record)
            log.warning("\(record.input): \(runner.droppedPath(failure.reason, record, folder)); retrying in \(delay) (attempt \(record.attempts) of \(folder.retries + 1))",
                        metadata: ["MESSAGE_ID": "\(MessageID.jobRetry.rawValue)"])
            jobs[record.id] = .waiting(record, folder, until: .now + delay)
        case .failed:
            failures += 1
        case let .failedToMove(error):
            log.critical("\(record.input): cannot move it to the failed folder: \(error); trying again later")
            jobs[record.id] = .waiting(record, folder, until: .now + config.retryDelay)
        }
    }

    /// How long to sleep: until the next poll, the next watchdog ping, the next retry, or
    /// the moment an arriving file will have settled (inotify may wake it sooner).
    private func nextWait() -> Duration {
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
    private func publish(force: Bool) {
        let running = jobs.values.compactMap { phase -> DaemonStatus.Running? in
            guard case let .running(record, progress, started) = phase else { return nil }
            return DaemonStatus.Running(job: record.id, folder: record.folder, input: record.input, progress: progress, started: started)
        }.sorted { $0.started < $1.started }
        let status = DaemonStatus(pid: getpid(), started: started, updated: Date(), config: config.path,
                                  running: running, queued: queued, unavailable: unavailable)
        // Progress alone updates STATUS= and status.json at most once a second; anything
        // else (a job starts or ends, the queue changes) at once.
        let now = ContinuousClock.now
        var previous = lastStatus
        previous?.updated = status.updated
        if !force && previous == status { return }
        if !force, var shape = previous, shape.running.map(\.job) == running.map(\.job) {
            for i in shape.running.indices { shape.running[i].progress = running[i].progress }
            if shape == status && now - lastStatusWrite < .seconds(1) { return }
        }
        let summary = status.summary
        if summary != lastSummary {
            lastSummary = summary
            notifier.status(summary)
        }
        try? status.write(stateDirectory: config.stateDirectory)
        lastStatus = status
        lastStatusWrite = now
    }
}

/// A start-up problem of the daemon itself (not of a clip).
public struct DaemonError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A stop asked for from outside the actor (signal handlers, graceful shutdown).
final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    var isRequested: Bool { requested.load(ordering: .acquiring) }
    func request() { requested.store(true, ordering: .releasing) }
}

/// Passes an export's per-frame progress on only when the whole percent changes, so the
/// actor is not called for every frame.
final class ProgressRelay: Sendable {
    private let lastPercent = Atomic<Int>(-1)
    private let send: @Sendable (Double) -> Void

    init(_ send: @escaping @Sendable (Double) -> Void) {
        self.send = send
    }

    func report(_ fraction: Double) {
        let percent = Int(fraction * 100)
        if lastPercent.exchange(percent, ordering: .relaxed) != percent { send(fraction) }
    }
}
