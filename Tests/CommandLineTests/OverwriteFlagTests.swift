import Foundation
import Testing
import TestSupport

/// What `dropcut render` does with an output that exists: replaced by default (as before
/// these flags, and as `-y/--overwrite` says), left byte for byte with `-n/--no-overwrite`
/// — an error naming the file, exit 1, nothing written, not even a temporary file.
@Suite(.tags(.slow)) struct OverwriteFlagTests {
    let dir: TemporaryDirectory
    let clip: String
    let output: String
    static let earlier = Data("an earlier output\n".utf8)

    init() async throws {
        dir = try TemporaryDirectory(prefix: "dropcut-overwrite")
        clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        output = dir.file("clip.dropcut.mp4")
        try Self.earlier.write(to: URL(fileURLWithPath: output))
    }

    /// The folder's names but the clip's and the output's (a leftover temporary file).
    private func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "clip.mp4" && $0 != "clip.dropcut.mp4" }.sorted()
    }

    @Test(arguments: [[], ["-y"], ["--overwrite"]])
    func theDefaultAndYesReplaceTheOutput(flags: [String]) async throws {
        let result = try await DropcutProcess.run(["render", "-q"] + flags + [clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) != Self.earlier)
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
        #expect(try leftovers().isEmpty)
    }

    @Test(arguments: [["-n"], ["--no-overwrite"]])
    func noLeavesTheOutputAsItIsAndFails(flags: [String]) async throws {
        let result = try await DropcutProcess.run(["render"] + flags + [clip])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("dropcut render: \(clip): \(output) exists; -n/--no-overwrite leaves it as it is"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Self.earlier)
        #expect(try leftovers().isEmpty, "nothing written")
        #expect(result.stdout.isEmpty)
    }

    @Test func noRendersWhatDoesNotExistYet() async throws {
        try FileManager.default.removeItem(atPath: output)
        let result = try await DropcutProcess.run(["render", "-n", "-q", clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
    }

    @Test func noRefusesADeliverableSetWithAnyFileThere() async throws {
        let recipe = try Fixtures.makeFile(in: dir.path, name: "set.yaml", contents: """
            version: 1
            output: { video: { crf: 23, preset: ultrafast } }
            outputs:
              - { filename: "{name}.small.mp4", size: 160x120 }
              - { filename: "{name}.poster.png", size: 160x120, poster: { at: 0.5 } }

            """)
        let out = dir.file("set")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let poster = (out as NSString).appendingPathComponent("clip.poster.png")
        try Self.earlier.write(to: URL(fileURLWithPath: poster))

        let refused = try await DropcutProcess.run(["render", "-n", "--recipe", recipe, "--output", out, clip])

        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(poster) exists; -n/--no-overwrite"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["clip.poster.png"], "nothing else written")
        #expect(try Data(contentsOf: URL(fileURLWithPath: poster)) == Self.earlier)

        let replaced = try await DropcutProcess.run(["render", "-y", "-q", "--recipe", recipe, "--output", out, clip])
        try #require(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: poster)) != Self.earlier)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["clip.dropcut.json", "clip.poster.png", "clip.small.mp4"])
    }

    @Test func yesAndNoExcludeEachOther() async throws {
        let result = try await DropcutProcess.run(["render", "-y", "-n", clip])
        #expect(result.status == 64, "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Self.earlier)
    }
}
