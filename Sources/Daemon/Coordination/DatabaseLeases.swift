import Foundation
import Logging
import DropcutSupport
import Synchronization

/// The claims of a host of a farm whose decisions PostgreSQL makes (`coordinator:` in the
/// config): the database side of `ClaimCoordination`.
///
/// - A claim is the row of the folder's oldest queued clip, taken for this host in one
///   statement (`PostgresCoordinator.claimOldest`); only then is the clip renamed into
///   its claim folder, so no two hosts ever race for one rename.
/// - A lease is a deadline in the database's clock, renewed every third of
///   `lease_timeout` with the job's newest record. Each step of a commit stores the
///   record at once (`store`), so the row never says less than the outbox shows: a taker,
///   or this host with its state folder's record lost, resumes from it (`ownCopy`).
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
    let logger: Logger
    private let leaseTimeout: Mutex<Duration>
    private let claims = Mutex<[String: Claim]>([:])
    /// Ends the database did not take when they happened (it was away), by job: told
    /// again at every renewal until it takes them.
    private let pendingEnds = Mutex<[String: (held: PostgresCoordinator.Held, state: String)]>([:])
    /// The clips of each folder this host offered, and when it last offered them all.
    let offered = Mutex<[String: (clips: Set<PostgresCoordinator.Clip>, at: ContinuousClock.Instant)]>([:])
    /// Each folder's claim folders that nothing accounts for (`OrphanClaims`), and when
    /// they were last looked at.
    let orphanWatch = Mutex<[String: (claims: OrphanClaims, looked: ContinuousClock.Instant)]>([:])
    /// How often a host offers its whole listing again.
    static let reofferInterval: Duration = .seconds(10)
    /// The conditions the statements are in (the database away, errors it answered), each
    /// logged once when it begins and once when it ends.
    private let health = Mutex(CoordinatorHealth())
    /// Whether the schema was checked since the last statement that found a table or
    /// column missing (`CoordinatorSchema.prepare`, at start and again at the next pick).
    let schemaChecked = Mutex(false)

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

    /// Runs operation `operation` (one or more statements), noting what it met: the
    /// database away, or an error the server answered (its SQLSTATE and message), is
    /// logged once when it begins and once when it ends, never per poll. A refusal is an
    /// answer. A statement that found a table or column missing has the schema checked
    /// again at the next pick.
    func reach<T>(_ operation: String, _ body: () throws -> T) throws -> T {
        do {
            let value = try body()
            log(health.withLock { $0.succeeded(operation, at: .now) }, cause: nil)
            return value
        } catch let refusal as PostgresCoordinator.Refusal {
            log(health.withLock { $0.succeeded(operation, at: .now) }, cause: nil)
            throw refusal
        } catch {
            let condition: CoordinatorHealth.Condition
            switch error {
            case let refused as CoordinatorSchema.Refused:
                condition = .refusedSchema(refused.reason)
            case let failure as PostgresConnection.Failure:
                condition = .of(sqlState: failure.sqlState, message: failure.serverMessage)
                if failure.isMissingSchema { schemaChecked.withLock { $0 = false } }
            default:
                condition = .unreachable
            }
            log(health.withLock { $0.failed(operation, condition, at: .now) }, cause: error, in: operation)
            throw error
        }
    }

    /// Logs what `reach` found began or ended; `cause` is the error that began it, met by
    /// `operation`.
    private func log(_ events: [CoordinatorHealth.Event], cause: (any Error)?, in operation: String = "") {
        let target = database.target
        for event in events {
            switch event {
            case .began(.unreachable):
                logger.error("the coordinator \(target) cannot be reached: \(cause.map { "\($0)" } ?? "no answer"); claiming stops, running jobs go on and their next step waits for it",
                             metadata: ["MESSAGE_ID": "\(MessageID.coordinatorUnreachable.rawValue)"])
            case let .ended(.unreachable, lasted):
                logger.notice("the coordinator \(target) answers again, after \(LeaseKeeper.seconds(lasted)); claiming goes on",
                              metadata: ["MESSAGE_ID": "\(MessageID.coordinatorReachable.rawValue)"])
            case let .began(.answered(sqlState, message)):
                let statement = (cause as? PostgresConnection.Failure).map { " (\(operation): \($0.function))" } ?? ""
                logger.error("the coordinator \(target) answered with an error: SQLSTATE \(sqlState): \(message)\(statement); what needs it waits (claiming stops while claims meet it), logged again only when it changes or ends",
                             metadata: ["MESSAGE_ID": "\(MessageID.coordinatorError.rawValue)", "DROPCUT_SQLSTATE": "\(sqlState)"])
            case let .ended(.answered(sqlState, message), lasted):
                logger.notice("the coordinator \(target) no longer answers SQLSTATE \(sqlState) (\(message)), after \(LeaseKeeper.seconds(lasted))",
                              metadata: ["MESSAGE_ID": "\(MessageID.coordinatorReachable.rawValue)", "DROPCUT_SQLSTATE": "\(sqlState)"])
            case let .began(.refusedSchema(reason)):
                logger.critical("the coordinator \(target) cannot be used: \(reason); claiming stops until it is repaired",
                                metadata: ["MESSAGE_ID": "\(MessageID.coordinatorError.rawValue)"])
            case .ended(.refusedSchema, let lasted):
                logger.notice("the coordinator \(target)'s schema is usable again, after \(LeaseKeeper.seconds(lasted)); claiming goes on",
                              metadata: ["MESSAGE_ID": "\(MessageID.coordinatorReachable.rawValue)"])
            }
        }
    }

    /// Whether the database is away (as the last statement found).
    package var isUnreachable: Bool { health.withLock { $0.isUnreachable } }

    /// A reload's new `lease_timeout`, for the leases renewed and taken from now on.
    package func leaseTimeoutChanged(to timeout: Duration) { lease = timeout }

    /// The database, as the status names it: it keeps every host's jobs (`farm`).
    package var farmCoordinator: String { database.target }

    /// Logs a notice or warning the server sent (never stderr): warnings as warnings, the
    /// rest at debug level.
    package static func noticeLogger(_ logger: Logger) -> @Sendable (PostgresConnection.Notice) -> Void {
        { notice in
            let text = "the coordinator's server says: \(notice.severity): \(notice.message)"
            let metadata: Logger.Metadata = notice.sqlState.map { ["DROPCUT_SQLSTATE": "\($0)"] } ?? [:]
            switch notice.severity {
            case "WARNING": logger.warning("\(text)", metadata: metadata)
            default: logger.debug("\(text)", metadata: metadata)
            }
        }
    }

    // MARK: Start-up

    /// Creates, migrates and checks the schema (safe when several hosts start at once):
    /// the versions applied. A record that lies (`dropcut_jobs` gone) is repaired and
    /// said so; a schema refused throws `CoordinatorSchema.Refused`.
    @discardableResult
    package func migrate() throws -> [Int] {
        let outcome = try reach("migrate") { try database.migrate() }
        schemaChecked.withLock { $0 = true }
        // Checked after a table was found missing: what was offered may be gone with it,
        // so the whole listing is offered again at once, not after `reofferInterval`.
        offered.withLock { $0 = [:] }
        if let reason = outcome.recreated {
            logger.warning("the coordinator \(database.target)'s schema was made again: \(reason) (its rows were lost with it; jobs in flight put their rows back at their next renewal)",
                           metadata: ["MESSAGE_ID": "\(MessageID.coordinatorError.rawValue)"])
        }
        return outcome.applied
    }

    /// Every host's jobs (`PostgresCoordinator.farm`), the database's reachability noted.
    package func farm(recent: Int) throws -> [FarmJob] {
        try reach("farm") { try database.farm(recent: recent) }
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
            try reach("hold") { try renewOrAdopt(held, record, claimedDirectory: claimedDirectory, lease: lease, json: JobStore.json(record)) }
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

    /// Renews `held`'s lease; a renewal refused because the job's row is gone (its table
    /// dropped and made again) puts the row back as this host's claim instead
    /// (`PostgresCoordinator.adopt`), so a job in flight is neither abandoned nor left with
    /// no row. Refused (the error rethrown) when the database has the job under another
    /// epoch, or its claim or clip in another row.
    func renewOrAdopt(_ held: PostgresCoordinator.Held, _ record: JobRecord, claimedDirectory: String, lease: Duration,
                      json: String?) throws {
        do {
            try database.renew(held, lease: lease, record: json)
        } catch let refusal as PostgresCoordinator.Refusal {
            let clip = Self.clipKey(of: record, held: held, claimedDirectory: claimedDirectory)
            guard try database.adopt(held, clip: clip, lease: lease, record: json ?? JobStore.json(record)) else { throw refusal }
            var log = logger
            log[metadataKey: "DROPCUT_JOB"] = "\(record.id)"
            log[metadataKey: "DROPCUT_FOLDER"] = "\(record.folder)"
            log.warning("job \(held.job) (\(record.input)) had no row in the coordinator \(database.target) (its table was dropped and made again): put back as this host's claim, epoch \(held.epoch)")
        }
    }

    /// The database's key of the clip `record` holds, from its copy in the claim folder (a
    /// rename keeps size and modification time); zeros once the copy is gone (archived).
    static func clipKey(of record: JobRecord, held: PostgresCoordinator.Held, claimedDirectory: String) -> PostgresCoordinator.Clip {
        let path = ((claimedDirectory as NSString).appendingPathComponent(record.claim.description) as NSString)
            .appendingPathComponent(record.input)
        var info = stat()
        guard stat(path, &info) == 0 else { return PostgresCoordinator.Clip(folder: held.folder, name: held.clip, size: 0, modifiedNanoseconds: 0) }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return PostgresCoordinator.Clip(folder: held.folder, name: held.clip, size: Int64(info.st_size), modifiedNanoseconds: nanoseconds)
    }

    /// The holder's record as the database stored it (`storedRecord`); for a claim without
    /// a farm job (one the database did not assign: claimed before it was configured), the
    /// lease its claim folder brought along, as on a share.
    package func holderRecord(of record: JobRecord, previous: ClaimName, claimDirectory: String) throws
        -> (record: Result<JobRecord, MissingRecord>, owner: String) {
        if let stored = try storedRecord(of: record) { return (stored, "its holder") }
        return ClaimLease.holderRecord(claimDirectory: claimDirectory, name: previous)
    }

    /// The record the holder of the job `record` took over last stored in the database:
    /// none means it stopped before its first renewal, before anything irreversible, and
    /// the job is rendered again, as a takeover does (`TakeoverCandidate.init(_:lease:)`).
    func storedRecord(of record: JobRecord) throws -> Result<JobRecord, MissingRecord>? {
        guard let job = record.farmJob else { return nil }
        let stored = try database.storedRecord(of: job)
        // As a claim just made: the clip in the claim folder, nothing of it rendered.
        var fresh = JobRecord(id: record.id, folder: record.folder, input: record.input, sidecars: record.sidecars, state: .claimed)
        fresh.dropped = record.dropped
        fresh.arrival = record.arrival
        fresh.farmJob = record.farmJob
        fresh.epoch = record.epoch
        return stored.map(JobStore.reading(json:)) ?? .success(fresh)
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

    /// Stores the record in the claim's row at once (`PostgresCoordinator.store`: under the
    /// epoch this host holds, refused once another host took the job over), waiting for a
    /// database that does not answer as a fence does. A row gone with its table is put back
    /// as this host's claim, as a renewal does.
    package func store(_ record: JobRecord) throws {
        guard let claim = claims.withLock({ $0[record.id] }) else { return }
        let (held, lost, released) = claim.state.withLock { ($0.held, $0.lost, $0.released) }
        if let lost { throw JobFailure.lost(lost) }
        if released { return }
        let json = JobStore.json(record)
        let lease = self.lease
        try waitingForTheDatabase(record, held, operation: "store", what: "the record of its \(record.state.rawValue) step") {
            do {
                try database.store(record: json, for: held)
            } catch PostgresCoordinator.Refusal.epochMoved(_, _) {
                // Taken over — or its row lost with its table: put back if nobody has it.
                try renewOrAdopt(held, record, claimedDirectory: claim.claimedDirectory, lease: lease, json: json)
            }
        }
        claim.state.withLock { $0.record = record; $0.stored = true }
    }

    /// The record the claim row of job `id` holds, while this host holds it: the row that
    /// names `id` as its current claim (a takeover names its taker's), claimed by a
    /// holder of this host's name (its process may be an earlier one), and a record that
    /// reads back as one (range-checked as the state folder's are) of that job, epoch and
    /// folder, a folder of `folders`.
    package func ownCopy(of id: String, folders: [FolderConfig]) throws -> RecordCopy? {
        guard let row = try reach("recover", { try database.claimedRow(claim: id) }),
              HostIdentity.name(of: row.host) == owner.host, let json = row.held.record,
              case let .success(record) = JobStore.reading(json: json),
              record.id == id, record.farmJob == row.held.job, record.epoch == row.held.epoch,
              record.folder == row.held.folder, folders.contains(where: { $0.name == record.folder }) else { return nil }
        return RecordCopy(record: record, source: "the copy the coordinator holds")
    }

    package func renew(logger: Logger) -> [LostClaim] {
        let lease = self.lease
        let all = claims.withLock { Array($0) }
        var lost: [LostClaim] = []
        for (id, claim) in all {
            // Read, then the statement with no lock held (a save on the scheduler's actor
            // must not wait for a database that does not answer).
            let (held, record, stored, skip) = claim.state.withLock { ($0.held, $0.record, $0.stored, $0.lost != nil || $0.released) }
            if skip { continue }
            let json = stored ? nil : JobStore.json(record)
            do {
                try reach("renew") { try renewOrAdopt(held, record, claimedDirectory: claim.claimedDirectory, lease: lease, json: json) }
                claim.state.withLock { if $0.record.updatedAt == record.updatedAt { $0.stored = true } }
            } catch let refusal as PostgresCoordinator.Refusal {
                let reason = "\(refusal); its lease had run out by the database's clock"
                claim.state.withLock { state in
                    state.lost = reason
                    state.render?.cancel()
                }
                lost.append(LostClaim(job: id, reason: reason))
            } catch {
                // Logged once by `reach`; the fence decides.
            }
        }
        let ends = pendingEnds.withLock { $0 }
        for (job, end) in ends {
            do {
                try reach("finish") { try database.finish(end.held, as: end.state) }
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
        let lease = self.lease, snapshot = record
        try waitingForTheDatabase(record, held, operation: "fence", what: "its \(step.rawValue) step") {
            do {
                try database.begin(step: step.rawValue, of: held, record: json)
            } catch PostgresCoordinator.Refusal.leaseExpired(_) {
                // Nobody took it over yet (its epoch is the proof): renewed, then recorded.
                try database.renew(held, lease: lease, record: json)
                try database.begin(step: step.rawValue, of: held, record: json)
            } catch PostgresCoordinator.Refusal.epochMoved(_, _) {
                // Taken over — or its row lost with its table: put back if nobody has it.
                try renewOrAdopt(held, snapshot, claimedDirectory: claimedDirectory, lease: lease, json: json)
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
        return try waitingForTheDatabase(record, held, operation: "reserve", what: "the output name \(name)") {
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
    private func waitingForTheDatabase<T>(_ record: JobRecord, _ held: PostgresCoordinator.Held, operation: String, what: String,
                                          _ body: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + lease
        while true {
            do {
                return try reach(operation, body)
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
            try reach("finish") { try database.finish(held, as: state) }
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
