import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server (Debian's, `scripts/bootstrap` installs it) for one test: a
/// cluster made by `initdb` in a temporary folder, run on 127.0.0.1 (or an address in a
/// network namespace of the test's, `NetworkNamespaces`) at a free port as an
/// unprivileged user (`postgres` when the tests run as root: the server refuses root),
/// with a `dropcut` role and database. It can be restarted and paused, as the coordinator's
/// tests need, and is stopped when the object goes.
public final class PostgresServer: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let port: UInt16
    public var dataDirectory: String { directory.file("data") }
    private var process: Process?
    private let binaries: String
    /// The network namespace the server runs in (`ip netns exec`), nil for this process's.
    public let namespace: String?
    /// The address it listens on (in its namespace).
    public let address: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// libpq's connection string for the `dropcut` database.
    public var conninfo: String { "host=127.0.0.1 port=\(port) dbname=dropcut user=dropcut connect_timeout=5" }
    /// The same as a URI, as the config's `coordinator:` takes it.
    public var url: String { "postgresql://dropcut@\(address):\(port)/dropcut" }
    /// libpq's connection string through the server's Unix socket (in the test's folder):
    /// reachable from any network namespace, for a test whose server runs in one.
    public var socketConninfo: String { "host=\(directory.path) port=\(port) dbname=dropcut user=dropcut connect_timeout=5" }
    public var pid: Int32? { process?.processIdentifier }

    /// `namespace`: run the server in that network namespace (`ip netns exec`, as root),
    /// listening on `address` there, and trusting connections from `trusting` (a CIDR
    /// block: the namespaces' hosts) as well as loopback.
    public init(namespace: String? = nil, address: String = "127.0.0.1", trusting: String? = nil) async throws {
        self.namespace = namespace
        self.address = address
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
        if let trusting {
            let hba = URL(fileURLWithPath: dataDirectory + "/pg_hba.conf")
            let handle = try FileHandle(forWritingTo: hba)
            handle.seekToEndOfFile()
            handle.write(Data("host all all \(trusting) trust\n".utf8))
            try handle.close()
        }
        try start()
        let created = try await Command.run("\(binaries)/createdb", ["-h", directory.path, "-p", "\(port)", "-U", "dropcut", "dropcut"])
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
        let command = [Self.unprivileged()] + Self.prefix()
            + ["\(binaries)/postgres", "-D", dataDirectory, "-p", "\(port)", "-k", directory.path,
               "-c", "listen_addresses=\(address)", "-c", "fsync=off", "-c", "max_connections=200"]
        // `ip netns exec` execs the command in place: the process is still the server.
        let launched = namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] + command } ?? command
        server.executableURL = URL(fileURLWithPath: launched[0])
        server.arguments = Array(launched.dropFirst())
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
            // Through its socket, which every namespace reaches (listening is not yet
            // accepting: pg_isready asks).
            if FileManager.default.fileExists(atPath: directory.file(".s.PGSQL.\(port)")) {
                let ready = Process()
                ready.executableURL = URL(fileURLWithPath: "\(binaries)/pg_isready")
                ready.arguments = ["-h", directory.path, "-p", "\(port)", "-q"]
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
