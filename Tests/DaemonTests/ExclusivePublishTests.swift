import Foundation
import DropcutSupport
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport

/// Each way of publishing a name on its own, on real files: the fallbacks a filesystem
/// without hard links or renameat2(RENAME_NOREPLACE) gets, forced on the local disk
/// (`from:`), and what a crash in the middle leaves for the job's recovery.
@Suite struct ExclusivePublishTests {
    static func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }
    static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(arguments: PublishMethod.allCases)
    func neverReplacesATakenName(method: PublishMethod) throws {
        let dir = try TemporaryDirectory()
        try Self.write("someone else's", dir.file("out.mp4"))
        try Self.write("mine", dir.file(".partial"))
        let final = try DurableFiles.linkUnique(dir.file(".partial"), into: dir.path, name: "out.mp4", tag: "job1", from: method)
        #expect(final == dir.file("out-1.mp4"))
        #expect(Self.read(dir.file("out.mp4")) == "someone else's")
        #expect(Self.read(dir.file("out-1.mp4")) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out-1.mp4", "out.mp4"])
    }

    /// Where renameat2 reports NOREPLACE unsupported (EINVAL, as sshfs, NFS and SMB do), the
    /// placeholder is used: the name reserved with mknod and replaced by the file, no
    /// placeholder left behind, the file's inode (and so its contents) moved, not copied.
    @Test func placeholderFallbackPublishesAndLeavesNothing() throws {
        let dir = try TemporaryDirectory()
        try Self.write("render", dir.file(".partial"))
        var before = stat(), after = stat()
        stat(dir.file(".partial"), &before)
        #expect(try DurableFiles.publishExclusively(dir.file(".partial"), as: dir.file("out.mp4"), tag: "job1", from: .placeholder))
        stat(dir.file("out.mp4"), &after)
        #expect(after.st_ino == before.st_ino)
        #expect(Self.read(dir.file("out.mp4")) == "render")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mp4"])
    }

    /// A placeholder left by a crash of the same job (same tag) is the job's own: its
    /// recovery replaces it with the file. Another job's placeholder is a taken name.
    @Test func leftoverPlaceholderIsTakenBackOnlyByItsJob() throws {
        let dir = try TemporaryDirectory()
        for (name, job) in [("mine.mp4", "job1"), ("theirs.mp4", "job2")] {
            let placeholder = try #require(try PublishPlaceholder.reserve(Array(dir.file(name).utf8CString), tag: job))
            // Empty, never opened, marked by its modification time.
            var info = stat()
            stat(dir.file(name), &info)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(info.st_size == 0)
            #expect(info.st_mtim.tv_sec == PublishPlaceholder.mark(tag: job))
            _ = placeholder   // the crash: never replaced
        }
        for (i, method) in PublishMethod.allCases.enumerated() {
            try Self.write("render \(i)", dir.file(".partial"))
            #expect(try DurableFiles.publishExclusively(dir.file(".partial"), as: dir.file("theirs.mp4"), tag: "job1", from: method) == false)
        }
        #expect(try DurableFiles.linkUnique(dir.file(".partial"), into: dir.path, name: "mine.mp4", tag: "job1") == dir.file("mine.mp4"))
        #expect(Self.read(dir.file("mine.mp4")) == "render 2")
        var theirs = stat()
        stat(dir.file("theirs.mp4"), &theirs)
        #expect(theirs.st_size == 0 && theirs.st_mtim.tv_sec == PublishPlaceholder.mark(tag: "job2"))
        #expect(PublishPlaceholder.mark(tag: "job1") != PublishPlaceholder.mark(tag: "job2"))
        // Without a tag nothing is taken back.
        try Self.write("x", dir.file(".other"))
        let placeholder = try #require(try PublishPlaceholder.reserve(Array(dir.file("anon.mp4").utf8CString), tag: nil))
        _ = placeholder
        #expect(try DurableFiles.publishExclusively(dir.file(".other"), as: dir.file("anon.mp4"), tag: nil, from: .placeholder) == false)
    }

    /// A rename that fails (here: the source is gone) removes the placeholder it made, and
    /// the error names the file and the call.
    @Test func failedRenameRemovesItsPlaceholder() throws {
        let dir = try TemporaryDirectory()
        #expect {
            try DurableFiles.publishExclusively(dir.file(".missing"), as: dir.file("out.mp4"), tag: "job1", from: .placeholder)
        } throws: { error in
            let error = error as? SystemError
            return error?.errno == ENOENT && error?.path == dir.file("out.mp4") && error?.function.hasPrefix("rename") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// A name already linked to the file before a crash (both names on one inode) is done:
    /// the temporary name goes, whatever the method.
    @Test func nameAlreadyLinkedBeforeACrashIsDone() throws {
        let dir = try TemporaryDirectory()
        try Self.write("render", dir.file(".partial"))
        #expect(link(dir.file(".partial"), dir.file("out.mp4")) == 0)
        #expect(try DurableFiles.linkUnique(dir.file(".partial"), into: dir.path, name: "out.mp4", tag: "job1", from: .placeholder)
                == dir.file("out.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mp4"])
    }

    /// A folder (an HLS ladder's `.clip.partial-…/`, holding `clip.m3u8` and a rung's folder).
    static func ladder(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/240p", withIntermediateDirectories: true)
        try write(text, path + "/clip.m3u8")
        try write("segment of \(text)", path + "/240p/seg-00000.m4s")
    }

    /// A folder is published whole by every method — link refuses folders (EPERM), so
    /// `.link` goes on to renameat2(RENAME_NOREPLACE); `.placeholder` reserves the name
    /// with mkdir and renames the folder onto that empty folder — and never replaces,
    /// merges into or removes what has the name: someone's folder (empty or not), a file.
    @Test(arguments: PublishMethod.allCases)
    func aFolderIsPublishedWholeAndNeverOntoATakenName(method: PublishMethod) throws {
        let dir = try TemporaryDirectory()
        try Self.ladder(dir.file(".clip.partial-job1"), "mine")
        var before = stat(), after = stat()
        stat(dir.file(".clip.partial-job1"), &before)
        try FileManager.default.createDirectory(atPath: dir.file("clip"), withIntermediateDirectories: false)   // someone's, empty
        try FileManager.default.createDirectory(atPath: dir.file("clip-1"), withIntermediateDirectories: false)
        try Self.write("theirs", dir.file("clip-1/clip.m3u8"))
        try Self.write("a file", dir.file("clip-2"))
        let final = try DurableFiles.linkUnique(dir.file(".clip.partial-job1"), into: dir.path, name: "clip", tag: "job1", from: method)
        #expect(final == dir.file("clip-3"))
        stat(final, &after)
        #expect(after.st_ino == before.st_ino)   // the folder itself, moved
        #expect(Self.read(dir.file("clip-3/clip.m3u8")) == "mine")
        #expect(Self.read(dir.file("clip-3/240p/seg-00000.m4s")) == "segment of mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("clip")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("clip-1")) == ["clip.m3u8"])
        #expect(Self.read(dir.file("clip-1/clip.m3u8")) == "theirs")
        #expect(Self.read(dir.file("clip-2")) == "a file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip", "clip-1", "clip-2", "clip-3"])
    }

    /// A folder's placeholder left by a crash (an empty folder with the job's mark) is taken
    /// back by that job only, and only while empty: another job's is a taken name, and so
    /// is the job's own once something was put into it (never merged into).
    @Test func leftoverFolderPlaceholderIsTakenBackOnlyByItsJobWhileEmpty() throws {
        let dir = try TemporaryDirectory()
        for (name, job) in [("mine", "job1"), ("theirs", "job2"), ("filled", "job1")] {
            _ = try #require(try PublishPlaceholder.reserve(Array(dir.file(name).utf8CString), tag: job, folder: true))
            var info = stat()
            lstat(dir.file(name), &info)
            #expect(info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700)
            #expect(info.st_mtim.tv_sec == PublishPlaceholder.mark(tag: job))
        }
        // Something put into the reservation after it was made (keeps the mark: utimensat again).
        try Self.write("someone's", dir.file("filled/note"))
        let mark = timespec(tv_sec: PublishPlaceholder.mark(tag: "job1"), tv_nsec: 0)
        #expect(utimensat(AT_FDCWD, dir.file("filled"), [mark, mark], 0) == 0)
        for (i, method) in PublishMethod.allCases.enumerated() {
            try Self.ladder(dir.file(".partial-\(i)"), "render \(i)")
            #expect(try DurableFiles.publishExclusively(dir.file(".partial-\(i)"), as: dir.file("theirs"), tag: "job1", from: method) == false)
            #expect(try DurableFiles.publishExclusively(dir.file(".partial-\(i)"), as: dir.file("filled"), tag: "job1", from: method) == false)
        }
        #expect(try DurableFiles.publishExclusively(dir.file(".partial-0"), as: dir.file("mine"), tag: "job1"))
        #expect(Self.read(dir.file("mine/clip.m3u8")) == "render 0")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("theirs")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("filled")) == ["note"])
        // A file is never put in place of a folder's placeholder, nor a folder in place of a file's.
        _ = try #require(try PublishPlaceholder.reserve(Array(dir.file("file-mark").utf8CString), tag: "job1"))
        #expect(try DurableFiles.publishExclusively(dir.file(".partial-1"), as: dir.file("file-mark"), tag: "job1", from: .placeholder) == false)
        try Self.write("a file", dir.file(".file"))
        _ = try #require(try PublishPlaceholder.reserve(Array(dir.file("folder-mark").utf8CString), tag: "job1", folder: true))
        #expect(try DurableFiles.publishExclusively(dir.file(".file"), as: dir.file("folder-mark"), tag: "job1", from: .placeholder) == false)
    }

    /// Error files in failed/ get a new name too, and nothing else is left.
    @Test func writeUniqueNeverReplaces() throws {
        let dir = try TemporaryDirectory()
        try Self.write("an older clip's reason", dir.file("clip.mov.error.txt"))
        let final = try DurableFiles.writeUnique(Data("reason".utf8), into: dir.path, name: "clip.mov.error.txt", tag: "job1", mode: 0o640)
        #expect(final == dir.file("clip.mov.error-1.txt"))
        #expect(Self.read(dir.file("clip.mov.error.txt")) == "an older clip's reason")
        #expect(Self.read(final) == "reason")
        var info = stat()
        stat(final, &info)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.mov.error-1.txt", "clip.mov.error.txt"])
    }

    /// Over sshfs without hard links, link() fails (EPERM) and renameat2 NOREPLACE is
    /// unsupported (EINVAL): publishing falls through to the placeholder on its own, and
    /// still never replaces. Dropped names that are not UTF-8 take the same way.
    @Test(.tags(.slow)) func sshfsWithoutHardLinksFallsBackToThePlaceholder() throws {
        let server = try SFTPServer()
        let mount = try SSHFSMount(server, hardLinks: false)
        try Self.write("taken", mount.file("out.mp4"))
        try Self.write("render", mount.file(".partial"))
        #expect(try DurableFiles.linkUnique(mount.file(".partial"), into: mount.path, name: "out.mp4", tag: "job1") == mount.file("out-1.mp4"))
        #expect(Self.read(server.export + "/out.mp4") == "taken")
        #expect(Self.read(server.export + "/out-1.mp4") == "render")

        try Self.write("clip", mount.file(".moving"))
        let dropped = RawFileName(bytes: Array("caf".utf8) + [0xE9] + Array(".mov".utf8))
        let final = try DurableFiles.linkUnique(mount.file(".moving"), into: mount.path, dropped: dropped, name: "caf\\xE9.mov", tag: "job2")
        #expect(final == dropped)
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.export).count == 3)
        // Read by its bytes (a Swift String cannot hold the name).
        let fd = open(dropped.path(in: server.export), O_RDONLY)
        #expect(fd >= 0)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(Glibc.read(fd, &buffer, 16) == 4 && buffer.prefix(4) == Array("clip".utf8)[...])
        close(fd)

        // sshfs's own `-o disable_hardlink`: sshfs answers ENOSYS, which the kernel's FUSE
        // client turns into EPERM, as for the server's refusal.
        let disabled = try SSHFSMount(server, options: ["disable_hardlink"])
        try Self.write("again", disabled.file(".partial"))
        let refused = link(disabled.file(".partial"), disabled.file("probe"))
        let code = errno
        #expect(refused == -1 && code == EPERM, "link with disable_hardlink: \(String(cString: strerror(code)))")
        #expect(try DurableFiles.linkUnique(disabled.file(".partial"), into: disabled.path, name: "out.mp4", tag: "job3")
                == disabled.file("out-2.mp4"))
        #expect(Self.read(server.export + "/out-2.mp4") == "again")

        // A folder (an HLS ladder): link refuses it, NOREPLACE is missing, so its name is
        // reserved with mkdir and the folder renamed onto it — never onto someone's folder.
        try FileManager.default.createDirectory(atPath: mount.file("clip"), withIntermediateDirectories: false)
        try Self.write("theirs", mount.file("clip/clip.m3u8"))
        try FileManager.default.createDirectory(atPath: mount.file("clip-1"), withIntermediateDirectories: false)
        try Self.ladder(mount.file(".clip.partial-job4"), "mine")
        #expect(try DurableFiles.linkUnique(mount.file(".clip.partial-job4"), into: mount.path, name: "clip", tag: "job4") == mount.file("clip-2"))
        #expect(Self.read(server.export + "/clip/clip.m3u8") == "theirs")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.export + "/clip-1").isEmpty)
        #expect(Self.read(server.export + "/clip-2/clip.m3u8") == "mine")
        #expect(Self.read(server.export + "/clip-2/240p/seg-00000.m4s") == "segment of mine")
        #expect(!FileManager.default.fileExists(atPath: server.export + "/.clip.partial-job4"))
    }
}
