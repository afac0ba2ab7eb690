import Foundation
import Testing
import Daemon
import TestSupport

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

    @Test func aFileLastChangedLongerAgoThanSettleIsSettledAtFirstSight() throws {
        // What `watch --once` relies on after a restart. ctime cannot be set back, so the
        // file's own change time is moved into the past by waiting.
        let dir = try TemporaryDirectory()
        try write("old.mp4", in: dir, age: nil)
        var scanner = InboxScanner(inbox: dir.path, settle: .milliseconds(200))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(settledNames(scanner.scan()) == ["old.mp4"])
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

    @Test func anInboxOnAnotherFilesystemThanAtStartIsUnavailable() throws {
        // /dev/shm is a tmpfs; a bind-free stand-in for "the share was unmounted and the
        // mount point is now an empty folder of the root filesystem" is a symlink swap.
        let dir = try TemporaryDirectory()
        let shm = try TemporaryDirectory(prefix: "dropcut-shm")
        defer { withExtendedLifetime(shm) {} }
        let tmpfs = "/dev/shm/dropcut-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: tmpfs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmpfs) }
        var a = stat(), b = stat()
        stat(tmpfs, &a)
        stat(shm.path, &b)
        guard a.st_dev != b.st_dev else { return }   // same filesystem here: nothing to tell apart
        try FileManager.default.createSymbolicLink(atPath: dir.file("inbox"), withDestinationPath: tmpfs)
        var scanner = InboxScanner(inbox: dir.file("inbox"), settle: .seconds(1))
        #expect(scanner.scan() == .listed(settled: [], arriving: 0))
        try FileManager.default.removeItem(atPath: dir.file("inbox"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("inbox"), withDestinationPath: shm.path)
        guard case let .unavailable(reason) = scanner.scan() else {
            Issue.record("a different filesystem must be unavailable")
            return
        }
        #expect(reason.contains("is no longer on"))
    }

    @Test func tenThousandIgnoredFilesAreListedWithoutStatting() throws {
        let dir = try TemporaryDirectory()
        for i in 0..<10_000 { _ = FileManager.default.createFile(atPath: dir.file("upload\(i).mov.part"), contents: nil) }
        try write("real.mp4", in: dir)
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        #expect(settledNames(settledAfterSettle(&scanner)) == ["real.mp4"])
    }
}
