import Foundation
import Testing
import TestSupport

/// A mistyped command is named with the nearest one, as git does (`dropcut rendr clip.mov`:
/// did you mean 'render'?), and exits 64 (a usage error) without running anything; a word
/// far from every command gets no guess. And `-o` is short for `--output`.
@Suite(.tags(.slow)) struct CommandTypoTests {
    @Test(arguments: [("rendr", "render"), ("paln", "plan"), ("vaildate", "validate"), ("stauts", "status")])
    func aMistypedCommandSuggestsTheNearest(_ typed: String, _ meant: String) async throws {
        let result = try await DropcutProcess.run([typed, "clip.mov"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: '\(typed)' is not a dropcut command; did you mean '\(meant)'?"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aWordFarFromEveryCommandGetsNoGuess() async throws {
        let result = try await DropcutProcess.run(["clip.mov"])
        #expect(result.status == 64 && result.stderr.hasPrefix("Error: 'clip.mov' is not a dropcut command\n"), "\(result.stderr)")
        // Options and real commands are the parser's, as before.
        let version = try await DropcutProcess.run(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
        let help = try await DropcutProcess.run(["help", "render"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: dropcut render"), "\(help.stdout)")
    }

    /// `-o` is `--output`, as in ffmpeg-style tools and most others.
    @Test func dashOIsTheOutput() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", clip, "-o", output, "--quiet"])
        #expect(result.status == 0 && FileManager.default.fileExists(atPath: output), "\(result.stderr)")
        #expect(result.stdout == "\(clip) -> \(output)\n")
    }
}
