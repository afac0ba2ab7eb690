import Foundation
import Testing
import DropcutDaemon
import DropcutPipeline
import TestSupport

/// Removing a folder on sshfs while another process still reads a file in it (a daemon
/// watching the claim's lease): FUSE keeps the unlinked file as `.fuse_hidden…` until it
/// is closed, and the folder is removed all the same, once it is.
@Suite(.serialized, .tags(.slow)) struct DurableFilesOverSSHFSTests {
    @Test func aFolderWhoseFileIsStillOpenIsRemovedOnceTheReaderCloses() throws {
        let server = try SFTPServer()
        let share = try SSHFSMount(server)
        let folder = share.file("claim")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try "lease".write(toFile: (folder as NSString).appendingPathComponent(".lease"), atomically: false, encoding: .utf8)
        let reader = open((folder as NSString).appendingPathComponent(".lease"), O_RDONLY)
        try #require(reader >= 0)
        let closer = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            close(reader)
        }
        closer.start()
        DurableFiles.removeTree(folder)
        #expect(access(server.export + "/claim", F_OK) != 0, "left: \((try? FileManager.default.contentsOfDirectory(atPath: server.export + "/claim")) ?? [])")
    }
}
