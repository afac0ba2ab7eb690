import Foundation
import Testing
import TestSupport

/// `dropcut render -q`: nothing on standard error for a good render — no progress, no
/// warning, not even about damage concealed — and the error still there for a bad one.
@Suite(.tags(.slow)) struct QuietRenderTests {
    @Test func aGoodRenderWritesNothingToStandardError() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-quiet")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "r.yaml", contents: "version: 1\noutput: { video: { reencode: always } }\n")

        let result = try await DropcutProcess.run(["render", "-q", "--recipe", recipe, clip])

        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "", "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("clip.dropcut.mp4")))
        // Without -q the same render does write its progress there: the check can fail.
        let loud = try await DropcutProcess.run(["render", "--recipe", recipe, clip])
        #expect(loud.status == 0 && loud.stderr.contains("100%"), "\(loud.stderr)")
    }

    @Test func aBadInputIsStillReported() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-quiet-bad")
        defer { withExtendedLifetime(dir) {} }
        let broken = try Fixtures.makeFile(in: dir.path, name: "broken.mp4", contents: "not a video\n")

        let result = try await DropcutProcess.run(["render", "--quiet", broken])

        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("dropcut render: \(broken): is not a video or audio file dropcut can read"), "\(result.stderr)")
    }

    @Test(arguments: [["-q", "--verbose"], ["-q", "--progress", "bar"]])
    func quietRefusesWhatWouldWrite(flags: [String]) async throws {
        let result = try await DropcutProcess.run(["render"] + flags + ["clip.mp4"])
        #expect(result.status == 64, "\(result)")
    }
}
