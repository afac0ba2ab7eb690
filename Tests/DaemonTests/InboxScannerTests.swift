import Foundation
import Testing
import DropcutDaemon
import TestSupport
import DropcutSupport

/// Which files in an inbox count as arrived, against a real folder.
@Suite struct InboxScannerTests {
    func write(_ name: String, in dir: TemporaryDirectory, age: TimeInterval? = 60, bytes: Int = 10) throws {
        let path = dir.file(name)
        try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: path))
        if let age {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
        }
    }

    /// Lists twice, `settle` apart by the scanner's clock: what has settled by then.
    func settledAfterSettle(_ scanner: inout InboxScanner) -> InboxListing {
        let start = ContinuousClock.now
        _ = scanner.scan(now: start)
        return scanner.scan(now: start + scanner.settle)
    }

    func settledNames(_ listing: InboxListing) -> [String]? {
        guard case let .listed(settled, _) = listing else { return nil }
        return settled.map(\.name)
    }

    @Test func temporaryHiddenAndRecipeNamesAreNeverClips() throws {
        let dir = try TemporaryDirectory()
        for name in ["clip.mov", ".hidden.mov", "upload.mov.part", "x.crdownload", "y.tmp", "z.mov~", "recipe.yaml",
                     "clip.yaml", "other.yml", "IMG_1.AAE", "UPPER.PART"] {
            try write(name, in: dir)
        }
        try FileManager.default.createDirectory(atPath: dir.file("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file(".dropcut/claimed"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.mov"), withDestinationPath: "/etc/hostname")
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        let listing = settledAfterSettle(&scanner)
        #expect(settledNames(listing) == ["clip.mov"])
        guard case let .listed(settled, _) = listing else { return }
        #expect(settled.first?.sidecars == ["clip.yaml"])
        // recipe.yaml stays the inbox's recipe even beside a clip named recipe.*.
        try write("recipe.mov", in: dir)
        guard case let .listed(again, _) = settledAfterSettle(&scanner) else { return }
        #expect(again.first { $0.name == "recipe.mov" }?.sidecars == [])
        // A sidecar that is not a regular file is never claimed, but named with its clip.
        try FileManager.default.createSymbolicLink(atPath: dir.file("clip.srt"), withDestinationPath: "/etc/hostname")
        #expect(mkfifo(dir.file("clip.vtt"), 0o644) == 0)
        guard case let .listed(third, _) = settledAfterSettle(&scanner) else { return }
        let clip = third.first { $0.name == "clip.mov" }
        #expect(clip?.sidecars == ["clip.yaml"] && clip?.unreadableSidecars == ["clip.srt", "clip.vtt"], "\(String(describing: clip))")
    }

    @Test func aFileSettlesOnlyAfterItStaysUnchangedForTheSettleTime() throws {
        let dir = try TemporaryDirectory()
        try write("new.mp4", in: dir, age: nil)
        var scanner = InboxScanner(inbox: dir.path, settle: .milliseconds(400))
        let start = ContinuousClock.now
        #expect(scanner.scan(now: start) == .listed(settled: [], arriving: 1))
        // Growing resets the clock.
        Thread.sleep(forTimeInterval: 0.3)
        try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("new.mp4"))).write(contentsOf: Data([1, 2, 3]))
        #expect(scanner.scan(now: start + .milliseconds(300)) == .listed(settled: [], arriving: 1))
        #expect(scanner.scan(now: start + .milliseconds(600)) == .listed(settled: [], arriving: 1))
        Thread.sleep(forTimeInterval: 0.45)
        #expect(settledNames(scanner.scan(now: start + .milliseconds(750))) == ["new.mp4"])
    }

    @Test func aSidecarArrivingLaterRestartsTheClipsSettleTime() throws {
        let dir = try TemporaryDirectory()
        try write("clip.mov", in: dir, age: nil)
        var scanner = InboxScanner(inbox: dir.path, settle: .milliseconds(300))
        let start = ContinuousClock.now
        _ = scanner.scan(now: start)
        try write("clip.YAML", in: dir, age: nil)
        #expect(scanner.scan(now: start + .milliseconds(350)) == .listed(settled: [], arriving: 1))
        Thread.sleep(forTimeInterval: 0.35)
        guard case let .listed(settled, 0) = scanner.scan(now: start + .milliseconds(700)) else {
            Issue.record("not settled")
            return
        }
        #expect(settled.map(\.sidecars) == [["clip.YAML"]])
    }

    @Test func clipsComeOldestFirst() throws {
        let dir = try TemporaryDirectory()
        try write("b.mp4", in: dir, age: 30)
        try write("a.mp4", in: dir, age: 10)
        try write("c.mp4", in: dir, age: 50)
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        #expect(settledNames(settledAfterSettle(&scanner)) == ["c.mp4", "b.mp4", "a.mp4"])
    }

    /// Settle is judged by this host's clock alone, from when a file was first seen: a file
    /// last changed long ago still waits one settle period at first sight (what a daemon
    /// restarted over a full inbox does), so no file server's clock is ever compared.
    @Test func aFileIsSettledOnlyAfterSettleFromFirstSightHoweverOld() throws {
        let dir = try TemporaryDirectory()
        try write("old.mp4", in: dir, age: nil)
        var scanner = InboxScanner(inbox: dir.path, settle: .milliseconds(200))
        Thread.sleep(forTimeInterval: 0.3)   // ctime, too, is now older than settle
        let start = ContinuousClock.now
        #expect(scanner.scan(now: start) == .listed(settled: [], arriving: 1))
        #expect(scanner.nextSettle == start + .milliseconds(200))
        #expect(settledNames(scanner.scan(now: start + .milliseconds(200))) == ["old.mp4"])
    }

    /// A file whose mtime is 10 minutes in the past or in the future (a NAS whose clock is
    /// behind or ahead, or a copying tool that keeps times) settles only once it has stayed
    /// the same for `settle` by the local clock: not at first sight, not a moment before.
    @Test func fileTimesInThePastOrFutureDoNotShortenSettle() throws {
        let dir = try TemporaryDirectory()
        try write("past.mp4", in: dir, age: 600)
        try write("future.mp4", in: dir, age: -600)
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(2))
        let start = ContinuousClock.now
        #expect(scanner.scan(now: start) == .listed(settled: [], arriving: 2))
        #expect(scanner.scan(now: start + .milliseconds(1999)) == .listed(settled: [], arriving: 2))
        #expect(settledNames(scanner.scan(now: start + .seconds(2)))?.sorted() == ["future.mp4", "past.mp4"])
    }

    /// The same over sshfs, where a file's ctime is its mtime (SFTP carries no ctime): a
    /// clip whose server clock is 10 minutes behind looks unchanged for 10 minutes from
    /// the first byte — exactly what a first-sight shortcut by file times claimed mid-upload.
    @Test(.tags(.slow)) func overSSHFSAFileTimedByASlowServerClockIsNotSettledAtFirstSight() throws {
        let server = try SFTPServer()
        let mount = try SSHFSMount(server)
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: mount.file("uploading.mp4")))
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: mount.file("ahead.mp4")))
        let now = time(nil)
        for (name, offset) in [("uploading.mp4", -600), ("ahead.mp4", 600)] {
            var times = [timespec(tv_sec: now + offset, tv_nsec: 0), timespec(tv_sec: now + offset, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, mount.file(name), &times, 0) == 0)
        }
        var info = stat()
        #expect(stat(mount.file("uploading.mp4"), &info) == 0)
        #expect(info.st_ctim.tv_sec <= now - 590, "sshfs reports ctime \(info.st_ctim.tv_sec - now) s from now")

        var scanner = InboxScanner(inbox: mount.path, settle: .seconds(1))
        let start = ContinuousClock.now
        #expect(scanner.scan(now: start) == .listed(settled: [], arriving: 2))
        // Still being written: the clock starts again.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: mount.file("uploading.mp4")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        #expect(utimensat(AT_FDCWD, mount.file("uploading.mp4"), [timespec(tv_sec: now - 599, tv_nsec: 0), timespec(tv_sec: now - 599, tv_nsec: 0)], 0) == 0)
        #expect(settledNames(scanner.scan(now: start + .milliseconds(500))) == [])
        #expect(settledNames(scanner.scan(now: start + .milliseconds(1000))) == ["ahead.mp4"])
        #expect(settledNames(scanner.scan(now: start + .milliseconds(1500)))?.sorted() == ["ahead.mp4", "uploading.mp4"])
    }

    @Test func aVanishedInboxIsUnavailableNotEmpty() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("inbox"), withIntermediateDirectories: true)
        var scanner = InboxScanner(inbox: dir.file("inbox"), settle: .seconds(1))
        #expect(scanner.scan() == .listed(settled: [], arriving: 0))
        try FileManager.default.removeItem(atPath: dir.file("inbox"))
        guard case let .unavailable(reason) = scanner.scan() else {
            Issue.record("a missing inbox must not list as empty")
            return
        }
        #expect(reason.contains(dir.file("inbox")))
        #expect(reason.contains("No such file or directory"))
    }

    /// A share unmounted leaves its bare mount point on the parent filesystem: unavailable,
    /// never an empty inbox — also when it went away before the first listing (the mount
    /// is noted when the scanner is made, at start, before the daemon says it is ready).
    @Test(arguments: [false, true])
    func anInboxOnAnotherMountThanAtStartIsUnavailable(unmountedBeforeTheFirstScan: Bool) async throws {
        let dir = try TemporaryDirectory()
        let inbox = dir.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=1m", "dropcut-test-inbox", inbox]).status == 0,
                     "the tests run as root and may mount a tmpfs")
        defer { _ = try? Command.run("umount", [inbox]) }
        var scanner = InboxScanner(inbox: inbox, settle: .seconds(1))
        if !unmountedBeforeTheFirstScan { #expect(scanner.scan() == .listed(settled: [], arriving: 0)) }
        try #require(await Command.run("umount", [inbox]).status == 0)
        guard case let .unavailable(reason) = scanner.scan() else {
            Issue.record("a bare mount point must be unavailable, not an empty inbox")
            return
        }
        #expect(reason.contains("is no longer on \(inbox) but on"), "\(reason)")
        try #require(await Command.run("mount", ["-t", "tmpfs", "-o", "size=1m", "dropcut-test-inbox", inbox]).status == 0)
        #expect(scanner.scan() == .listed(settled: [], arriving: 0), "mounted again (a new device number) is back")
    }

    @Test func tenThousandIgnoredFilesAreListedWithoutStatting() throws {
        let dir = try TemporaryDirectory()
        for i in 0..<10_000 { _ = FileManager.default.createFile(atPath: dir.file("upload\(i).mov.part"), contents: nil) }
        try write("real.mp4", in: dir)
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        #expect(settledNames(settledAfterSettle(&scanner)) == ["real.mp4"])
    }

    /// Out of descriptors while checking the inbox's mount (issue 45: the journal said
    /// "unmounted" under a connection flood): said as what happened, never as a share gone.
    @Test func aMountLookupThatFailsIsNotAnUnmountedShare() {
        for code in [EMFILE, ENFILE, ENOMEM] {
            let error = SystemError(errno: code, function: "open", path: "/proc/self/mountinfo")
            for before in [nil, "/srv"] as [String?] {
                let problem = InboxScanner.mountProblem(inbox: "/srv/in", before: before, now: .failure(error)) ?? ""
                #expect(problem.contains("cannot check the mount of the inbox /srv/in") && problem.contains(String(cString: strerror(code))), "\(problem)")
                #expect(!problem.contains("unmounted") && !problem.contains("no longer on"), "\(problem)")
            }
        }
        #expect(InboxScanner.mountProblem(inbox: "/srv/in", before: "/srv", now: .success("/srv")) == nil)
        #expect(InboxScanner.mountProblem(inbox: "/srv/in", before: nil, now: .success("/")) == nil)
        #expect(InboxScanner.mountProblem(inbox: "/srv/in", before: "/srv", now: .success("/"))?.contains("unmounted?") == true)
    }
}
