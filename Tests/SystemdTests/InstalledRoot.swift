import Foundation
import TestSupport

/// `scripts/install` run into a temporary root (`DESTDIR`) with the debug build of
/// dropcut, as a packager would: the tree the unit, catalog and install tests inspect.
final class InstalledRoot: Sendable {
    let dir: TemporaryDirectory
    var path: String { dir.path }
    /// What the install printed.
    let output: String

    init() throws {
        dir = try TemporaryDirectory(prefix: "dropcut-root")
        output = try Self.install(into: dir.path)
    }

    /// Runs `scripts/install` (or `--uninstall`) into `root`; throws with its output when it fails.
    @discardableResult
    static func install(into root: String, uninstall: Bool = false) throws -> String {
        let result = try Command.run(Repository.path("scripts/install"), uninstall ? ["--uninstall"] : [],
                                     environment: ["DESTDIR": root,
                                                   "DROPCUT_BINARY": try BuildProducts.executable(named: "dropcut")])
        guard result.status == 0 else {
            throw CommandError(command: ["scripts/install"] + (uninstall ? ["--uninstall"] : []), status: result.status,
                               stderr: result.stderr + result.stdout)
        }
        return result.stdout + result.stderr
    }

    /// `install`, awaited without holding a thread of the concurrency pool (`OwnThread`).
    @discardableResult
    static func install(into root: String, uninstall: Bool = false) async throws -> String {
        try await OwnThread.run { try install(into: root, uninstall: uninstall) }
    }

    /// `relative` (an absolute path on the target system) inside the root.
    func file(_ relative: String) -> String { path + relative }

    /// The target paths the install recorded in its manifest.
    func manifest() throws -> [String] {
        try String(contentsOfFile: file("/usr/local/share/dropcut/install-manifest"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
    }

    /// Makes the root usable by `systemd-analyze --root`, as a real system would be: the
    /// host's own system units (`sysinit.target` and the rest a service depends on) and
    /// the `/bin/kill` that ExecReload= runs.
    func addHostSystemFiles() async throws {
        let target = file("/usr/lib/systemd/system")
        if FileManager.default.fileExists(atPath: target) { return }
        try FileManager.default.createDirectory(atPath: file("/usr/lib/systemd"), withIntermediateDirectories: true)
        try await Command.runChecked("cp", ["-a", "/lib/systemd/system", target])
        try FileManager.default.createDirectory(atPath: file("/bin"), withIntermediateDirectories: true)
        guard let kill = Command.find("kill") else {
            throw CommandError(command: ["kill"], status: nil, stderr: "kill: not found on PATH (procps)")
        }
        try await Command.runChecked("cp", [kill, file("/bin/kill")])
    }
}
