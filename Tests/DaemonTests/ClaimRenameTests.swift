import Foundation
import DropcutSupport
import Testing
import DropcutDaemon
import TestSupport

/// The rename claims, takeovers and fences decide by: ENOENT is resolved by looking.
@Suite struct ClaimRenameTests {
    @Test func aRenameMovesTheSource() throws {
        let dir = try TemporaryDirectory()
        try "clip".write(toFile: dir.file("clip.mov"), atomically: true, encoding: .utf8)
        #expect(try ClaimRename.rename(dir.file("clip.mov"), to: dir.file("mine.mov")) == .renamed)
        #expect(FileManager.default.fileExists(atPath: dir.file("mine.mov")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("clip.mov")))
    }

    /// Over NFS, a rename whose reply was lost is sent again; the repeat finds its source
    /// gone — moved by the first send — and says ENOENT. The file at the destination (a
    /// name only this process uses) shows the rename did happen: here the source is
    /// missing and the destination present, which is exactly what the repeat meets.
    @Test func enoentWithTheFileAtTheDestinationIsASuccess() throws {
        let dir = try TemporaryDirectory()
        try "clip".write(toFile: dir.file("mine.mov"), atomically: true, encoding: .utf8)
        #expect(rename(dir.file("clip.mov"), dir.file("mine.mov")) == -1 && errno == ENOENT)
        #expect(try ClaimRename.rename(dir.file("clip.mov"), to: dir.file("mine.mov")) == .renamed)
    }

    @Test func enoentWithNothingAtTheDestinationIsALostRace() throws {
        let dir = try TemporaryDirectory()
        #expect(try ClaimRename.rename(dir.file("clip.mov"), to: dir.file("mine.mov")) == .lost)
    }

    @Test func otherErrorsAreThrownWithThePath() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("folder"), withIntermediateDirectories: true)
        try "x".write(toFile: dir.file("folder/inside"), atomically: true, encoding: .utf8)
        try "clip".write(toFile: dir.file("clip.mov"), atomically: true, encoding: .utf8)
        #expect(throws: SystemError.self) { try ClaimRename.rename(dir.file("clip.mov"), to: dir.file("folder")) }
        do {
            _ = try ClaimRename.rename(dir.file("clip.mov"), to: dir.file("folder"))
        } catch {
            #expect(error.errno == EISDIR && error.path == dir.file("clip.mov"))
        }
    }
}
