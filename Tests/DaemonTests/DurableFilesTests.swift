import Foundation
import DropcutSupport
import Testing
import DropcutDaemon
import DropcutPipeline
import TestSupport

/// Moves and names that never overwrite and never lose the source.
@Suite struct DurableFilesTests {
    @Test func linkUniqueNeverOverwritesAndNumbersBeforeTheExtension() throws {
        let dir = try TemporaryDirectory()
        for (i, expected) in ["out.mp4", "out-1.mp4", "out-2.mp4"].enumerated() {
            let source = dir.file(".tmp\(i)")
            try "render \(i)".write(toFile: source, atomically: true, encoding: .utf8)
            let final = try DurableFiles.linkUnique(source, into: dir.path, name: "out.mp4")
            #expect(final == dir.file(expected))
            #expect(!FileManager.default.fileExists(atPath: source))
        }
        #expect(try String(contentsOfFile: dir.file("out.mp4"), encoding: .utf8) == "render 0")
        #expect(try String(contentsOfFile: dir.file("out-2.mp4"), encoding: .utf8) == "render 2")
    }

    @Test func moveAcrossFilesystemsCopiesThenUnlinks() throws {
        let source = try TemporaryDirectory()
        let target = "/dev/shm/dropcut-move-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: target) }
        let bytes = Data((0..<3_000_000).map { UInt8($0 % 251) })
        try bytes.write(to: URL(fileURLWithPath: source.file("clip.mov")))
        try bytes.write(to: URL(fileURLWithPath: source.file("clip2.mov")))

        let moved = try DurableFiles.move(source.file("clip.mov"), into: target, name: "clip.mov", tag: "job1", mode: 0o640)
        let again = try DurableFiles.move(source.file("clip2.mov"), into: target, name: "clip.mov", tag: "job2")

        #expect(moved == target + "/clip.mov")
        #expect(again == target + "/clip-1.mov")
        #expect(FileManager.default.contents(atPath: moved) == bytes)
        #expect(FileManager.default.contents(atPath: again) == bytes)
        #expect(!FileManager.default.fileExists(atPath: source.file("clip.mov")))
        var info = stat()
        stat(moved, &info)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).sorted() == ["clip-1.mov", "clip.mov"])
    }

    @Test func finishMovesPutsCompleteCopiesInPlaceAndDropsPartialOnes() throws {
        let dir = try TemporaryDirectory()
        try "complete".write(toFile: dir.file(".clip.mov.moving-job7"), atomically: true, encoding: .utf8)
        try "half".write(toFile: dir.file(".other.mov.copying-job7"), atomically: true, encoding: .utf8)
        try "someone else's".write(toFile: dir.file(".x.mov.moving-job8"), atomically: true, encoding: .utf8)
        let finished = try DurableFiles.finishMoves(in: dir.path, tag: "job7")
        #expect(finished == [dir.file("clip.mov")])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".x.mov.moving-job8", "clip.mov"])
    }

    @Test func atomicWriteReplacesWholeFiles() throws {
        let dir = try TemporaryDirectory()
        try DurableFiles.write(Data("one".utf8), to: dir.file("r.json"))
        try DurableFiles.write(Data("two".utf8), to: dir.file("r.json"))
        #expect(try String(contentsOfFile: dir.file("r.json"), encoding: .utf8) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["r.json"])
        #expect(throws: SystemError.self) { try DurableFiles.write(Data(), to: dir.file("no/such/dir/r.json")) }
    }

    /// Across filesystems (the root filesystem to the /dev/shm tmpfs) a move is a copy: the
    /// archived original keeps its permission bits and its mtime, as `mv` keeps them.
    @Test func aCopyAcrossFilesystemsKeepsModeAndTimes() throws {
        let source = try TemporaryDirectory()
        let target = "/dev/shm/dropcut-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: target) }
        var here = stat(), there = stat()
        stat(source.path, &here)
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        stat(target, &there)
        try #require(here.st_dev != there.st_dev, "/dev/shm is on the same filesystem here")
        let clip = source.file("clip.mov")
        try "frames".write(toFile: clip, atomically: false, encoding: .utf8)
        chmod(clip, 0o640)
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 123_000_000)]
        #expect(utimensat(AT_FDCWD, clip, &times, 0) == 0)
        let moved = try DurableFiles.move(clip, into: target, name: "clip.mov", tag: "job1")
        var info = stat()
        #expect(stat(moved, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
        #expect(info.st_mtim.tv_sec == 1_600_000_000 && info.st_mtim.tv_nsec == 123_000_000)
        #expect(!FileManager.default.fileExists(atPath: clip))
    }
}
