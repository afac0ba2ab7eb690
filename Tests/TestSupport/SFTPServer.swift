import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real OpenSSH server (Debian's `openssh-server`) run by the test itself on 127.0.0.1 and
/// a free port, serving SFTP to one key the test generated, so `SSHFSMount` can mount a
/// folder through `sshfs` — a real network filesystem, with its caches, its error mapping
/// and its missing features, on this machine and nowhere else.
///
/// Everything lives in its own folder `<tmp>/dropcut-sshfs-<test pid>-<uuid>/`: sshd's
/// config, host key, authorized key, pid file and log, the client's config and known
/// hosts. sshd runs in the foreground (`-D`) as this process's child and listens on
/// 127.0.0.1 only; the client config names 127.0.0.1 and checks the server's host key.
///
/// Two SFTP subsystems: `sftp` (the normal server) and `sftp-nolink`, the same
/// `sftp-server` with `-P hardlink`, which denies the `hardlink@openssh.com` request: a
/// mount through it has no hard links (`link()` fails with EPERM), like SMB and other
/// filesystems without them.
///
/// `stop()` (also run by `deinit`) kills sshd and removes the folder; a test that fails
/// still releases the server. A test process that died before that (a crash) leaves its
/// folder behind, which the next server started finds by its dead pid and cleans up
/// (`SSHFSLeftovers`).
public final class SFTPServer: @unchecked Sendable {
    /// The harness's own folder (config, keys, pid file, log; `export/` to share).
    public let directory: String
    /// The TCP port on 127.0.0.1.
    public let port: UInt16
    /// sshd's process id (a child of this process).
    public let pid: pid_t
    /// The ssh client config that reaches this server as host `dropcut-test`.
    public let clientConfig: String
    private let lock = NSLock()
    private var stopped = false

    /// The SFTP subsystem with hard links refused.
    public static let noHardLinksSubsystem = "sftp-nolink"

    /// Paths of the OpenSSH programs (Debian's layout).
    static let sshd = "/usr/sbin/sshd"
    static let sftpServer = "/usr/lib/openssh/sftp-server"

    /// Generates the keys, writes the configs and starts sshd; returns once it accepts
    /// connections. Throws a `CommandError` naming what is missing or what sshd said.
    public init() throws {
        SSHFSLeftovers.removeThoseOfDeadTests()
        for program in [Self.sshd, Self.sftpServer] where !FileManager.default.isExecutableFile(atPath: program) {
            throw CommandError(command: [program], status: nil,
                               stderr: "\(program) not found: run scripts/bootstrap (openssh-server, openssh-sftp-server)")
        }
        guard geteuid() == 0 else {
            throw CommandError(command: [Self.sshd], status: nil,
                               stderr: "the SFTP test server needs root (sshd's privilege separation, FUSE mounts)")
        }
        let base = FileManager.default.temporaryDirectory.path
        let directory = (base as NSString).appendingPathComponent("\(SSHFSLeftovers.prefix)\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory + "/export", withIntermediateDirectories: true)
        self.directory = directory
        func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        do {
            for key in ["host_key", "client_key"] {
                try Command.runChecked("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "dropcut-test", "-f", file(key)])
            }
            try FileManager.default.copyItem(atPath: file("client_key.pub"), toPath: file("authorized_keys"))
            // sshd refuses to start without its privilege separation folder (made by the
            // package's service, which never ran here).
            if access("/run/sshd", F_OK) != 0 { mkdir("/run/sshd", 0o755) }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }

        var lastError: Error = CommandError(command: [Self.sshd], status: nil, stderr: "not started")
        // A free port is found by binding port 0, then given to sshd: another program may
        // take it in between, so a failed bind is tried again on another port.
        for _ in 0..<5 {
            let port: UInt16
            do { port = try Self.freePort() } catch { lastError = error; continue }
            try Self.sshdConfig(directory: directory, port: port).write(toFile: file("sshd_config"), atomically: true, encoding: .utf8)
            unlink(file("sshd.pid"))
            let pid: pid_t
            do {
                pid = try Spawn.child([Self.sshd, "-D", "-f", file("sshd_config"), "-E", file("sshd.log")], output: "/dev/null")
            } catch { lastError = error; continue }
            if Self.waitUntilListening(pid: pid, port: port) {
                self.port = port
                self.pid = pid
                self.clientConfig = file("ssh_config")
                let hostKey = try String(contentsOfFile: file("host_key.pub"), encoding: .utf8)
                    .split(separator: " ").prefix(2).joined(separator: " ")
                try "[127.0.0.1]:\(port) \(hostKey)\n".write(toFile: file("known_hosts"), atomically: true, encoding: .utf8)
                try Self.clientConfig(directory: directory, port: port).write(toFile: clientConfig, atomically: true, encoding: .utf8)
                return
            }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let log = (try? String(contentsOfFile: file("sshd.log"), encoding: .utf8)) ?? ""
            lastError = CommandError(command: [Self.sshd, "-D", "-f", file("sshd_config")], status: Spawn.exitStatus(status),
                                     stderr: "sshd did not listen on 127.0.0.1:\(port): \(log)")
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw lastError
    }

    /// The folder this server shares (`export/` in its folder).
    public var export: String { (directory as NSString).appendingPathComponent("export") }

    /// What sshd logged (for a failing test's message).
    public var log: String {
        (try? String(contentsOfFile: (directory as NSString).appendingPathComponent("sshd.log"), encoding: .utf8)) ?? ""
    }

    /// Stops sshd (SIGTERM, then SIGKILL after two seconds), waits for it, and removes
    /// its folder. Unmount every `SSHFSMount` of it first (a mount holds its server, so
    /// `deinit` order does that by itself). Idempotent.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        Self.terminate(pid)
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    /// sshd's config: 127.0.0.1 only, the test's key only (root may log in with it: the
    /// mounts run as root, and files made through them are root's, as the daemon's own
    /// files are the daemon user's), no PAM, no password, the two SFTP subsystems.
    static func sshdConfig(directory: String, port: UInt16) -> String {
        """
        ListenAddress 127.0.0.1
        Port \(port)
        HostKey \(directory)/host_key
        PidFile \(directory)/sshd.pid
        AuthorizedKeysFile \(directory)/authorized_keys
        PermitRootLogin prohibit-password
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        UsePAM no
        StrictModes no
        X11Forwarding no
        AllowTcpForwarding no
        AllowAgentForwarding no
        PermitTunnel no
        MaxSessions 64
        MaxStartups 64
        Subsystem sftp \(sftpServer)
        Subsystem \(noHardLinksSubsystem) \(sftpServer) -P hardlink

        """
    }

    /// The client's config: host `dropcut-test` is 127.0.0.1 on `port`, reached with the
    /// test's key and no other, its host key checked against the one generated here.
    static func clientConfig(directory: String, port: UInt16) -> String {
        """
        Host dropcut-test
          HostName 127.0.0.1
          Port \(port)
          User root
          IdentityFile \(directory)/client_key
          IdentitiesOnly yes
          UserKnownHostsFile \(directory)/known_hosts
          GlobalKnownHostsFile /dev/null
          StrictHostKeyChecking yes
          BatchMode yes
          ConnectTimeout 10
          ServerAliveInterval 5

        """
    }

    /// A TCP port free a moment ago on every address, below the kernel's ephemeral range
    /// (`ip_local_port_range`, 32768–60999 by default) and never handed out twice by this
    /// process. Not "bind to port 0": that port is from the ephemeral range, which the
    /// kernel also gives to outgoing connections — any test's client, apt downloading in
    /// the package check — so one could take it before the server bound it (seen:
    /// systemd-socket-activate's "Failed to listen on 0.0.0.0:53195: Address already in use").
    static func freePort() throws -> UInt16 {
        for _ in 0..<500 {
            let port = UInt16.random(in: 20_000...32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
        throw CommandError(command: ["bind 0.0.0.0:20000-32000"], status: nil, stderr: "no free port in 500 tries")
    }

    /// The ports `freePort` gave this process, never given twice.
    private static let handedOut = Mutex<Set<UInt16>>([])

    /// Whether 0.0.0.0:`port` (and so every address) can be bound now.
    private static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        address.sin_addr.s_addr = 0
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    /// Waits (10 s at most) until sshd has written its pid file and 127.0.0.1:`port`
    /// accepts a connection; false if sshd exited or never did.
    static func waitUntilListening(pid: pid_t, port: UInt16) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }

    /// SIGTERM to this process's child `pid`, SIGKILL after two seconds; reaps it.
    static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited == -1 && errno == ECHILD) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}
