import Foundation
import Testing
import TestSupport

/// What the Debian package holds, unpacked: every file where it belongs with its mode, the
/// conffile, the maintainer scripts, and `Depends:` computed from the binary. (What the
/// maintainer scripts do on a real system — the user, the folders, upgrade, remove,
/// purge — is PackageInstallTests'.)
@Suite(.tags(.slow)) struct PackageContentsTests {
    /// Every file the package must hold, with its mode.
    static let expected: [(path: String, mode: Int)] = [
        ("/usr/bin/dropcut", 0o755),
        ("/lib/systemd/system/dropcut.service", 0o644),
        ("/lib/systemd/system/dropcut@.service", 0o644),
        ("/lib/systemd/system/dropcut.socket", 0o644),
        ("/usr/lib/systemd/catalog/dropcut.catalog", 0o644),
        ("/usr/lib/sysusers.d/dropcut.conf", 0o644),
        ("/usr/lib/tmpfiles.d/dropcut.conf", 0o644),
        ("/etc/dropcut/dropcut.yaml", 0o644),
        ("/usr/share/doc/dropcut/README.md", 0o644),
        ("/usr/share/dropcut/prometheus/dropcut.rules.yml", 0o644),
        ("/usr/share/dropcut/prometheus/dropcut.rules.test.yml", 0o644),
        ("/usr/share/doc/dropcut/copyright", 0o644),
        ("/usr/share/doc/dropcut/changelog.gz", 0o644),
        ("/usr/share/doc/dropcut/docs/daemon.md", 0o644),
        ("/usr/share/doc/dropcut/examples/social-vertical.yaml", 0o644),
        ("/usr/share/doc/dropcut/examples/assets/logo.png", 0o644),
        ("/usr/share/man/man1/dropcut-render.1.gz", 0o644),
        ("/usr/share/bash-completion/completions/dropcut", 0o644),
    ]

    func mode(_ path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Int(info.st_mode & 0o7777)
    }

    @Test func everyFileIsWhereItBelongsWithItsMode() async throws {
        let root = try await InstalledRoot()
        for (path, expectedMode) in Self.expected {
            #expect(FileManager.default.fileExists(atPath: root.file(path)), "\(path) packaged")
            #expect((try? mode(root.file(path))) == expectedMode, "\(path) mode")
        }
        // Nothing in the admin's places: /usr/local, /srv (the postinst makes the folders).
        #expect(!FileManager.default.fileExists(atPath: root.file("/usr/local")))
        #expect(!FileManager.default.fileExists(atPath: root.file("/srv")))
        // The conffile is the config `dropcut init --print-config` prints, which validates.
        let config = try String(contentsOfFile: root.file("/etc/dropcut/dropcut.yaml"), encoding: .utf8)
        let printed = try await DropcutProcess.run(["init", "--print-config"])
        #expect(config == printed.stdout)
        // Every example recipe's assets are there: each validates from the packaged folder.
        let examples = root.file("/usr/share/doc/dropcut/examples")
        let recipes = try FileManager.default.contentsOfDirectory(atPath: examples).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(recipes.count >= 10, "\(recipes)")
        let validated = try await DropcutProcess.run(["validate"] + recipes.map { examples + "/" + $0 })
        #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
    }

    @Test func controlNamesTheConffileTheScriptsAndTheLibrariesTheBinaryLinks() async throws {
        let deb = try await InstalledRoot.package()
        let control = try await Command.runChecked("dpkg-deb", ["-f", deb])
        let depends = try #require(control.split(separator: "\n").first { $0.hasPrefix("Depends: ") })
        for package in ["libavcodec59", "libavformat59", "libswscale6", "libswresample4", "libsystemd0", "libfreetype6",
                        "libharfbuzz0b", "libfribidi0", "libpq5", "libcurl4", "libopencv-objdetect406",
                        "systemd", "procps", "fonts-dejavu-core", "fonts-noto-core"] {
            #expect(depends.contains(package + " ") || depends.contains(package + ",") || depends.hasSuffix(package), "\(package) in \(depends)")
        }
        #expect(!depends.contains("swift"), "\(depends)")
        let scripts = try TemporaryDirectory(prefix: "dropcut-control")
        try await Command.runChecked("dpkg-deb", ["-e", deb, scripts.path])
        #expect(try String(contentsOfFile: scripts.file("conffiles"), encoding: .utf8) == "/etc/dropcut/dropcut.yaml\n")
        for script in ["postinst", "prerm", "postrm"] {
            #expect((try? mode(scripts.file(script))) == 0o755, "\(script)")
        }
    }
}
