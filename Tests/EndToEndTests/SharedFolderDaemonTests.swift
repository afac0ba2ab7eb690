import Foundation
import Testing
import TestSupport

/// The daemon on a real network filesystem without hard links: inbox, outbox, archive and
/// failed/ on an sshfs mount whose server refuses hard links, so every name is published
/// through the placeholder (`DurableFiles.publishExclusively`). Names that are taken stay
/// as they were; nothing is left behind.
@Suite(.tags(.slow)) struct SharedFolderDaemonTests {
    @Test func watchOnceOverSSHFSWithoutHardLinksNeverReplacesANameAndLeavesNothing() async throws {
        let server = try SFTPServer()
        let share = try SSHFSMount(server, hardLinks: false)
        let h = try DaemonHarness(settle: 0.2, poll: 0.1, retries: 0)
        defer { withExtendedLifetime(h) {} }
        for folder in ["inbox", "outbox", "archive", "failed"] {
            try FileManager.default.createDirectory(atPath: share.file(folder), withIntermediateDirectories: false)
        }
        try """
            state_dir: state
            poll_interval: 0.1
            settle: 0.2
            folders:
              - name: \(h.folderName)
                inbox: \(share.file("inbox"))
                outbox: \(share.file("outbox"))
                failed: \(share.file("failed"))
                archive: \(share.file("archive"))
                retries: 0

            """.write(toFile: h.configPath, atomically: true, encoding: .utf8)
        // Names already taken, as another host or a person left them.
        let export = server.export
        try "someone's".write(toFile: share.file("outbox/same.mp4"), atomically: false, encoding: .utf8)
        try "an older a.mov".write(toFile: share.file("archive/a.mov"), atomically: false, encoding: .utf8)
        try "an older reason".write(toFile: share.file("failed/broken.mov.error.txt"), atomically: false, encoding: .utf8)
        // Every output gets the same name.
        try "version: 1\noutput: { filename: \"same.mp4\" }\n".write(toFile: share.file("inbox/recipe.yaml"), atomically: false, encoding: .utf8)
        let clip = try h.clip()
        let bytes = try #require(FileManager.default.contents(atPath: clip))
        for name in ["a.mov", "b.mov"] { try FileManager.default.copyItem(atPath: clip, toPath: share.file("inbox/\(name)")) }
        try "not a video".write(toFile: share.file("inbox/broken.mov"), atomically: false, encoding: .utf8)

        let result = try await h.runOnce()
        #expect(result.status == 1, "watch --once: \(result.stderr)")

        func names(_ folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(export)/\(folder)")) ?? []).sorted()
        }
        func text(_ path: String) -> String? { try? String(contentsOfFile: "\(export)/\(path)", encoding: .utf8) }
        #expect(names("outbox") == ["same-1.mp4", "same-2.mp4", "same.mp4"])
        #expect(text("outbox/same.mp4") == "someone's")
        for output in ["same-1.mp4", "same-2.mp4"] {
            let data = FileManager.default.contents(atPath: "\(export)/outbox/\(output)") ?? Data()
            #expect(data.count > 1000 && data[4..<8] == Data("ftyp".utf8), "\(output) is not an MP4")
        }
        #expect(names("archive") == ["a-1.mov", "a.mov", "b.mov"])
        #expect(text("archive/a.mov") == "an older a.mov")
        #expect(FileManager.default.contents(atPath: "\(export)/archive/a-1.mov") == bytes)
        #expect(FileManager.default.contents(atPath: "\(export)/archive/b.mov") == bytes)
        #expect(names("failed") == ["broken.mov", "broken.mov.error-1.txt", "broken.mov.error.txt"])
        #expect(text("failed/broken.mov.error.txt") == "an older reason")
        #expect(text("failed/broken.mov.error-1.txt")?.contains("dropcut could not render broken.mov") == true)
        #expect(names("inbox") == [".dropcut", "recipe.yaml"])
        #expect(names("inbox/.dropcut/claimed") == [])
    }
}
