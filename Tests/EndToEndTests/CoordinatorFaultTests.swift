import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real daemons against a coordinator that is damaged or answers errors (issue 45): a
/// dropped `dropcut_jobs` (mid-run, and while every host is down), a schema missing a
/// column, permission denied, a full disk, warnings from the server — and `watch --once`
/// with a coordinator, which must exit. The database is a real PostgreSQL the test starts
/// (`PostgresServer`), damaged by the test's own connection as a person would with psql.
@Suite(.serialized, .tags(.slow)) struct CoordinatorFaultTests {
    typealias Host = ScaleOutTests.Host

    static func superuser(_ server: PostgresServer) throws -> PostgresConnection {
        try PostgresConnection(conninfo: server.conninfo, target: "test")
    }

    static func rows(_ server: PostgresServer) throws -> [String: Int] { try FarmTests.rows(server) }

    static func count(_ text: String, in log: String) -> Int { log.components(separatedBy: text).count - 1 }

    /// `watch --once` with a coordinator renders what is there, prints its summary and
    /// exits (it once never did): within a bound, with status 0.
    @Test func watchOnceWithACoordinatorExits() async throws {
        let database = try await PostgresServer()
        let h = try DaemonHarness(extraSettings: "coordinator: \(database.url)\nlease_timeout: 3")
        try h.drop("a.mp4")
        try h.drop("b.mp4")
        let started = ContinuousClock.now
        // `timeout` kills a run that does not exit (status 137), so a hang fails, not stalls.
        let result = try await Command.run("/usr/bin/timeout", ["-s", "KILL", "60", try BuildProducts.executable(named: "dropcut"),
                                                                "watch", "--once", "--config", h.configPath])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "status \(result.status) after \(elapsed)\n\(result.stderr)")
        #expect(result.stdout.contains("dropcut watch --once: 2 done, 0 failed"), "\(result.stdout)")
        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(h.files(h.outbox) == ["a.dropcut.mp4", "b.dropcut.mp4"] && h.claimedLeftovers() == [])
        #expect(try Self.rows(database) == ["done": 2])
        print("CoordinatorFaultTests: watch --once with a coordinator exited \(result.status) after \(elapsed)")
    }

    /// `dropcut_jobs` dropped (CASCADE) while two hosts render — first while both are
    /// stopped (paused, the table dropped, then killed: the restart finds the record saying
    /// migrated and the table gone), then while both run. Each time the schema is made again
    /// (said once), the jobs in flight put their rows back rather than being given up as
    /// "taken over", every clip is rendered and published once, and nothing is left in
    /// `.dropcut/claimed/`.
    @Test func aDroppedJobsTableStrandsNoClip() async throws {
        try Journald.ensureRunning()
        let database = try await PostgresServer()
        let h = try ScaleOutTests.Share(.directory)
        let hosts = try ["host-a", "host-b"].map { try FarmTests.host($0, h, database, leaseTimeout: 3) }
        for host in hosts { try host.start() }
        let first = (0..<6).map { String(format: "p%02d.mp4", $0) }
        try ScaleOutTests.drop(first, into: h, seconds: 3, size: "320x240")
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) {
            hosts.allSatisfy { host in !host.workers.isEmpty && host.records.contains { $0.state == .rendering } }
        }, "\(hosts.map(\.log))")
        // Both stopped mid-render, the table dropped behind their backs, both killed.
        let stopped = hosts.map { [$0.pid] + $0.workers }
        for pids in stopped { for pid in pids { kill(pid, SIGSTOP) } }
        try Self.superuser(database).execute("DROP TABLE dropcut_jobs CASCADE")
        for host in hosts { host.daemon?.signal(SIGKILL) }
        for host in hosts { #expect(await host.daemon?.wait() == 128 + SIGKILL) }
        for pids in stopped { for pid in pids { kill(pid, SIGKILL) } }
        let inFlight = h.claimedLeftovers().filter { !$0.contains("/") }
        #expect(inFlight.count >= 2, "claims in flight at the drop: \(h.claimedLeftovers())")
        #expect(try CoordinatorSchema.versions(Self.superuser(database)) == CoordinatorSchema.migrations.map(\.version),
                "the record still says migrated")

        for host in hosts { try host.start() }
        #expect(await DaemonHarness.waitUntil(.seconds(90)) { h.files(h.archive).count >= first.count }, "\(hosts.map(\.log).joined(separator: "\n"))")
        let logs = hosts.map(\.log).joined(separator: "\n")
        #expect(Self.count("schema was made again", in: logs) == 1, "\(logs)")
        #expect(Self.count("had no row in the coordinator", in: logs) == inFlight.count, "\(logs)")
        #expect(!logs.contains("took it over while this one was down") && !logs.contains("abandoned"), "\(logs)")

        // Again, with both running: they see the table gone, make it again themselves.
        let second = (0..<4).map { String(format: "q%02d.mp4", $0) }
        try ScaleOutTests.drop(second, into: h, seconds: 3, size: "320x240")
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) {
            hosts.allSatisfy { host in host.records.contains { second.contains($0.input) && $0.state == .rendering } }
        }, "\(hosts.map(\.log))")
        let before = hosts.map(\.log)
        try Self.superuser(database).execute("DROP TABLE dropcut_jobs CASCADE")
        let all = first + second
        #expect(await DaemonHarness.waitUntil(.seconds(90)) { h.files(h.archive).count >= all.count }, "\(hosts.map(\.log).joined(separator: "\n"))")
        DaemonHarness.sleepBlocking(1.5)   // a renewal or two: nothing more to say
        for host in hosts { #expect(await host.stop() == 0, "\(host.log)") }
        let after = zip(hosts, before).map { host, before in String(host.log.dropFirst(before.count)) }
        let joined = after.joined(separator: "\n")
        #expect(Self.count("schema was made again", in: joined) == 1, "\(joined)")
        #expect(Self.count("had no row in the coordinator", in: joined) >= 2, "both jobs in flight put their rows back\n\(joined)")
        for log in after {
            #expect(Self.count("SQLSTATE 42P01: relation \"dropcut_jobs\" does not exist", in: log) <= 1, "\(log)")
        }
        #expect(Self.count("SQLSTATE 42P01", in: joined) >= 1, "the hosts met the missing table\n\(joined)")
        #expect(!joined.contains("abandoned") && !joined.contains("cannot be reached"), "\(joined)")
        FarmTests.expectEachRenderedOnce(all, h, hosts)
        #expect(try Self.rows(database) == ["done": second.count], "the rows since the second drop")
    }

    /// A host stopped mid-render, its job's row dropped with the table, the host never
    /// back: no row and no record of any running host accounts for its claim folder. The
    /// other host puts the clip back in the inbox after `lease_timeout` and renders it;
    /// nothing stays in `.dropcut/claimed/`.
    @Test func aClaimNoJobAccountsForGoesBackToTheInbox() async throws {
        let database = try await PostgresServer()
        let h = try ScaleOutTests.Share(.directory)
        let gone = try FarmTests.host("host-a", h, database, leaseTimeout: 3)
        let other = try FarmTests.host("host-b", h, database, leaseTimeout: 3)
        try gone.start()
        let names = ["r0.mp4", "r1.mp4", "r2.mp4"]
        try ScaleOutTests.drop(names, into: h, seconds: 3, size: "320x240")
        #expect(DaemonHarness.waitUntilBlocking(.seconds(30)) { !gone.workers.isEmpty && gone.records.contains { $0.state == .rendering } },
                "\(gone.log)")
        let stopped = [gone.pid] + gone.workers
        for pid in stopped { kill(pid, SIGSTOP) }
        try Self.superuser(database).execute("DROP TABLE dropcut_jobs CASCADE")
        gone.daemon?.signal(SIGKILL)
        #expect(await gone.daemon?.wait() == 128 + SIGKILL)
        for pid in stopped { kill(pid, SIGKILL) }
        let stranded = h.claimedLeftovers().filter { !$0.contains("/") }
        #expect(stranded.count == 1, "\(h.claimedLeftovers())")
        let clip = try #require(gone.records.first { $0.state == .rendering }?.input)

        try other.start()
        #expect(await DaemonHarness.waitUntil(.seconds(60)) { h.files(h.archive).count >= names.count }, "\(other.log)")
        #expect(await other.stop() == 0)
        let log = other.log
        #expect(Self.count("put \(clip) back in the inbox: its claim \(stranded[0]) had no job", in: log) == 1, "\(log)")
        #expect(h.claimedLeftovers() == [], "\(h.claimedLeftovers())")
        #expect(h.files(h.outbox) == names.map { ($0 as NSString).deletingPathExtension + ".dropcut.mp4" }.sorted())
        #expect(h.files(h.archive, hidden: true) == names && h.files(h.inbox) == [] && h.files(h.failed) == [])
        let done = other.records.filter { $0.state == .done }.map(\.input).sorted()
        #expect(done == names, "\(done)")
        #expect(try Self.rows(database) == ["done": names.count])
    }

    /// A column gone from `dropcut_jobs` (its rows still there): the daemon refuses to
    /// start, says what is missing and what to do, and never says ready.
    @Test func aDamagedSchemaIsRefusedAtStart() async throws {
        let database = try await PostgresServer()
        let connection = try Self.superuser(database)
        try CoordinatorSchema.migrate(connection, host: "setup")
        try connection.execute("ALTER TABLE dropcut_jobs DROP COLUMN lease_until")
        let h = try ScaleOutTests.Share(.directory)
        let host = try FarmTests.host("host-a", h, database, leaseTimeout: 3)
        try host.start(waitForReady: false)
        #expect(await host.daemon?.wait(timeout: .seconds(20)) == 1, "\(host.log)")
        #expect(host.log.contains("dropcut_jobs lacks column lease_until") && host.log.contains("dropcut does not start on it"), "\(host.log)")
        #expect(!host.log.contains("dropcut ready"), "\(host.log)")
    }

    /// Errors the server answers — permission denied (42501), then a full disk (53100) for
    /// writes while reads succeed — are each logged once with their SQLSTATE and the
    /// server's message, and their end once, though every poll (0.1 s) meets them for
    /// seconds; the server's warnings go to the log, never to stderr as libpq's raw
    /// `WARNING:` lines; nothing says the database cannot be reached.
    @Test func serverErrorsAreLoggedOncePerConditionAndWarningsNeverReachStderr() async throws {
        try Journald.ensureRunning()
        let database = try await PostgresServer()
        let admin = try Self.superuser(database)
        // A role that is not a superuser (privileges apply to it) and owns dropcut's tables.
        try admin.execute("CREATE ROLE farmer LOGIN")
        try admin.execute("GRANT CREATE ON SCHEMA public TO farmer")
        let h = try ScaleOutTests.Share(.directory)
        let host = try Host("host-a", h, via: h.root, leaseTimeout: 3,
                            coordinator: "postgresql://farmer@127.0.0.1:\(database.port)/dropcut")
        try host.start()
        try admin.execute("""
            CREATE FUNCTION dropcut_test_warn() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN RAISE WARNING 'dropcut test warning'; RETURN NEW; END $$
            """)
        try admin.execute("CREATE TRIGGER warn BEFORE UPDATE ON dropcut_jobs FOR EACH ROW EXECUTE FUNCTION dropcut_test_warn()")
        try ScaleOutTests.drop(["w.mp4"], into: h, seconds: 0.2, size: "64x64")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { host.log.contains("done w.mp4") }, "\(host.log)")

        // Permission denied, for every statement, for 2.5 s (25 polls, a farm read every 2 s).
        try admin.execute("ALTER TABLE dropcut_jobs OWNER TO dropcut")
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { host.log.contains("SQLSTATE 42501") }, "\(host.log)")
        try await Task.sleep(for: .seconds(2.5))
        try admin.execute("ALTER TABLE dropcut_jobs OWNER TO farmer")
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { host.log.contains("no longer answers SQLSTATE 42501") }, "\(host.log)")

        // A full disk for writes only: the clip cannot be offered; the farm is still read.
        try admin.execute("""
            CREATE FUNCTION dropcut_test_full() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100'; END $$
            """)
        try admin.execute("CREATE TRIGGER disk_full BEFORE INSERT ON dropcut_jobs FOR EACH ROW EXECUTE FUNCTION dropcut_test_full()")
        try ScaleOutTests.drop(["f.mp4"], into: h, seconds: 0.2, size: "64x64")
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { host.log.contains("SQLSTATE 53100") }, "\(host.log)")
        try await Task.sleep(for: .seconds(2.5))
        #expect(h.files(h.inbox) == ["f.mp4"], "claimed while nothing could be written")
        try admin.execute("DROP TRIGGER disk_full ON dropcut_jobs")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { host.log.contains("done f.mp4") }, "\(host.log)")
        #expect(await host.stop() == 0)

        let log = host.log
        #expect(Self.count("answered with an error: SQLSTATE 42501: permission denied for table dropcut_jobs", in: log) == 1, "\(log)")
        #expect(Self.count("no longer answers SQLSTATE 42501", in: log) == 1, "\(log)")
        #expect(Self.count("answered with an error: SQLSTATE 53100: could not extend file: No space left on device", in: log) == 1, "\(log)")
        #expect(Self.count("no longer answers SQLSTATE 53100", in: log) == 1, "\(log)")
        #expect(log.components(separatedBy: "\n").filter { $0.contains("answered with an error") }.count == 2, "\(log)")
        #expect(!log.contains("cannot be reached") && !log.contains("did not answer"), "\(log)")
        // The trigger's warnings went through the logger; libpq printed none of its own.
        #expect(log.contains("the coordinator's server says: WARNING: dropcut test warning"), "\(log)")
        let raw = log.components(separatedBy: "\n").filter { $0.hasPrefix("WARNING:") || $0.hasPrefix("NOTICE:") }
        #expect(raw.isEmpty, "libpq's own lines on stderr: \(raw)")
        // The journal has each condition once too, with its SQLSTATE as a field.
        let entries = ((try? await Journald.entries(matching: "MESSAGE_ID", value: MessageID.coordinatorError.rawValue)) ?? [])
            .filter { $0["_PID"] == String(host.pid) }
        #expect(entries.compactMap { $0["DROPCUT_SQLSTATE"] }.sorted() == ["42501", "53100"], "\(entries)")
    }
}
