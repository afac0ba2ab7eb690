import Foundation
import Testing
import TestSupport
@testable import Daemon

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

    static func waitUntil(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}
