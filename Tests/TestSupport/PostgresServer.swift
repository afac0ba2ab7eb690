import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server (Debian's, `scripts/bootstrap` installs it) for one test: a
/// cluster made by `initdb` in a temporary folder, run on 127.0.0.1 at a free port as an
/// unprivileged user (`postgres` when the tests run as root: the server refuses root),
/// with a `dropcut` role and database. It can be restarted and paused, as the coordinator's
/// tests need, and is stopped when the object goes.
public final class PostgresServer: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let port: UInt16
    public var dataDirectory: String { directory.file("data") }
    private var process: Process?
    private let binaries: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// libpq's connection string for the `dropcut` database.
    public var conninfo: String { "host=127.0.0.1 port=\(port) dbname=dropcut user=dropcut connect_timeout=5" }
    /// The same as a URI, as the config's `coordinator:` takes it.
    public var url: String { "postgresql://dropcut@127.0.0.1:\(port)/dropcut" }
    public var pid: Int32? { process?.processIdentifier }

    public init() async throws {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        guard let newest = versions.last else { throw Failure(description: "no PostgreSQL server under \(root) (scripts/bootstrap installs postgresql)") }
        binaries = "\(root)/\(newest)/bin"
        directory = try TemporaryDirectory(prefix: "dropcut-postgres")
        port = try HTTPExchange.freePort()
        if getuid() == 0 {
            guard let user = getpwnam("postgres") else { throw Failure(description: "no postgres user to run the server as") }
            chmod(directory.path, 0o700)
            chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let initdb = try await Command.run(Self.unprivileged(), Self.prefix() + ["\(binaries)/initdb", "-D", dataDirectory, "-U", "dropcut",
                                                                             "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
        guard initdb.status == 0 else { throw Failure(description: "initdb: \(initdb.stderr)") }
        try start()
        let created = try await Command.run("\(binaries)/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "dropcut", "dropcut"])
        guard created.status == 0 else { throw Failure(description: "createdb: \(created.stderr)") }
    }

    deinit { stop(signal: SIGQUIT) }

    /// `setpriv` to the postgres user when running as root (it execs in place, so the
    /// process is the server itself: signals reach it), else the command as it is.
    static func unprivileged() -> String { getuid() == 0 ? "/usr/bin/setpriv" : "/usr/bin/env" }
    static func prefix() -> [String] { getuid() == 0 ? ["--reuid=postgres", "--regid=postgres", "--clear-groups", "--reset-env"] : [] }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.unprivileged())
        server.arguments = Self.prefix() + ["\(binaries)/postgres", "-D", dataDirectory, "-p", "\(port)", "-k", directory.path,
                                            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200"]
        let log = directory.file("server.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        server.standardOutput = handle
        server.standardError = handle
        try server.run()
        process = server
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !server.isRunning { throw Failure(description: "postgres exited: \(self.log)") }
            if let fd = try? HTTPExchange.connect(port: port, timeout: 1) {
                close(fd)
                // Listening is not yet accepting: ask pg_isready.
                let ready = Process()
                ready.executableURL = URL(fileURLWithPath: "\(binaries)/pg_isready")
                ready.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-q"]
                try ready.run()
                ready.waitUntilExit()
                if ready.terminationStatus == 0 { return }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "postgres did not accept connections within 30 s: \(self.log)")
    }

    /// Stops the server: SIGQUIT is `pg_ctl stop -m immediate` (no checkpoint, as a crash),
    /// SIGINT a fast shutdown.
    public func stop(signal: Int32 = SIGINT) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGCONT)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        self.process = nil
    }

    /// `pg_ctl restart -m immediate`: stopped as by a crash, then started again.
    public func restartImmediately() throws {
        stop(signal: SIGQUIT)
        try start()
    }

    /// SIGSTOP / SIGCONT of the server: the postmaster and every backend (each connection
    /// has a process of its own), so connections and statements hang while it is paused.
    public func pause() { for pid in processes() { kill(pid, SIGSTOP) } }
    public func resume() { for pid in processes() { kill(pid, SIGCONT) } }

    /// The postmaster and its children.
    func processes() -> [Int32] {
        guard let root = process?.processIdentifier else { return [] }
        return [root] + ProcessInspection.children(of: root)
    }

    public var log: String { (try? String(contentsOfFile: directory.file("server.log"), encoding: .utf8)) ?? "" }
}
