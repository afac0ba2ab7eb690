import Foundation
import Testing
import TestSupport
@testable import DropcutDaemon

/// The coordinator's schema on a real PostgreSQL: created by dropcut, each migration
/// applied once however many hosts start together, a newer database refused.
@Suite(.tags(.slow)) struct CoordinatorSchemaTests {
    @Test func migratesOnceAndKeepsTheClipKeyUnique() async throws {
        let server = try await PostgresServer()
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "test")
        #expect(try CoordinatorSchema.migrate(connection, host: "a") == CoordinatorSchema.migrations.map(\.version))
        #expect(try CoordinatorSchema.migrate(connection, host: "a") == [])
        #expect(try CoordinatorSchema.versions(connection) == CoordinatorSchema.migrations.map(\.version))
        let insert = "INSERT INTO dropcut_jobs (id, folder, clip_name, clip_size, clip_mtime_ns, state) VALUES ($1, 'f', 'clip.mov', 10, 5, 'queued')"
        try connection.execute(insert, ["job-1"])
        do {
            try connection.execute(insert, ["job-2"])
            Issue.record("a second job for the same clip was accepted")
        } catch {
            #expect(error.isUniqueViolation, "\(error)")
        }
        // The same name reserved twice in one outbox: refused by the key.
        try connection.execute("INSERT INTO dropcut_output_names (outbox, name, job, epoch) VALUES ('/out', 'clip.mp4', 'job-1', 1)")
        do {
            try connection.execute("INSERT INTO dropcut_output_names (outbox, name, job, epoch) VALUES ('/out', 'clip.mp4', 'job-1', 2)")
            Issue.record("one output name was reserved twice")
        } catch {
            #expect(error.isUniqueViolation, "\(error)")
        }
    }

    /// Three hosts start at once. The race is made certain: a fourth connection holds the
    /// migration lock until all three are seen waiting for it in `pg_locks`; then exactly
    /// one applies the migrations and the others find nothing to do.
    @Test func threeHostsStartingTogetherMigrateOnce() async throws {
        let server = try await PostgresServer()
        let holder = try PostgresConnection(conninfo: server.conninfo, target: "holder")
        try holder.execute("SELECT pg_advisory_lock($1::bigint)", [CoordinatorSchema.lockKey])
        let results = try await withThrowingTaskGroup(of: [Int].self) { group in
            for host in ["a", "b", "c"] {
                group.addTask {
                    try await OwnThread.run {
                        let connection = try PostgresConnection(conninfo: server.conninfo, target: host)
                        return try CoordinatorSchema.migrate(connection, host: host)
                    }
                }
            }
            let waiting = try await Self.waitUntil {
                let rows = try holder.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                return CoordinatorSchema.integers(rows) == [3]
            }
            #expect(waiting, "the three migrations were not all waiting for the lock")
            try holder.execute("SELECT pg_advisory_unlock($1::bigint)", [CoordinatorSchema.lockKey])
            var all: [[Int]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { !$0.isEmpty } == [CoordinatorSchema.migrations.map(\.version)], "\(results)")
        #expect(results.filter { $0.isEmpty }.count == 2)
        let applied = try holder.query("SELECT version, applied_by FROM dropcut_schema")
        #expect(applied.count == CoordinatorSchema.migrations.count, "\(applied)")
    }

    @Test func aNewerDatabaseIsRefusedAndAnUnreachableOneNamed() async throws {
        let server = try await PostgresServer()
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "test")
        try CoordinatorSchema.migrate(connection, host: "a")
        try connection.execute("INSERT INTO dropcut_schema (version, summary, applied_by) VALUES (999, 'future', 'z')")
        do {
            try CoordinatorSchema.migrate(connection, host: "a")
            Issue.record("a schema newer than this dropcut was accepted")
        } catch {
            #expect("\(error)".contains("version 999, newer than this dropcut's"), "\(error)")
        }
        let closed = try HTTPExchange.freePort()
        do {
            _ = try PostgresConnection(conninfo: "host=127.0.0.1 port=\(closed) dbname=x user=x connect_timeout=2", target: "127.0.0.1:\(closed)/x")
            Issue.record("a connection to a closed port succeeded")
        } catch {
            #expect(error.description.contains("127.0.0.1:\(closed)/x"), "\(error)")
            #expect(error.description.lowercased().contains("connect"), "\(error)")
        }
    }

    /// `CoordinatorSchema.expected` is what the migrations make, exactly: read back from
    /// `information_schema` of a freshly migrated database (so it cannot drift).
    @Test func theExpectedTablesAreWhatTheMigrationsMake() async throws {
        let server = try await PostgresServer()
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "test")
        try CoordinatorSchema.migrate(connection, host: "a")
        let rows = try connection.query("""
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name LIKE 'dropcut\\_%' AND table_name <> 'dropcut_schema'
            """)
        var made: [String: Set<String>] = [:]
        for row in rows { made[row[0] ?? "", default: []].insert(row[1] ?? "") }
        #expect(made == CoordinatorSchema.expected)
    }

    /// The record says migrated, `dropcut_jobs` is gone (dropped with CASCADE, its rows
    /// with it): the schema is made again, said why, and every table is usable; the output
    /// names of the jobs that no longer exist go with it.
    @Test func aDroppedJobsTableIsMadeAgainThoughTheRecordSaysMigrated() async throws {
        let server = try await PostgresServer()
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "test")
        try CoordinatorSchema.migrate(connection, host: "a")
        try connection.execute("INSERT INTO dropcut_jobs (id, claim, folder, clip_name, clip_size, clip_mtime_ns, state) VALUES ('j', 'j', 'f', 'c.mov', 1, 1, 'claimed')")
        try connection.execute("INSERT INTO dropcut_output_names (outbox, name, job, epoch) VALUES ('o', 'c.mp4', 'j', 1)")
        try connection.execute("DROP TABLE dropcut_jobs CASCADE")
        #expect(try CoordinatorSchema.versions(connection) == CoordinatorSchema.migrations.map(\.version), "the record still says migrated")
        let outcome = try CoordinatorSchema.prepare(connection, host: "b")
        #expect(outcome.applied == CoordinatorSchema.migrations.map(\.version))
        #expect(outcome.recreated?.contains("dropcut_jobs does not exist") == true, "\(String(describing: outcome.recreated))")
        #expect(try CoordinatorSchema.tables(connection) == CoordinatorSchema.expected)
        #expect(try connection.query("SELECT count(*) FROM dropcut_output_names") == [["0"]])
        let applied = try connection.query("SELECT applied_by FROM dropcut_schema")
        #expect(applied.allSatisfy { $0 == ["b"] } && applied.count == CoordinatorSchema.migrations.count, "\(applied)")
        // And then it is intact: nothing more to do.
        #expect(try CoordinatorSchema.prepare(connection, host: "c") == CoordinatorSchema.Outcome(applied: [], recreated: nil))
    }

    /// Damage that making the schema again would make worse is refused, saying what is
    /// wrong: a column gone from a table that still has its rows; dropcut's tables without
    /// a record of their migrations. Nothing is changed.
    @Test func otherDamageIsRefusedWithWhatIsWrong() async throws {
        let server = try await PostgresServer()
        let connection = try PostgresConnection(conninfo: server.conninfo, target: "test")
        try CoordinatorSchema.migrate(connection, host: "a")
        try connection.execute("ALTER TABLE dropcut_jobs DROP COLUMN step")
        do {
            try CoordinatorSchema.prepare(connection, host: "a")
            Issue.record("a table without its step column was accepted")
        } catch let refused as CoordinatorSchema.Refused {
            #expect(refused.reason.contains("dropcut_jobs lacks column step"), "\(refused)")
        }
        #expect(try CoordinatorSchema.tables(connection)["dropcut_jobs"]?.contains("step") == false, "left as it was")
        try connection.execute("DELETE FROM dropcut_schema")
        do {
            try CoordinatorSchema.prepare(connection, host: "a")
            Issue.record("tables without a record of their migrations were accepted")
        } catch let refused as CoordinatorSchema.Refused {
            #expect(refused.reason.contains("dropcut_schema records no migration"), "\(refused)")
        }
    }

    static func waitUntil(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}
