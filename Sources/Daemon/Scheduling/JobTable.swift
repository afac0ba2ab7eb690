import Foundation
import DropcutPipeline
import DropcutSupport

/// The work this daemon holds, by key, and what the dispatcher remembers of it between
/// passes: the phase of each job (and of each claim, takeover or pick in flight, which
/// holds a worker too), since when each running job writes its output, the claims that
/// failed and when they may be tried again, the folder each waiting job waits for, and
/// the queue the last pass listed. Plain data, no I/O: what the loop decides from it
/// (which retries are due, how many workers are busy, how long to sleep) is tested alone.
struct JobTable {
    /// A job this process holds. Queued clips are still in the inbox (not claimed), so
    /// another dropcut sharing the inbox can take them.
    enum Phase {
        /// Being claimed (renamed into the claimed folder off the actor), taken over or
        /// picked; keyed by its claim, takeover or pick key until the job's record exists.
        /// It holds a worker.
        case claiming
        case running(JobRecord, progress: Double, started: Date)
        /// A transient failure waiting for its backoff, or a recovered job, due at `until`.
        case waiting(JobRecord, FolderConfig, until: ContinuousClock.Instant)
    }

    private var phases: [String: Phase] = [:]
    /// Running jobs whose worker is writing its output: the output's duration and since
    /// when (for the speed `status` and the status page show).
    var renderings: [String: (duration: Double, since: ContinuousClock.Instant)] = [:]
    /// Work whose claim or takeover failed (by its key), not tried again before the
    /// instant, with the error last logged for it (logged again only when it changes).
    var blocked: [String: (until: ContinuousClock.Instant, error: String)] = [:]
    /// Jobs waiting for a folder that is away (an unmounted share), with the reason last
    /// logged for them.
    var waitingFor: [String: String] = [:]
    /// What the last pass listed as waiting: jobs waiting to retry, then the settled clips
    /// no worker was free for.
    var queued: [DaemonStatus.Queued] = []

    subscript(key: String) -> Phase? {
        get { phases[key] }
        set { phases[key] = newValue }
    }

    var isEmpty: Bool { phases.isEmpty }

    /// Whether any key starts with `prefix` (a folder's picks in flight).
    func contains(keyWithPrefix prefix: some StringProtocol) -> Bool {
        phases.keys.contains { $0.hasPrefix(prefix) }
    }

    /// Work holding a worker: running, or being claimed, taken over or picked.
    var busyWorkers: Int {
        phases.values.reduce(0) { count, phase in
            if case .waiting = phase { return count }
            return count + 1
        }
    }

    /// The waiting jobs whose time has come at `now`, oldest claim first.
    func due(at now: ContinuousClock.Instant) -> [(JobRecord, FolderConfig)] {
        phases.values.compactMap { phase -> (JobRecord, FolderConfig)? in
            if case let .waiting(record, folder, until) = phase, until <= now { return (record, folder) }
            return nil
        }.sorted { $0.0.claimedAt < $1.0.claimedAt }
    }

    /// The soonest instant a waiting job is due, if any waits.
    var soonestDue: ContinuousClock.Instant? {
        phases.values.compactMap { phase in
            if case let .waiting(_, _, until) = phase { return until }
            return nil
        }.min()
    }

    /// The jobs waiting to retry, as the status lists them (the start of `queued`).
    var waiting: [DaemonStatus.Queued] {
        phases.values.compactMap { phase in
            guard case let .waiting(record, _, _) = phase else { return nil }
            return DaemonStatus.Queued(folder: record.folder, input: record.input, retryAt: record.retryAt, since: record.updatedAt)
        }
    }

    /// The running jobs as the status shows them at `now`, oldest first, each with its
    /// speed once its worker has written for half a second.
    func running(at now: ContinuousClock.Instant) -> [DaemonStatus.Running] {
        phases.values.compactMap { phase -> DaemonStatus.Running? in
            guard case let .running(record, progress, started) = phase else { return nil }
            var running = DaemonStatus.Running(job: record.id, folder: record.folder, input: record.input, progress: progress, started: started)
            if let rendering = renderings[record.id] {
                let elapsed = (now - rendering.since).seconds
                running.speed = elapsed > 0.5 ? progress * rendering.duration / elapsed : nil
            }
            return running
        }.sorted { $0.started < $1.started }
    }

    /// A running job's progress (ignored for a job no longer running).
    mutating func progress(_ id: String, _ fraction: Double) -> Bool {
        guard case let .running(record, _, started) = phases[id] else { return false }
        phases[id] = .running(record, progress: fraction, started: started)
        return true
    }

    /// A job's run ended: it holds nothing more (a retry keeps what it waits for).
    mutating func ended(_ id: String, retrying: Bool) {
        phases[id] = nil
        renderings[id] = nil
        if !retrying { waitingFor[id] = nil }
    }
}
