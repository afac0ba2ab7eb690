import Foundation
import TestSupport

/// The Debian package's files unpacked into a temporary root (`dpkg-deb -x`), as the
/// unit, catalog and package-content tests inspect them. The package is built once per
/// test process (`scripts/package`, lintian included) from the test build linked with the
/// Swift runtime inside (`scripts/link-static-debug`).
final class InstalledRoot: Sendable {
    let dir: TemporaryDirectory
    var path: String { dir.path }

    init() async throws {
        dir = try TemporaryDirectory(prefix: "dropcut-root")
        try await Command.runChecked("dpkg-deb", ["-x", try await Self.package(), dir.path])
    }

    /// The `.deb`, built once.
    static func package() async throws -> String {
        try await Built.shared.deb().deb
    }

    /// The binary the `.deb` was made from (the test build, linked with the runtime inside).
    static func packagedBinary() async throws -> String {
        try await Built.shared.deb().binary
    }

    /// `relative` (an absolute path on the target system) inside the root.
    func file(_ relative: String) -> String { path + relative }

    /// Makes the root usable by `systemd-analyze --root`, as a real system would be: the
    /// host's own system units (`sysinit.target` and the rest a service depends on) and
    /// the `/bin/kill` that ExecReload= runs.
    func addHostSystemFiles() async throws {
        let target = file("/usr/lib/systemd/system")
        if FileManager.default.fileExists(atPath: target) { return }
        try FileManager.default.createDirectory(atPath: file("/usr/lib/systemd"), withIntermediateDirectories: true)
        try await Command.runChecked("cp", ["-a", "/lib/systemd/system/.", target])
        // The package's own units, where the host's were (the host may have none of dropcut's).
        for unit in ["dropcut.service", "dropcut@.service", "dropcut.socket"] {
            try? FileManager.default.removeItem(atPath: target + "/" + unit)
        }
        try FileManager.default.createDirectory(atPath: file("/bin"), withIntermediateDirectories: true)
        guard let kill = Command.find("kill") else {
            throw CommandError(command: ["kill"], status: nil, stderr: "kill: not found on PATH (procps)")
        }
        try await Command.runChecked("cp", [kill, file("/bin/kill")])
    }

    /// The package, built by the first test that asks and kept for the others.
    private actor Built {
        static let shared = Built()
        private var task: Task<(deb: String, binary: String), Error>?
        private var dist: TemporaryDirectory?

        func deb() async throws -> (deb: String, binary: String) {
            if let task { return try await task.value }
            let dist = try TemporaryDirectory(prefix: "dropcut-dist")
            self.dist = dist
            let task = Task { () async throws -> (deb: String, binary: String) in
                let linked = try await Command.run(Repository.path("scripts/link-static-debug"), [])
                guard linked.status == 0 else {
                    throw CommandError(command: ["scripts/link-static-debug"], status: linked.status, stderr: linked.stderr)
                }
                let binary = linked.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let packaged = try await Command.run(Repository.path("scripts/package"), [],
                                                     environment: ["DROPCUT_BINARY": binary, "DROPCUT_DIST": dist.path])
                guard packaged.status == 0 else {
                    throw CommandError(command: ["scripts/package"], status: packaged.status, stderr: packaged.stderr)
                }
                return (deb: packaged.stdout.trimmingCharacters(in: .whitespacesAndNewlines), binary: binary)
            }
            self.task = task
            return try await task.value
        }
    }
}
