import Foundation
import Logging
import Support
import Synchronization

/// The claims of a host of a farm whose decisions PostgreSQL makes (`coordinator:` in the
/// config): the database side of `ClaimCoordination`.
///
/// - A claim is the row of the folder's oldest queued clip, taken for this host in one
///   statement (`PostgresCoordinator.claimOldest`); only then is the clip renamed into
///   its claim folder, so no two hosts ever race for one rename.
/// - A lease is a deadline in the database's clock, renewed every third of
///   `lease_timeout` with the job's newest record.
/// - A fence records the step under the job's epoch in one statement: refused when a
///   taker moved the epoch on (the job is then lost here), and, while the database is
///   away, waited for up to `lease_timeout`, then retried as a transient failure.
/// - An output name is reserved in the database before each name is tried in the outbox.
///
/// While the database is away, claiming stops and renders go on; the journal says so once
/// when it goes and once when it is back.
package final class DatabaseLeases: ClaimCoordination {
    package let owner: HostIdentity
    package let database: PostgresCoordinator
    private let logger: Logger
    private let leaseTimeout: Mutex<Duration>
    private let claims = Mutex<[String: Claim]>([:])
    /// Ends the database did not take when they happened (it was away), by job: told
    /// again at every renewal until it takes them.
    private let pendingEnds = Mutex<[String: (held: PostgresCoordinator.Held, state: String)]>([:])
    /// The clips of each folder this host offered, and when it last offered them all.
    private let offered = Mutex<[String: (clips: Set<PostgresCoordinator.Clip>, at: ContinuousClock.Instant)]>([:])
    /// How often a host offers its whole listing again.
    static let reofferInterval: Duration = .seconds(10)
    /// Since when, and why, the database cannot be reached (nil: it can).
    private let outage = Mutex<(since: ContinuousClock.Instant, cause: String)?>(nil)

    /// A claim this host holds.
    final class Claim: Sendable {
        let claimedDirectory: String
        let state: Mutex<State>
        init(claimedDirectory: String, state: State) {
            self.claimedDirectory = claimedDirectory
            self.state = Mutex(state)
        }
    }

    struct State {
        var held: PostgresCoordinator.Held
        /// The newest record, and whether the database has it.
        var record: JobRecord
        var stored: Bool
        var lost: String?
        var render: Cancellation?
        var released = false
    }

    /// What a host with free workers is given to do (`pick`).
    package enum Ticket: Sendable {
        /// A clip of its own listing, claimed for it (in `took`): rename it into
        /// `held.claim`'s folder.
        case claim(SettledClip, PostgresCoordinator.Held, took: Duration)
        /// A job whose lease ran out, taken over: its claim folder is `previousClaim`'s.
        case takeover(PostgresCoordinator.Held)
    }

    package init(database: PostgresCoordinator, owner: HostIdentity, leaseTimeout: Duration, logger: Logger) {
        self.database = database
        self.owner = owner
        self.leaseTimeout = Mutex(leaseTimeout)
        self.logger = logger
    }

    /// How long a lease lasts from its last renewal (`lease_timeout`; a reload changes it).
    package var lease: Duration {
        get { leaseTimeout.withLock { $0 } }
        set { leaseTimeout.withLock { $0 = newValue } }
    }

    // MARK: The database's reachability

    /// Runs one statement, noting whether the database answered: its loss is logged
    /// once, and its return once. A refusal is an answer.
    private func reach<T>(_ body: () throws -> T) throws -> T {
        do {
            let value = try body()
            reached()
            return value
        } catch let refusal as PostgresCoordinator.Refusal {
            reached()
            throw refusal
        } catch {
            let cause = "\(error)"
            let first = outage.withLock { outage -> Bool in
                if outage == nil { outage = (ContinuousClock.now, cause); return true }
                return false
            }
            if first {
                logger.error("the coordinator \(database.target) cannot be reached: \(cause); claiming stops, running jobs go on and their next step waits for it",
                             metadata: ["MESSAGE_ID": "\(MessageID.coordinatorUnreachable.rawValue)"])
            }
            throw error
        }
    }

    private func reached() {
        guard let since = outage.withLock({ outage in defer { outage = nil }; return outage?.since }) else { return }
        logger.notice("the coordinator \(database.target) answers again, after \(LeaseKeeper.seconds(ContinuousClock.now - since)); claiming goes on",
                      metadata: ["MESSAGE_ID": "\(MessageID.coordinatorReachable.rawValue)"])
    }

    /// Whether the database is away (as the last statement found).
    package var isUnreachable: Bool { outage.withLock { $0 != nil } }

    // MARK: Start-up

    /// Creates or migrates the schema (safe when several hosts start at once).
    package func migrate() throws -> [Int] {
        try reach { try database.migrate() }
    }

    /// Every host's jobs (`PostgresCoordinator.farm`), the database's reachability noted.
    package func farm(recent: Int) throws -> [PostgresCoordinator.FarmJob] {
        try reach { try database.farm(recent: recent) }
    }

    // MARK: Claiming

    /// Offers this host's listing of `folder`'s inbox, then takes up to `slots` jobs:
    /// expired leases first (older work), then the oldest queued clips this host sees
    /// settled. Throws when the database cannot be reached (claiming waits for it).
    package func pick(_ folder: FolderConfig, listed: [SettledClip], slots: Int) throws -> [Ticket] {
        guard slots > 0 else { return [] }
        let lease = self.lease
        return try reach {
            // Only what this host has not offered lately: a listing of hundreds is not sent
            // again at every poll (everything is, every `reofferInterval`: a clip dropped
            // again, the same bytes, is queued again only when offered after its job ended).
            let clips = listed.map { PostgresCoordinator.Clip(folder: folder.name, name: $0.name, size: $0.size,
                                                              modifiedNanoseconds: $0.modifiedNanoseconds) }
            let now = ContinuousClock.now
            let (known, fresh) = offered.withLock { offered -> (Set<PostgresCoordinator.Clip>, Bool) in
                guard let last = offered[folder.name], now - last.at < Self.reofferInterval else { return ([], true) }
                return (last.clips, false)
            }
            let new = clips.filter { !known.contains($0) }
            try database.offer(zip(new, JobRecord.newIDs(new.count)).map { ($0, $1) })
            offered.withLock { offered in
                // What the listing still holds, so the set stays as small as the inbox.
                offered[folder.name] = (Set(clips), fresh ? now : offered[folder.name]?.at ?? now)
            }
            var tickets: [Ticket] = []
            do {
                while tickets.count < slots, let held = try database.takeOverExpired(in: folder.name, lease: lease, claim: JobRecord.newID()) {
                    tickets.append(.takeover(held))
                }
                let byName = Dictionary(listed.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                let clock = ContinuousClock()
                while tickets.count < slots && !byName.isEmpty {
                    let began = clock.now
                    guard let held = try database.claimOldest(in: folder.name, lease: lease, claim: JobRecord.newID(), among: Array(byName.keys)) else { break }
                    guard let clip = byName[held.clip] else {
                        // Not a name asked for (cannot happen): its job ends; listed again, it is queued again.
                        try database.finish(held, as: "missing")
                        continue
                    }
                    tickets.append(.claim(clip, held, took: clock.now - began))
                }
            } catch where !tickets.isEmpty {
                // The database went away mid-pick: the jobs already taken are run (the
                // next statement says the outage).
            }
            return tickets
        }
    }

    // MARK: ClaimCoordination

    package func hold(_ record: JobRecord, name: ClaimName, claimedDirectory: String) throws -> ClaimRename.Outcome {
        guard let held = Self.held(record) else {
            throw JobFailure.permanent("job \(record.id) was claimed without the coordinator (no farm job or epoch in its record)", errno: nil)
        }
        // The record goes with the first renewal, at once: a holder that dies before its
        // next one leaves its taker what it had begun. Refused: the job was taken over (a
        // restart after its lease ran out), nothing is held. A database away is left to
        // the renewals and the fence, which decide.
        let stored: Bool
        do {
            try reach { try database.renew(held, lease: lease, record: JobStore.json(record)) }
            stored = true
        } catch is PostgresCoordinator.Refusal {
            return .lost
        } catch {
            stored = false
        }
        claims.withLock {
            $0[record.id] = Claim(claimedDirectory: claimedDirectory, state: State(held: held, record: record, stored: stored))
        }
        return .renamed
    }

    /// The database's view of `record`'s claim; nil without a farm job or epoch.
    static func held(_ record: JobRecord) -> PostgresCoordinator.Held? {
        guard let job = record.farmJob, let epoch = record.epoch else { return nil }
        return PostgresCoordinator.Held(job: job, folder: record.folder, clip: record.input, epoch: epoch, claim: record.id)
    }

    package func update(_ record: JobRecord) {
        claims.withLock { $0[record.id] }?.state.withLock { state in
            state.record = record
            state.stored = false
        }
    }

    package func renew(logger: Logger) -> [LeaseKeeper.Lost] {
        let lease = self.lease
        let all = claims.withLock { Array($0) }
        var lost: [LeaseKeeper.Lost] = []
        for (id, claim) in all {
            // Read, then the statement with no lock held (a save on the scheduler's actor
            // must not wait for a database that does not answer).
            let (held, record, stored, skip) = claim.state.withLock { ($0.held, $0.record, $0.stored, $0.lost != nil || $0.released) }
            if skip { continue }
            let json = stored ? nil : JobStore.json(record)
            do {
                try reach { try database.renew(held, lease: lease, record: json) }
                claim.state.withLock { if $0.record.updatedAt == record.updatedAt { $0.stored = true } }
            } catch let refusal as PostgresCoordinator.Refusal {
                let reason = "\(refusal); its lease had run out by the database's clock"
                claim.state.withLock { state in
                    state.lost = reason
                    state.render?.cancel()
                }
                lost.append(LeaseKeeper.Lost(job: id, reason: reason))
            } catch {
                // Logged once by `reach`; the fence decides.
            }
        }
        let ends = pendingEnds.withLock { $0 }
        for (job, end) in ends {
            do {
                try reach { try database.finish(end.held, as: end.state) }
                pendingEnds.withLock { _ = $0.removeValue(forKey: job) }
            } catch is PostgresCoordinator.Refusal {
                pendingEnds.withLock { _ = $0.removeValue(forKey: job) }   // taken over since: the taker ends it
            } catch {}
        }
        return lost
    }

    @discardableResult
    package func fence(_ record: inout JobRecord, claimedDirectory: String, before step: IrreversibleStep) throws -> [ClaimName] {
        let claim = claims.withLock { $0[record.id] }
        if let reason = claim?.state.withLock({ $0.lost }) { throw JobFailure.lost(reason) }
        guard let held = claim?.state.withLock({ $0.held }) ?? Self.held(record) else {
            throw JobFailure.permanent("job \(record.id) has no farm job or epoch to fence with", errno: nil)
        }
        let json = JobStore.json(record)
        try waitingForTheDatabase(record, held, what: "its \(step.rawValue) step") {
            do {
                try database.begin(step: step.rawValue, of: held, record: json)
            } catch PostgresCoordinator.Refusal.leaseExpired(_) {
                // Nobody took it over yet (its epoch is the proof): renewed, then recorded.
                try database.renew(held, lease: lease, record: json)
                try database.begin(step: step.rawValue, of: held, record: json)
            }
        }
        claim?.state.withLock { $0.record = record; $0.stored = true }
        return []
    }

    package func reserve(output name: String, in outbox: String, for record: JobRecord) throws -> Bool {
        let claim = claims.withLock { $0[record.id] }
        guard let held = claim?.state.withLock({ $0.held }) ?? Self.held(record) else { return true }
        // Keyed by the folder's name, not the outbox's path: each host may mount the share
        // elsewhere, and the farm knows a folder by its name (as it knows its clips).
        return try waitingForTheDatabase(record, held, what: "the output name \(name)") {
            try database.reserve(name: name, in: Self.outboxKey(folder: record.folder), for: held)
        }
    }

    /// The outbox of folder `folder` as the database's output names know it.
    static func outboxKey(folder: String) -> String { "folder:\(folder)" }

    /// Runs `body` until the database answers: a refusal loses the claim (the render is
    /// cancelled, `JobFailure.lost` thrown); an unreachable database is tried again every
    /// second for up to `lease_timeout`, then the step is a transient failure, retried
    /// later (the job stays claimed; its lease runs out meanwhile, and whoever takes it
    /// over moves the epoch on, which refuses this host's next try).
    private func waitingForTheDatabase<T>(_ record: JobRecord, _ held: PostgresCoordinator.Held, what: String,
                                          _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + lease
        while true {
            do {
                return try reach(body)
            } catch let refusal as PostgresCoordinator.Refusal {
                let reason = "\(refusal) before this one could take \(what)"
                claims.withLock { $0[record.id] }?.state.withLock { state in
                    state.lost = reason
                    state.render?.cancel()
                }
                throw JobFailure.lost(reason)
            } catch {
                guard ContinuousClock.now < deadline else {
                    throw JobFailure.transient("the coordinator \(database.target) did not answer for \(LeaseKeeper.seconds(lease)) before \(what): \(error)",
                                               errno: ECONNREFUSED)
                }
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    package func ended(_ record: JobRecord, missing: Bool) {
        let claim = claims.withLock { $0[record.id] }
        guard let held = claim?.state.withLock({ $0.held }) ?? Self.held(record) else { return }
        let state = missing ? "missing" : record.state == .done ? "done" : "failed"
        do {
            try reach { try database.finish(held, as: state) }
        } catch is PostgresCoordinator.Refusal {
            // Taken over after its last fence: the taker ends the job.
        } catch {
            pendingEnds.withLock { $0[record.id] = (held, state) }
        }
    }

    package func release(_ id: String) {
        let claim = claims.withLock { $0.removeValue(forKey: id) }
        claim?.state.withLock { $0.released = true }
    }

    package func lostReason(_ id: String) -> String? {
        claims.withLock { $0[id] }?.state.withLock { $0.lost }
    }

    package func attach(_ render: Cancellation?, to id: String) {
        guard let claim = claims.withLock({ $0[id] }) else { return }
        let lostAlready = claim.state.withLock { state in
            state.render = render
            return state.lost != nil
        }
        if lostAlready { render?.cancel() }
    }

    package func heldNames(in claimedDirectory: String) -> Set<String> {
        let all = claims.withLock { Array($0) }
        return Set(all.filter { $0.value.claimedDirectory == claimedDirectory }.map(\.key))
    }

    package var heldJobs: Set<String> {
        claims.withLock { Set($0.keys) }
    }

    /// Jobs whose end the database has not taken yet (it was away).
    package var unsentEnds: Int { pendingEnds.withLock { $0.count } }
}
