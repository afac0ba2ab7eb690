import Foundation
import Testing
@testable import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The folders a config names, checked as the daemon will use them (`FolderCheck`): a
/// file where a folder should be, a folder that cannot be made, a claims folder on
/// another filesystem. (Permissions and read-only filesystems: `FolderStartCheckTests`,
/// which runs `dropcut watch` in a mount namespace or as another user.)
@Suite struct FolderCheckTests {
    static func config(_ dir: TemporaryDirectory, outbox: String = "out", failed: String = "failed") -> DaemonConfig {
        DaemonConfig(path: dir.file("dropcut.yaml"), stateDirectory: dir.file("state"),
                     folders: [FolderConfig(name: "f", inbox: dir.file("in"), outbox: dir.file(outbox), failed: dir.file(failed),
                                            afterSuccess: .delete)])
    }

    @Test func foldersThatExistOrCanBeMadePass() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        // outbox, failed and state are missing: the daemon makes them.
        #expect(FolderCheck(config: Self.config(dir, outbox: "deep/er/out")).problems() == [])
    }

    @Test func aFileWhereAFolderShouldBeIsNamed() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try "x".write(toFile: dir.file("out"), atomically: false, encoding: .utf8)
        try "x".write(toFile: dir.file("file"), atomically: false, encoding: .utf8)
        let problems = FolderCheck(config: Self.config(dir, failed: "file/failed")).problems()
        #expect(problems == [
            "outbox \(dir.file("out")) (folder 'f') exists but is a regular file, not a folder",
            "failed folder \(dir.file("file/failed")) (folder 'f') cannot be reached: \(dir.file("file")) is not a folder",
        ])
    }

    /// `.dropcut` on a filesystem of its own: a claim's rename out of the inbox would
    /// fail with EXDEV for every clip.
    @Test func claimsFolderOnAnotherFilesystemIsRefused() async throws {
        let dir = try TemporaryDirectory()
        let work = dir.file("in/.dropcut")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let mount = try await Command.run("mount", ["-t", "tmpfs", "-o", "size=1m", "dropcut-test-claims", work])
        try #require(mount.status == 0, "cannot mount a tmpfs: \(mount.stderr)")
        defer { _ = try? Command.run("umount", [work]) }
        let problems = FolderCheck(config: Self.config(dir)).problems()
        #expect(problems == ["\(work) is on another filesystem than the inbox \(dir.file("in")) of folder 'f': claims are renamed into it, and a rename cannot cross filesystems"])
    }

    @Test func permissionsAreNamedInWords() {
        #expect(FolderCheck.permissionWords(W_OK | X_OK) == "write and search permission")
        #expect(FolderCheck.permissionWords(R_OK | W_OK | X_OK) == "read, write and search permission")
        #expect(FolderCheck.permissionWords(R_OK) == "read permission")
        #expect(FolderCheck.ancestors(of: "/a/b/c") == ["/a", "/a/b"])
    }
}
