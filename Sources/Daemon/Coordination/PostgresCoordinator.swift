import Foundation
import DropcutSupport

/// A job of the farm as `dropcut status` shows it (`ClaimCoordination.farm`).
package typealias FarmJob = PostgresCoordinator.FarmJob

/// The decisions of a farm of hosts, made by PostgreSQL (`DatabaseLeases` is the
/// scheduler's side of it): which host renders which clip, until when (a lease in
/// the database's clock, never a host's), and whether a holder may still take an
/// irreversible step (its job's epoch, handed out by the database and checked in the same
/// statement as the step's record). Each host has one; its statements run one at a time.
package final class PostgresCoordinator: @unchecked Sendable {   // a lock serialises the connection
    /// A job this host holds: its id, the clip, and the epoch its claim or takeover got.
    package struct Held: Sendable, Hashable {
        /// The farm's job: one row per clip, kept across takeovers.
        package var job: String
        package var folder: String
        package var clip: String
        package var epoch: Int64
        /// The holder's own job id (its claim folder's name, its state folder's record):
        /// a new one at every takeover, as with shared-folder claims.
        package var claim: String?
        /// The claim this takeover took the job from (nil for a claim from the queue), its
        /// host, and how long its lease had run out, by the database's clock.
        package var previousClaim: String?
        package var previousHost: String?
        package var expiredMilliseconds: Int64?
        /// The last irreversible step recorded for the job (a taker resumes after it).
        package var step: String?
        /// The job record its holder last stored (`store(record:for:)`), JSON: what a taker
        /// resumes from, as crash recovery resumes from the state folder's.
        package var record: String?
    }

    /// One host's share of the farm, as `dropcut status` will show it.
    package struct FarmJob: Codable, Sendable, Hashable {
        package var job: String
        package var folder: String
        package var clip: String
        package var state: String
        package var host: String?
        package var epoch: Int64
        /// Seconds the lease has left by the database's clock (negative: expired); nil
        /// when the job holds none.
        package var leaseLeft: Double?
        /// The job's step as its holder last stored its record (`rendering`, `committing`...).
        package var step: String?
    }

    /// A clip as an inbox listing saw it: its key in the database.
    package struct Clip: Sendable, Hashable {
        package var folder: String
        package var name: String
        package var size: Int64
        package var modifiedNanoseconds: Int64

        package init(folder: String, name: String, size: Int64, modifiedNanoseconds: Int64) {
            self.folder = folder
            self.name = name
            self.size = size
            self.modifiedNanoseconds = modifiedNanoseconds
        }
    }

    /// Why a holder may not go on.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another host took the job over: its epoch moved past this one's.
        case epochMoved(job: String, held: Int64)
        /// The lease ran out (by the database's clock) before the step: nobody has taken
        /// it over yet, but someone may at any moment.
        case leaseExpired(job: String)

        package var description: String {
            switch self {
            case let .epochMoved(job, held): "job \(job) was taken over by another host (this host held epoch \(held))"
            case let .leaseExpired(job): "the lease of job \(job) ran out before the step (by the database's clock)"
            }
        }
    }

    private let conninfo: String
    package let target: String
    package let host: String
    /// Each statement's bound (see `PostgresConnection.timeout`).
    package let timeout: Duration
    private let lock = NSLock()
    /// The connection, made at the first statement and again after one broke (a restarted
    /// server, a statement that timed out): a lost database costs the statements made
    /// while it is away, never the coordinator.
    private var connection: PostgresConnection?
    /// Where the server's warnings and notices go (the daemon's log), never stderr.
    private let notices: @Sendable (PostgresConnection.Notice) -> Void

    package init(conninfo: String, target: String, host: String, timeout: Duration = .seconds(10),
                 notices: @escaping @Sendable (PostgresConnection.Notice) -> Void = { _ in }) {
        self.conninfo = conninfo
        self.target = target
        self.host = host
        self.timeout = timeout
        self.notices = notices
    }

    private func locked<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if connection?.isOK != true {
            connection = nil
            let fresh = try PostgresConnection(conninfo: conninfo, target: target, notices: notices)
            fresh.timeout = timeout
            connection = fresh
        }
        guard let connection else { preconditionFailure("a connection was just made") }
        do {
            return try body(connection)
        } catch {
            if !connection.isOK { self.connection = nil }
            throw error
        }
    }

    /// Creates or migrates the schema and checks it (`CoordinatorSchema.prepare`): the
    /// versions this call applied, and why it made the schema again if it did.
    package func migrate() throws -> CoordinatorSchema.Outcome {
        try locked { db in try CoordinatorSchema.prepare(db, host: host) }
    }

    /// Records a settled clip as waiting (any host may, from its own listing); false when
    /// the database has it already — the same name, size and modification time.
    @discardableResult
    package func offer(_ clip: Clip, job: String) throws -> Bool {
        try locked { db in
            try db.execute("""
                INSERT INTO dropcut_jobs (id, folder, clip_name, clip_size, clip_mtime_ns, state)
                VALUES ($1, $2, $3, $4::bigint, $5::bigint, 'queued')
                ON CONFLICT (folder, clip_name, clip_size, clip_mtime_ns) DO NOTHING
                """, [job, clip.folder, clip.name, String(clip.size), String(clip.modifiedNanoseconds)]) == 1
        }
    }

    /// Records many settled clips at once (one statement: a listing of hundreds is one round
    /// trip), each with the job id it gets if it is new. A clip whose job ended (done,
    /// failed, gone) more than `endedFor` ago and is listed again was dropped again, the
    /// same bytes under the same name: it is queued again (the row keeps its id; its next
    /// claim gets the new one). Returns how
    /// many rows were made or queued again.
    @discardableResult
    package func offer(_ clips: [(clip: Clip, job: String)], endedFor: Duration = .seconds(10)) throws -> Int {
        guard !clips.isEmpty else { return 0 }
        struct Row: Encodable { var id, folder, name: String; var size, mtime: Int64 }
        let rows = clips.map { Row(id: $0.job, folder: $0.clip.folder, name: $0.clip.name, size: $0.clip.size, mtime: $0.clip.modifiedNanoseconds) }
        let json: String
        do { json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self) } catch { preconditionFailure("rows of strings and numbers always encode: \(error)") }
        return try locked { db in
            try db.execute("""
                INSERT INTO dropcut_jobs AS j (id, claim, folder, clip_name, clip_size, clip_mtime_ns, state)
                SELECT id, id, folder, name, size, mtime, 'queued'
                FROM jsonb_to_recordset($1::jsonb) AS x(id text, folder text, name text, size bigint, mtime bigint)
                ON CONFLICT (folder, clip_name, clip_size, clip_mtime_ns) DO UPDATE
                SET claim = EXCLUDED.id, state = 'queued', host = NULL, lease_until = NULL, step = NULL,
                    record = NULL, created_at = now(), updated_at = now()
                WHERE j.state IN ('done', 'failed', 'missing', 'abandoned')
                  AND j.updated_at < now() - $2::bigint * interval '1 millisecond'
                """, [json, String(endedFor.wholeMilliseconds)])
        }
    }

    /// Claims the folder's oldest waiting clip for this host (one statement: rows other
    /// hosts are claiming are skipped, not waited for), with a lease of `lease`.
    /// `claim` is the holder's job id for it (default: the row's own id).
    /// `among`, when given, limits the claim to those clip names (the ones this host's own
    /// listing found settled: it has their sidecars).
    package func claimOldest(in folder: String, lease: Duration, claim: String? = nil, among names: [String]? = nil) throws -> Held? {
        let json: String? = names.map { names in
            do { return String(decoding: try JSONEncoder().encode(names), as: UTF8.self) } catch { preconditionFailure("strings always encode: \(error)") }
        }
        return try locked { db in
            let rows = try db.query("""
                UPDATE dropcut_jobs SET state = 'claimed', host = $2, epoch = epoch + 1, claim = COALESCE($4, id),
                       lease_until = now() + $3::bigint * interval '1 millisecond', updated_at = now()
                WHERE id = (SELECT id FROM dropcut_jobs WHERE folder = $1 AND state = 'queued'
                              AND ($5::jsonb IS NULL OR clip_name IN (SELECT jsonb_array_elements_text($5::jsonb)))
                            ORDER BY created_at, id FOR UPDATE SKIP LOCKED LIMIT 1)
                RETURNING id, folder, clip_name, epoch, step, record::text, claim, NULL
                """, [folder, host, String(lease.wholeMilliseconds), claim, json])
            return rows.first.flatMap(Self.held)
        }
    }

    /// Takes over the folder's job whose lease ran out longest ago (by the database's
    /// clock): its epoch moves on, so its old holder's steps are refused from now on.
    /// `claim` is the taker's job id for it (default: the previous holder's is kept);
    /// the result names the previous one.
    package func takeOverExpired(in folder: String, lease: Duration, claim: String? = nil) throws -> Held? {
        try locked { db in
            let rows = try db.query("""
                WITH old AS (SELECT id, claim, host, lease_until FROM dropcut_jobs WHERE folder = $1 AND state = 'claimed' AND lease_until < now()
                             ORDER BY lease_until, id FOR UPDATE SKIP LOCKED LIMIT 1)
                UPDATE dropcut_jobs j SET host = $2, epoch = j.epoch + 1, claim = COALESCE($4, j.claim),
                       lease_until = now() + $3::bigint * interval '1 millisecond', updated_at = now()
                FROM old WHERE j.id = old.id
                RETURNING j.id, j.folder, j.clip_name, j.epoch, j.step, j.record::text, j.claim, old.claim, old.host,
                          (extract(epoch FROM now() - old.lease_until) * 1000)::bigint
                """, [folder, host, String(lease.wholeMilliseconds), claim])
            return rows.first.flatMap(Self.held)
        }
    }

    /// Renews the lease of a job this host holds, storing its newest record with it when
    /// given; refused when its epoch moved on. (A lease that ran out is renewed too while
    /// nobody took the job over: its epoch is the proof.)
    package func renew(_ held: Held, lease: Duration, record json: String? = nil) throws {
        let changed = try locked { db in
            try db.execute("""
                UPDATE dropcut_jobs SET lease_until = now() + $3::bigint * interval '1 millisecond', updated_at = now(),
                       record = COALESCE($4::jsonb, record)
                WHERE id = $1 AND epoch = $2::bigint AND state = 'claimed'
                """, [held.job, String(held.epoch), String(lease.wholeMilliseconds), json])
        }
        if changed != 1 { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
    }

    /// Puts back the row of a job this host holds whose row is gone (its table was dropped
    /// and made again): claimed by this host under the epoch it holds, with its newest
    /// record, its clip's key as the claim folder's copy has it. True when the row is back;
    /// false when the database has a row for the job, its claim or its clip already (the job
    /// was taken over, or its clip put back in the inbox by another host): then it is not
    /// this host's.
    package func adopt(_ held: Held, clip: Clip, lease: Duration, record json: String?) throws -> Bool {
        try locked { db in
            try db.execute("""
                INSERT INTO dropcut_jobs (id, claim, folder, clip_name, clip_size, clip_mtime_ns, state, host, epoch, lease_until, record)
                VALUES ($1, $2, $3, $4, $5::bigint, $6::bigint, 'claimed', $7, $8::bigint,
                        now() + $9::bigint * interval '1 millisecond', $10::jsonb)
                ON CONFLICT DO NOTHING
                """, [held.job, held.claim ?? held.job, clip.folder, clip.name, String(max(0, clip.size)), String(clip.modifiedNanoseconds),
                      host, String(held.epoch), String(lease.wholeMilliseconds), json]) == 1
        }
    }

    /// Which of `claims` (claim folders' names in `folder`'s inbox) a row names as its
    /// job's claim, in any state.
    package func claimsWithRows(in folder: String, among claims: [String]) throws -> Set<String> {
        guard !claims.isEmpty else { return [] }
        let json: String
        do { json = String(decoding: try JSONEncoder().encode(claims), as: UTF8.self) } catch { preconditionFailure("strings always encode: \(error)") }
        return try locked { db in
            Set(try db.query("""
                SELECT claim FROM dropcut_jobs
                WHERE folder = $1 AND claim IN (SELECT jsonb_array_elements_text($2::jsonb))
                """, [folder, json]).compactMap { $0.first ?? nil })
        }
    }

    /// Decides that the clip of claim folder `claim`, which no row accounts for, goes back to
    /// the inbox: a queued row under the claim's name and the clip's key. True when this
    /// call decided it; false when a row has the claim or the clip already (its holder put
    /// its row back first, or another host decided): then the folder is not touched. The
    /// claim's unique key is what makes the holder's `adopt` and this exclusive.
    package func putBack(claim: String, clip: Clip) throws -> Bool {
        try locked { db in
            try db.execute("""
                INSERT INTO dropcut_jobs (id, claim, folder, clip_name, clip_size, clip_mtime_ns, state)
                VALUES ($1, $1, $2, $3, $4::bigint, $5::bigint, 'queued')
                ON CONFLICT DO NOTHING
                """, [claim, clip.folder, clip.name, String(max(0, clip.size)), String(clip.modifiedNanoseconds)]) == 1
        }
    }

    /// Renames the clip of a queued job (its file came back to the inbox under another
    /// name, the first one being taken there).
    package func rename(queued job: String, to name: String) throws {
        try locked { db in
            try db.execute("UPDATE dropcut_jobs SET clip_name = $2, updated_at = now() WHERE id = $1 AND state = 'queued'", [job, name])
        }
    }

    /// Records that this host is about to take the irreversible step `step` (publish,
    /// archive, fail): allowed only while its epoch is the job's and its lease runs, both
    /// checked in the statement that records it.
    /// The job's record (JSON) is stored in the same statement when given: a taker
    /// resumes from the state the step was taken in.
    package func begin(step: String, of held: Held, record json: String? = nil) throws {
        let rows = try locked { db in
            try db.query("""
                WITH job AS (SELECT epoch, lease_until > now() AS live FROM dropcut_jobs WHERE id = $1),
                     moved AS (UPDATE dropcut_jobs SET step = $3, record = COALESCE($4::jsonb, record), updated_at = now()
                               WHERE id = $1 AND epoch = $2::bigint AND state = 'claimed' AND lease_until > now() RETURNING 1)
                SELECT (SELECT count(*) FROM moved), job.epoch, job.live FROM job
                """, [held.job, String(held.epoch), step, json])
        }
        guard let row = rows.first else { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
        if row[0] == "1" { return }
        if row[1] != String(held.epoch) { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
        throw Refusal.leaseExpired(job: held.job)
    }

    /// Ends a job this host holds (`done`, `failed`, or `missing`: its clip was gone from
    /// the inbox when the claim came to move it): its lease is dropped.
    package func finish(_ held: Held, as state: String) throws {
        precondition(["done", "failed", "missing"].contains(state), "a job ends done, failed or missing")
        let changed = try locked { db in
            try db.execute("""
                UPDATE dropcut_jobs SET state = $3, lease_until = NULL, updated_at = now()
                WHERE id = $1 AND epoch = $2::bigint AND state = 'claimed'
                """, [held.job, String(held.epoch), state])
        }
        if changed != 1 { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
    }

    /// Reserves `name` in `outbox` for the job before its file is published: true when it
    /// is this job's (now, or already: a rerun step after a crash), false when another
    /// running job holds it. A name of a job that ended passes on (its file, if it was
    /// published, is in the outbox, and the exclusive publish refuses it there). Refused
    /// when the job's epoch moved on.
    package func reserve(name: String, in outbox: String, for held: Held) throws -> Bool {
        let rows = try locked { db in
            try db.transaction {
                let current = try db.query("SELECT epoch FROM dropcut_jobs WHERE id = $1 FOR UPDATE", [held.job])
                guard current.first?.first == String(held.epoch) else { return [[String?]]?.none }
                return try db.query("""
                    INSERT INTO dropcut_output_names AS o (outbox, name, job, epoch) VALUES ($1, $2, $3, $4::bigint)
                    ON CONFLICT (outbox, name) DO UPDATE SET job = EXCLUDED.job, epoch = EXCLUDED.epoch, reserved_at = now()
                    WHERE o.job = EXCLUDED.job
                       OR NOT EXISTS (SELECT 1 FROM dropcut_jobs j WHERE j.id = o.job AND j.state IN ('queued', 'claimed'))
                    RETURNING job
                    """, [outbox, name, held.job, String(held.epoch)])
            }
        }
        guard let rows else { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
        return !rows.isEmpty
    }

    /// Stores the job's record (JSON) for a taker to resume from; refused when the job's
    /// epoch moved on (a taken-over holder must not overwrite the new holder's record).
    package func store(record json: String, for held: Held) throws {
        let changed = try locked { db in
            try db.execute("""
                UPDATE dropcut_jobs SET record = $3::jsonb, updated_at = now()
                WHERE id = $1 AND epoch = $2::bigint AND state = 'claimed'
                """, [held.job, String(held.epoch), json])
        }
        if changed != 1 { throw Refusal.epochMoved(job: held.job, held: held.epoch) }
    }

    /// The job whose current claim is `claim` while it is claimed, with its holder as the
    /// row names it; nil when no claimed row names that claim.
    package func claimedRow(claim: String) throws -> (held: Held, host: String)? {
        let rows = try locked { db in
            try db.query("""
                SELECT id, folder, clip_name, epoch, step, record::text, claim, host
                FROM dropcut_jobs WHERE claim = $1 AND state = 'claimed'
                """, [claim])
        }
        guard let row = rows.first, row.count == 8, let host = row[7], let held = Self.held(Array(row.prefix(7))),
              held.epoch > 0, held.claim == claim else { return nil }
        return (held, host)
    }

    /// The record stored for `job` (JSON), or nil when none is.
    package func storedRecord(of job: String) throws -> String? {
        try locked { db in try db.query("SELECT record::text FROM dropcut_jobs WHERE id = $1", [job]).first?.first ?? nil }
    }

    /// Every job held or waiting, and the newest `recent` that ended, across every host —
    /// leases measured by the database's clock.
    package func farm(recent: Int = 20) throws -> [FarmJob] {
        try locked { db in
            let rows = try db.query("""
                (SELECT id, folder, clip_name, state, host, epoch, extract(epoch FROM lease_until - now())::text, updated_at, record->>'state'
                 FROM dropcut_jobs WHERE state IN ('queued', 'claimed'))
                UNION ALL
                (SELECT id, folder, clip_name, state, host, epoch, NULL, updated_at, NULL
                 FROM dropcut_jobs WHERE state IN ('done', 'failed', 'abandoned', 'missing') ORDER BY updated_at DESC LIMIT $1::integer)
                ORDER BY updated_at DESC, id
                """, [String(max(0, min(recent, 10_000)))])
            return rows.compactMap(Self.farmJob)
        }
    }

    /// How many of the folder's jobs are in each state.
    package func counts(in folder: String) throws -> [String: Int] {
        try locked { db in
            let rows = try db.query("SELECT state, count(*) FROM dropcut_jobs WHERE folder = $1 GROUP BY state", [folder])
            var counts: [String: Int] = [:]
            for row in rows { if let state = row[0], let n = row[1].flatMap({ Int($0) }) { counts[state] = n } }
            return counts
        }
    }

    /// A row of `farm()`'s query; nil when it is not one (rows are read, never trusted).
    static func farmJob(_ row: [String?]) -> FarmJob? {
        guard row.count >= 7, let job = row[0], let folder = row[1], let clip = row[2], let state = row[3],
              let epoch = row[5].flatMap({ Int64($0) }) else { return nil }
        return FarmJob(job: job, folder: folder, clip: clip, state: state, host: row[4], epoch: epoch,
                       leaseLeft: row[6].flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil },
                       step: row.count > 8 ? row[8].flatMap { JobRecord.State(rawValue: $0)?.rawValue } : nil)
    }

    /// A row of a claim's or takeover's `RETURNING`; nil when it is not one.
    static func held(_ row: [String?]) -> Held? {
        guard row.count >= 6, let job = row[0], let folder = row[1], let clip = row[2], let epoch = row[3].flatMap({ Int64($0) }) else { return nil }
        return Held(job: job, folder: folder, clip: clip, epoch: epoch, claim: row.count > 6 ? row[6] : nil,
                    previousClaim: row.count > 7 ? row[7] : nil, previousHost: row.count > 8 ? row[8] : nil,
                    expiredMilliseconds: row.count > 9 ? row[9].flatMap { Int64($0) }.map { max(0, $0) } : nil,
                    step: row[4], record: row[5])
    }
}
