import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Folders the daemon cannot use (issue 56): `dropcut watch --check` exits 1 naming the
/// folder and what is missing, and the daemon refuses to start — exit 1, no READY=1 —
/// instead of saying ready and failing every clip. The tests run as root, for whom
/// access(2) grants writing into a mode 0555 folder: a folder made unwritable is on a
/// read-only bind mount (in a mount namespace of the command's own), and a folder that
/// cannot be searched is checked by a command run as user nobody.
@Suite(.tags(.slow), .serialized) struct FolderStartCheckTests {
    /// `unshare -m sh -c '…; exec "$@"'`: the command that follows runs in a mount
    /// namespace of its own where `folder` is bind-mounted on itself, read-only when
    /// `readOnly`.
    static func bindMount(_ folder: String, readOnly: Bool) -> [String] {
        let remount = readOnly ? "; mount -o remount,bind,ro \"$1\" \"$1\"" : ""
        return ["/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
                "set -e; mount --bind \"$1\" \"$1\"\(remount); shift; exec \"$@\"", "sh", folder]
    }

    /// `wrapper` then `dropcut watch --check --config …`.
    static func check(_ h: DaemonHarness, wrapper: [String] = []) async throws -> (status: Int32, stdout: String, stderr: String) {
        let command = wrapper + [try BuildProducts.executable(named: "dropcut"), "watch", "--check", "--config", h.configPath]
        return try await Command.run(command[0], Array(command.dropFirst()))
    }

    /// Starts the daemon with a notify socket and waits for it to end; returns its status
    /// and whether it said READY=1.
    static func start(_ h: DaemonHarness, wrapper: [String] = []) async throws -> (status: Int32?, ready: Bool) {
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path], wrapper: wrapper)
        let status = await daemon.wait(timeout: .seconds(30))
        if status == nil { daemon.signal(SIGKILL) }
        return (status, socket.messages.contains { $0.contains("READY=1") })
    }

    @Test func anOutboxThatIsAFileStopsTheCheckAndTheStart() async throws {
        let h = try DaemonHarness()
        try "not a folder".write(toFile: h.outbox, atomically: false, encoding: .utf8)
        let expected = "dropcut watch: outbox \(h.outbox) (folder '\(h.folderName)') exists but is a regular file, not a folder"
        let checked = try await Self.check(h)
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stderr.contains(expected), "\(checked.stderr)")
        let started = try await Self.start(h)
        #expect(started.status == 1 && !started.ready, "\(started) \(h.daemonLog)")
        #expect(h.daemonLog.contains(expected), "\(h.daemonLog)")
        // The same config with a folder there: checked and started.
        try FileManager.default.removeItem(atPath: h.outbox)
        let fixed = try await Self.check(h)
        #expect(fixed.status == 0 && fixed.stdout.contains(": OK, 1 folder(s)") && fixed.stdout.contains("folders checked as user"),
                "\(fixed.stdout)\(fixed.stderr)")
    }

    @Test func aFailedFolderOnAReadOnlyFilesystemStopsTheCheckAndTheStart() async throws {
        let h = try DaemonHarness()
        try FileManager.default.createDirectory(atPath: h.failed, withIntermediateDirectories: true)
        let expected = "dropcut watch: failed folder \(h.failed) (folder '\(h.folderName)') is not usable by user root: "
            + "write and search permission denied (Read-only file system)"
        // The wrapper alone changes nothing: the check passes with the folder writable.
        let writable = try await Self.check(h, wrapper: Self.bindMount(h.failed, readOnly: false))
        #expect(writable.status == 0, "\(writable.stdout)\(writable.stderr)")
        let checked = try await Self.check(h, wrapper: Self.bindMount(h.failed, readOnly: true))
        #expect(checked.status == 1, "\(checked.stdout)")
        #expect(checked.stderr.contains(expected), "\(checked.stderr)")
        // What a hardened unit without the folder in its drop-in looks like: said so.
        #expect(checked.stderr.contains("the unit's ReadWritePaths= may not list it"), "\(checked.stderr)")
        let started = try await Self.start(h, wrapper: Self.bindMount(h.failed, readOnly: true))
        #expect(started.status == 1 && !started.ready, "\(started) \(h.daemonLog)")
        #expect(h.daemonLog.contains(expected), "\(h.daemonLog)")
    }

    /// A reload (SIGHUP) whose config has a folder the daemon cannot use is refused, the
    /// previous config kept, and the daemon goes on.
    @Test func aReloadWithAnUnusableFolderKeepsThePreviousConfig() async throws {
        let h = try DaemonHarness()
        let socket = try NotifySocket(path: h.dir.file("notify.sock"))
        let daemon = try h.startDaemon(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(await socket.wait { $0.contains("READY=1") }, "\(h.daemonLog)")
        try FileManager.default.createDirectory(atPath: h.dir.file("inbox2"), withIntermediateDirectories: true)
        try "not a folder".write(toFile: h.dir.file("outbox2"), atomically: false, encoding: .utf8)
        try h.writeConfig(extraFolders: "- { name: second, inbox: inbox2, outbox: outbox2, failed: failed2, after_success: delete }")
        daemon.signal(SIGHUP)
        let expected = "outbox \(h.dir.file("outbox2")) (folder 'second') exists but is a regular file, not a folder"
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("config reload failed") && h.daemonLog.contains(expected) },
                "\(h.daemonLog)")
        #expect(!h.daemonLog.contains("config reloaded"), "\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }

    /// Run by root, `--check` checks as the service's user: a failed folder only root may
    /// write into fails as user nobody, and passes as root; a state folder the units make
    /// passes before it exists; an unknown user is an error.
    @Test func checkByRootIsAsTheServiceUser() async throws {
        let h = try DaemonHarness()
        chmod(h.dir.path, 0o755)
        for folder in [h.inbox, h.outbox, h.archive, h.state] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            chown(folder, 65534, 65534)
        }
        try FileManager.default.createDirectory(atPath: h.failed, withIntermediateDirectories: true)
        chmod(h.failed, 0o755)
        let dropcut = try BuildProducts.executable(named: "dropcut")
        let asNobody = try await Command.run(dropcut, ["watch", "--check", "--config", h.configPath, "--service-user", "nobody"])
        #expect(asNobody.status == 1, "\(asNobody.stdout)")
        #expect(asNobody.stderr == "dropcut watch: failed folder \(h.failed) (folder '\(h.folderName)') is not usable by user nobody: "
                    + "write and search permission denied (Permission denied)\n", "\(asNobody.stderr)")
        let asRoot = try await Command.run(dropcut, ["watch", "--check", "--config", h.configPath, "--service-user", "root"])
        #expect(asRoot.status == 0 && asRoot.stdout.contains("folders checked as user root, the service's"), "\(asRoot.stdout)\(asRoot.stderr)")
        // A state folder where the units' StateDirectory= makes it (and gives it to the
        // service user at start) passes before it exists; one elsewhere must be makeable.
        chown(h.failed, 65534, 65534)
        let unitState = "/var/lib/dropcut/check-\(h.folderName)", otherState = "/var/lib/dropcut-check-\(h.folderName)"
        try h.writeConfig(state: unitState)
        let unitMade = try await Command.run(dropcut, ["watch", "--check", "--config", h.configPath, "--service-user", "nobody"])
        #expect(unitMade.status == 0 && !FileManager.default.fileExists(atPath: unitState), "\(unitMade.stdout)\(unitMade.stderr)")
        try h.writeConfig(state: otherState)
        let elsewhere = try await Command.run(dropcut, ["watch", "--check", "--config", h.configPath, "--service-user", "nobody"])
        #expect(elsewhere.status == 1 && elsewhere.stderr.contains("state folder \(otherState) does not exist and cannot be made: user nobody cannot create"),
                "\(elsewhere.stderr)")
        let unknown = try await Command.run(dropcut, ["watch", "--check", "--config", h.configPath, "--service-user", "no-such-user-56"])
        #expect(unknown.status == 1 && unknown.stderr.contains("--service-user no-such-user-56: this machine has no such user"), "\(unknown.stderr)")
    }

    /// An inbox under a folder its user cannot search says so, not "does not exist".
    @Test func anInboxUnderAnUnsearchableParentSaysPermissionDenied() async throws {
        let h = try DaemonHarness()
        chmod(h.dir.path, 0o755)
        let locked = h.dir.file("locked"), inbox = h.dir.file("locked/inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        chmod(locked, 0o000)
        defer { chmod(locked, 0o755) }
        try String(contentsOfFile: h.configPath, encoding: .utf8).replacingOccurrences(of: "inbox: inbox", with: "inbox: locked/inbox")
            .write(toFile: h.configPath, atomically: false, encoding: .utf8)
        chmod(h.configPath, 0o644)
        let checked = try await Self.check(h, wrapper: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        // The config's own check (at the inbox's line): EX_CONFIG.
        #expect(checked.status == 78)
        #expect(checked.stderr.contains("inbox \(inbox) cannot be reached: user nobody cannot search its parent folder \(locked) (permission denied)"),
                "\(checked.stderr)")
        #expect(!checked.stderr.contains("does not exist"), "\(checked.stderr)")
    }
}
