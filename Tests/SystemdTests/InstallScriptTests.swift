import Foundation
import Testing
import TestSupport

/// `scripts/install` into a temporary root: every file where it belongs with its mode, the
/// dropcut user and the example's folders created, idempotent, and `--uninstall` removing
/// exactly what it installed.
@Suite(.serialized, .tags(.slow)) struct InstallScriptTests {
    /// Every file the install must put in place, with its mode.
    static let expected: [(path: String, mode: Int)] = [
        ("/usr/local/bin/dropcut", 0o755),
        ("/etc/systemd/system/dropcut.service", 0o644),
        ("/etc/systemd/system/dropcut@.service", 0o644),
        ("/usr/local/lib/systemd/catalog/dropcut.catalog", 0o644),
        ("/usr/local/lib/sysusers.d/dropcut.conf", 0o644),
        ("/usr/local/lib/tmpfiles.d/dropcut.conf", 0o644),
        ("/usr/local/share/dropcut/dropcut.yaml.example", 0o644),
        ("/usr/local/share/dropcut/recipes/social-vertical.yaml", 0o644),
        ("/usr/local/share/dropcut/recipes/assets/logo.png", 0o644),
        ("/usr/local/share/dropcut/recipes/assets/bed.mp3", 0o644),
        ("/usr/local/share/doc/dropcut/README.md", 0o644),
    ]

    func status(_ path: String) throws -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return info
    }

    func mode(_ path: String) throws -> Int { Int(try status(path).st_mode & 0o7777) }

    func owner(_ path: String) throws -> (uid: UInt32, gid: UInt32) {
        let info = try status(path)
        return (info.st_uid, info.st_gid)
    }

    /// The tree's files and their contents' sizes and modes, to compare two runs.
    func snapshot(_ root: String) throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            let data = FileManager.default.contents(atPath: path) ?? Data()
            files[relative] = "\(try mode(path)) \(data.count) \(data.hashValue)"
        }
        return files
    }

    @Test func installsEveryFileWithItsModeTheUserFoldersAndConfig() throws {
        let root = try InstalledRoot()
        for (path, expectedMode) in Self.expected {
            #expect(FileManager.default.fileExists(atPath: root.file(path)), "\(path) installed")
            #expect(try mode(root.file(path)) == expectedMode, "\(path) mode")
        }
        let manifest = try root.manifest()
        for (path, _) in Self.expected { #expect(manifest.contains(path), "\(path) in the manifest") }
        // The binary is the one given, byte for byte.
        #expect(FileManager.default.contentsEqual(atPath: root.file("/usr/local/bin/dropcut"),
                                                  andPath: try BuildProducts.executable(named: "dropcut")))

        // The system user, from sysusers.d, in the root's own passwd.
        let passwd = try String(contentsOfFile: root.file("/etc/passwd"), encoding: .utf8)
        let entry = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("dropcut:") }).split(separator: ":")
        #expect(entry[5] == "/var/lib/dropcut" && entry[6] == "/usr/sbin/nologin")
        let uid = try #require(UInt32(entry[2])), gid = try #require(UInt32(entry[3]))

        // The example's folders, from tmpfiles.d: the dropcut user's, setgid, group-writable;
        // the inbox sticky too (members cannot replace each other's files).
        for folder in ["/srv/dropcut", "/srv/dropcut/phone", "/srv/dropcut/phone/inbox", "/srv/dropcut/phone/outbox", "/srv/dropcut/phone/failed",
                       "/srv/dropcut/phone/archive", "/srv/dropcut/assets"] {
            #expect(try mode(root.file(folder)) == (folder.hasSuffix("/inbox") ? 0o3775 : 0o2775), "\(folder) mode")
            #expect(try owner(root.file(folder)) == (uid, gid), "\(folder) owner")
        }
        // The config, from the example, which names those folders.
        let config = try String(contentsOfFile: root.file("/etc/dropcut/dropcut.yaml"), encoding: .utf8)
        // The example's text is the binary's (DaemonConfigTemplate), written by scripts/install.
        let example = try Command.runBlocking(BuildProducts.executable(named: "dropcut"), ["init", "--print-config"])
        #expect(example.status == 0 && config == example.stdout)
        #expect(config.contains("inbox: /srv/dropcut/phone/inbox"))
        // The catalog database was built.
        #expect(FileManager.default.fileExists(atPath: root.file("/var/lib/systemd/catalog/database")))
        #expect(root.output.contains("systemctl enable --now dropcut"), "next steps printed")
    }

    @Test func aSecondRunChangesNothingAndKeepsAnEditedConfig() async throws {
        let root = try InstalledRoot()
        let config = root.file("/etc/dropcut/dropcut.yaml")
        try "# mine\n".write(toFile: config, atomically: true, encoding: .utf8)
        let before = try snapshot(root.path)
        let output = try await InstalledRoot.install(into: root.path)
        #expect(output.contains("kept /etc/dropcut/dropcut.yaml"))
        #expect(try snapshot(root.path) == before)
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "# mine\n")
    }

    @Test func uninstallRemovesWhatItInstalledAndNothingOfTheUsers() async throws {
        let root = try InstalledRoot()
        let manifest = try root.manifest()
        #expect(manifest.count >= Self.expected.count)
        // Something of the user's in the folders the install made.
        try "clip".write(toFile: root.file("/srv/dropcut/phone/inbox/clip.mp4"), atomically: true, encoding: .utf8)
        // Enabled, as the next steps say (systemctl works on a root without a running systemd).
        try await Command.runChecked("systemctl", ["--root=\(root.path)", "enable", "dropcut.service", "dropcut@second.service"])
        let wants = root.file("/etc/systemd/system/multi-user.target.wants")
        #expect(try FileManager.default.contentsOfDirectory(atPath: wants).sorted() == ["dropcut.service", "dropcut@second.service"])

        let output = try await InstalledRoot.install(into: root.path, uninstall: true)
        for path in manifest {
            #expect(!FileManager.default.fileExists(atPath: root.file(path)), "\(path) removed")
        }
        #expect(!FileManager.default.fileExists(atPath: root.file("/usr/local/share/dropcut")))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: wants)) ?? []) == [], "disabled")
        #expect(FileManager.default.fileExists(atPath: root.file("/etc/dropcut/dropcut.yaml")), "the config is the user's")
        #expect(FileManager.default.fileExists(atPath: root.file("/srv/dropcut/phone/inbox/clip.mp4")), "folders are the user's")
        #expect(FileManager.default.fileExists(atPath: root.file("/srv/dropcut/phone/archive")))
        #expect(output.contains("Kept:"))
        // Again: nothing left to do, and no error.
        #expect(try await InstalledRoot.install(into: root.path, uninstall: true).contains("nothing to do"))
    }
}
