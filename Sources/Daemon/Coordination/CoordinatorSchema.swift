import Foundation

/// The PostgreSQL coordinator's tables, created and migrated by dropcut itself: numbered
/// migrations, each applied once, in order, in one transaction with its row in
/// `dropcut_schema`. Hosts that start together race to migrate; a transaction-scoped
/// advisory lock makes them take turns, and the ones after the first find nothing to do.
package enum CoordinatorSchema {
    /// One step of the schema.
    package struct Migration: Sendable {
        package var version: Int
        package var summary: String
        package var sql: [String]
    }

    /// The advisory lock migrations hold ("drop" in ASCII): one key for every dropcut.
    static let lockKey = "1685221232"

    /// Every migration, oldest first. Never edit one that has shipped: add the next.
    package static let migrations: [Migration] = [
        Migration(version: 1, summary: "jobs with their clip's key, holder, lease and epoch; output names", sql: [
            """
            CREATE TABLE dropcut_jobs (
                id text PRIMARY KEY,
                folder text NOT NULL,
                clip_name text NOT NULL,
                clip_size bigint NOT NULL CHECK (clip_size >= 0),
                clip_mtime_ns bigint NOT NULL,
                state text NOT NULL CHECK (state IN ('queued', 'claimed', 'done', 'failed', 'abandoned')),
                host text,
                epoch bigint NOT NULL DEFAULT 0 CHECK (epoch >= 0),
                lease_until timestamptz,
                step text,
                record jsonb,
                created_at timestamptz NOT NULL DEFAULT now(),
                updated_at timestamptz NOT NULL DEFAULT now(),
                UNIQUE (folder, clip_name, clip_size, clip_mtime_ns)
            )
            """,
            "CREATE INDEX dropcut_jobs_by_state ON dropcut_jobs (folder, state, created_at)",
            """
            CREATE TABLE dropcut_output_names (
                outbox text NOT NULL,
                name text NOT NULL,
                job text NOT NULL REFERENCES dropcut_jobs (id),
                epoch bigint NOT NULL,
                reserved_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (outbox, name)
            )
            """,
        ]),
        Migration(version: 2, summary: "each job's current claim (the holder's job id, its claim folder's name); clips gone before their claim", sql: [
            "ALTER TABLE dropcut_jobs ADD COLUMN claim text",
            "UPDATE dropcut_jobs SET claim = id",
            "CREATE UNIQUE INDEX dropcut_jobs_by_claim ON dropcut_jobs (claim)",
            "ALTER TABLE dropcut_jobs DROP CONSTRAINT dropcut_jobs_state_check",
            """
            ALTER TABLE dropcut_jobs ADD CONSTRAINT dropcut_jobs_state_check
                CHECK (state IN ('queued', 'claimed', 'done', 'failed', 'abandoned', 'missing'))
            """,
            "CREATE INDEX dropcut_jobs_by_lease ON dropcut_jobs (folder, lease_until) WHERE state = 'claimed'",
        ]),
    ]

    /// The newest version this dropcut knows.
    package static var latest: Int { migrations.last?.version ?? 0 }

    /// Every table the migrations make, with its columns, as of `latest`. Checked against a
    /// freshly migrated database by `CoordinatorSchemaTests`, so it cannot drift from the
    /// migrations; a new migration that adds a table or column adds it here.
    package static let expected: [String: Set<String>] = [
        "dropcut_jobs": ["id", "folder", "clip_name", "clip_size", "clip_mtime_ns", "state", "host", "epoch", "lease_until",
                         "step", "record", "created_at", "updated_at", "claim"],
        "dropcut_output_names": ["outbox", "name", "job", "epoch", "reserved_at"],
    ]

    /// A schema dropcut will not work on (`SchemaVerdict.refuse`): newer than this dropcut,
    /// or damaged in a way it does not repair. The daemon refuses to start on it.
    package struct Refused: Error, Sendable, CustomStringConvertible {
        package var target: String
        package var reason: String
        package var description: String { "the coordinator \(target) cannot be used: \(reason)" }
    }

    /// What `prepare` did: the versions it applied, and why it made the schema again (nil
    /// when it did not).
    package struct Outcome: Sendable, Equatable {
        package var applied: [Int]
        package var recreated: String?
    }

    /// Brings the database up to `latest`, returning the versions this call applied (none
    /// when another host was first). A database migrated past what this dropcut knows is
    /// refused: an older dropcut must not write to tables it does not understand.
    @discardableResult
    package static func migrate(_ connection: PostgresConnection, host: String) throws -> [Int] {
        try prepare(connection, host: host).applied
    }

    /// `migrate`, and then the tables checked against `expected` (`SchemaVerdict`): a
    /// record that says migrated while `dropcut_jobs` is gone is not believed — the schema
    /// is made again — and other damage is refused (`Refused`). Never returns on a schema
    /// that is not what the migrations made.
    package static func prepare(_ connection: PostgresConnection, host: String) throws -> Outcome {
        try connection.transaction {
            // "relation already exists, skipping" is no news at every start (libpq would
            // print it on stderr, outside the journal's structure).
            try connection.execute("SET LOCAL client_min_messages = warning")
            try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey])
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS dropcut_schema (
                    version integer PRIMARY KEY,
                    summary text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now(),
                    applied_by text NOT NULL
                )
                """)
            var applied = Set(try integers(connection.query("SELECT version FROM dropcut_schema")))
            if let newest = applied.max(), newest > latest {
                throw Refused(target: connection.target,
                              reason: "the database's schema is version \(newest), newer than this dropcut's \(latest): upgrade dropcut on this host")
            }
            var recreated: String?
            switch SchemaVerdict.judge(applied: applied, latest: latest, tables: try tables(connection), expected: expected) {
            case .intact:
                return Outcome(applied: [], recreated: nil)
            case let .refuse(reason):
                throw Refused(target: connection.target, reason: reason)
            case let .recreate(reason):
                // Its rows are gone already; what is left refers to them (output names).
                for table in expected.keys.sorted(by: >) { try connection.execute("DROP TABLE IF EXISTS \(table) CASCADE") }
                try connection.execute("DELETE FROM dropcut_schema")
                applied = []
                recreated = reason
            case .migrate:
                break
            }
            var done: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.sql { try connection.execute(statement) }
                try connection.execute("INSERT INTO dropcut_schema (version, summary, applied_by) VALUES ($1::integer, $2, $3)",
                                       [String(migration.version), migration.summary, host])
                done.append(migration.version)
            }
            let after = Set(try integers(connection.query("SELECT version FROM dropcut_schema")))
            switch SchemaVerdict.judge(applied: after, latest: latest, tables: try tables(connection), expected: expected) {
            case .intact: return Outcome(applied: done, recreated: recreated)
            case let .refuse(reason), let .recreate(reason): throw Refused(target: connection.target, reason: reason)
            case .migrate: throw Refused(target: connection.target, reason: "migrations \(after.sorted()) recorded, \(latest) expected")
            }
        }
    }

    /// dropcut's tables in the connection's schema (`search_path`'s first), each with its
    /// columns, from `information_schema` (what exists, not what the record says).
    static func tables(_ connection: PostgresConnection) throws -> [String: Set<String>] {
        let rows = try connection.query("""
            SELECT c.table_name, c.column_name FROM information_schema.columns c
            WHERE c.table_schema = current_schema() AND c.table_name = ANY($1::text[])
            """, ["{" + expected.keys.sorted().joined(separator: ",") + "}"])
        var tables: [String: Set<String>] = [:]
        for row in rows {
            guard row.count == 2, let table = row[0], let column = row[1] else { continue }
            tables[table, default: []].insert(column)
        }
        return tables
    }

    /// The versions applied, oldest first.
    package static func versions(_ connection: PostgresConnection) throws -> [Int] {
        integers(try connection.query("SELECT version FROM dropcut_schema ORDER BY version"))
    }

    /// The first column of `rows` as integers.
    static func integers(_ rows: [[String?]]) -> [Int] {
        rows.compactMap { row in row.first.flatMap { $0 }.flatMap { Int($0) } }
    }
}
