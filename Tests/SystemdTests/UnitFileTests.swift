import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// `systemd/dropcut.service` and `dropcut@.service`, as installed: systemd's own checker
/// accepts them (with the folders drop-in the config produces), their sandbox rates
/// "safe", and their timeouts agree with the daemon's.
@Suite(.serialized, .tags(.slow)) struct UnitFileTests {
    /// A config whose folders live in `dir`, and the drop-in `dropcut watch --check
    /// --unit-drop-in` writes for it, installed where an admin puts it.
    func installDropIn(in root: InstalledRoot, folders dir: TemporaryDirectory) async throws -> String {
        for name in ["in", "assets"] {
            try FileManager.default.createDirectory(atPath: dir.file(name), withIntermediateDirectories: true)
        }
        try """
            state_dir: state
            folders:
              - name: main
                inbox: in
                outbox: "out box"
                failed: failed
                archive: archive
                assets: [assets]

            """.write(toFile: dir.file("dropcut.yaml"), atomically: true, encoding: .utf8)
        let dropIn = try await Command.runChecked(BuildProducts.executable(named: "dropcut"),
                                            ["watch", "--config", dir.file("dropcut.yaml"), "--check", "--unit-drop-in"])
        let folder = root.file("/etc/systemd/system/dropcut.service.d")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try dropIn.write(toFile: folder + "/50-folders.conf", atomically: true, encoding: .utf8)
        return dropIn
    }

    @Test func systemdAnalyzeVerifyAcceptsBothUnitsWithTheFoldersDropIn() async throws {
        let root = try await InstalledRoot()
        try await root.addHostSystemFiles()
        let folders = try TemporaryDirectory()
        let dropIn = try await installDropIn(in: root, folders: folders)
        #expect(dropIn.contains("RequiresMountsFor=\"\(folders.file("out box"))\""))
        #expect(dropIn.contains("ReadWritePaths=-\(folders.file("in"))"))
        // The outbox, failed, archive and state folders are made by dropcut at start:
        // the folder above them is what must be writable.
        #expect(dropIn.contains("ReadWritePaths=-\(folders.path)\n"))
        #expect(!dropIn.contains("out box\"\n[Service]") && !dropIn.contains("ReadWritePaths=\"-\(folders.file("out box"))"))
        if folders.path.hasPrefix("/tmp/") || folders.path.hasPrefix("/var/tmp/") {
            #expect(dropIn.contains("PrivateTmp=no"), "the test's folders are in the host's /tmp")
        }

        let verify = try await Command.run("systemd-analyze", ["verify", "--root=\(root.path)", "dropcut.service", "dropcut@pipeline.service"])
        print("systemd-analyze verify: status \(verify.status)\n\(verify.stderr)")
        #expect(verify.status == 0)
        #expect(verify.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "warnings: \(verify.stderr)")

        // The check can fail: without the binary ExecStart names, verify refuses the unit.
        try FileManager.default.removeItem(atPath: root.file("/usr/bin/dropcut"))
        let broken = try await Command.run("systemd-analyze", ["verify", "--root=\(root.path)", "dropcut.service"])
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("/usr/bin/dropcut"))
    }

    /// `systemd-analyze security --offline=yes` rates the sandbox; 0 is best, 10 worst.
    func exposure(_ unit: String, root: InstalledRoot) async throws -> Double {
        let result = try await Command.run("systemd-analyze", ["security", "--offline=yes", "--no-pager", "--root=\(root.path)", unit])
        let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for") }
        guard let line, let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap({ Double($0) }) else {
            throw CommandError(command: ["systemd-analyze", "security", unit], status: result.status, stderr: result.stderr + result.stdout)
        }
        print("systemd-analyze security \(unit): \(line.trimmingCharacters(in: .whitespaces))")
        return score
    }

    @Test func sandboxExposureIsAtMostTwo() async throws {
        let root = try await InstalledRoot()
        try await root.addHostSystemFiles()
        #expect(try await exposure("dropcut.service", root: root) <= 2.0)
        #expect(try await exposure("dropcut@pipeline.service", root: root) <= 2.0)
        let folders = try TemporaryDirectory()
        _ = try await installDropIn(in: root, folders: folders)
        #expect(try await exposure("dropcut.service", root: root) <= 2.0, "with the folders drop-in")

        // The score can fail: the same unit without its sandbox rates far worse.
        let unit = root.file("/lib/systemd/system/dropcut.service")
        let bare = try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n")
            .filter { line in !["Protect", "Private", "Restrict", "SystemCall", "Capability", "NoNewPrivileges", "MemoryDeny", "LockPersonality"]
                .contains { line.hasPrefix($0) } }
            .joined(separator: "\n")
        try bare.write(toFile: unit, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: root.file("/etc/systemd/system/dropcut.service.d"))
        #expect(try await exposure("dropcut.service", root: root) > 5.0)
    }

    /// The unit's directives, last value wins (as systemd reads them).
    func directives(_ name: String) throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try String(contentsOfFile: Repository.path("systemd/\(name)"), encoding: .utf8).split(separator: "\n") {
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// Every value of a directive the unit gives more than once (ExecReload=), in order.
    func values(_ key: String, of name: String) throws -> [String] {
        try String(contentsOfFile: Repository.path("systemd/\(name)"), encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    @Test func timeoutsAndNotificationAgreeWithTheDaemon() throws {
        for name in ["dropcut.service", "dropcut@.service"] {
            let unit = try directives(name)
            #expect(unit["Type"] == "notify", "\(name): READY=1 after recovery")
            // A reload checks the config first (a config the daemon would reject fails it,
            // non-zero), then signals; a config with a mistake exits 78 and is not restarted.
            let config = name == "dropcut.service" ? "/etc/dropcut/dropcut.yaml" : "/etc/dropcut/%i.yaml"
            #expect(try values("ExecReload", of: name) == ["/usr/bin/dropcut watch --check --quiet --config \(config)",
                                                           "/bin/kill -HUP $MAINPID"], "\(name): check, then SIGHUP")
            #expect(unit["Restart"] == "on-failure" && unit["RestartPreventExitStatus"] == "78")
            #expect(unit["StartLimitBurst"] != nil && unit["StartLimitIntervalSec"] != nil)
            #expect(unit["User"] == "dropcut" && unit["CapabilityBoundingSet"] == "")
            // SIGTERM: running jobs get stop_timeout, then are cancelled; systemd must wait
            // longer than that before its SIGKILL.
            let stop = try #require(unit["TimeoutStopSec"].flatMap { Int($0.dropLast()) })
            let defaultStop = DaemonConfig(path: "", stateDirectory: "", folders: []).stopTimeout
            #expect(Duration.seconds(stop) >= defaultStop + .seconds(10), "\(name): TimeoutStopSec=\(stop)s")
            // The scheduler pings at half WATCHDOG_USEC; a minute leaves room for slow disks.
            #expect(unit["WatchdogSec"] == "60s")
            // Not systemd's soft 1024: the daemon keeps a quarter for rendering and gives the
            // HTTP listener's connections at most the rest (issue 45).
            #expect(unit["LimitNOFILE"].flatMap { Int($0) }.map { $0 >= 4096 } == true, "\(name): LimitNOFILE=\(unit["LimitNOFILE"] ?? "unset")")
        }
        #expect(try directives("dropcut.service")["ExecStart"] == "/usr/bin/dropcut watch --config /etc/dropcut/dropcut.yaml")
        #expect(try directives("dropcut@.service")["ExecStart"] == "/usr/bin/dropcut watch --config /etc/dropcut/%i.yaml")
        #expect(try directives("dropcut@.service")["StateDirectory"] == "dropcut/%i")
    }
}
