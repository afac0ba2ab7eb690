import Foundation
import Testing
import TestSupport

/// FFmpeg's own log lines (`[mov,mp4,... @ 0x...] moov atom not found`) never come
/// before dropcut's message about a bad input: standard error starts with dropcut's
/// message, and FFmpeg's lines follow it on `detail:` lines — or, with `--verbose`, come
/// as FFmpeg writes them. `plan` and `probe` start with their own message too.
@Suite(.tags(.slow)) struct FFmpegLogOrderTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory(prefix: "dropcut-ffmpeg-log") }

    /// A file that is not a video, and an MP4 cut before its index (moov at the end).
    private func badInputs() async throws -> [(name: String, message: String)] {
        _ = try Fixtures.makeFile(in: dir.path, name: "notavideo.mp4", contents: "a shopping list\n")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "whole.mp4", seconds: 2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: dir.file("truncated.mp4")))
        return [("notavideo.mp4", "is not a video or audio file dropcut can read"), ("truncated.mp4", "the file is incomplete")]
    }

    /// Lines of FFmpeg's own (its `[demuxer @ 0x...]` prefix).
    private static func ffmpegLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.contains(#/\[[^\]]+ @ 0x[0-9a-f]+\]/#) }
    }

    @Test func renderPutsItsMessageFirstAndFFmpegsOnDetailLines() async throws {
        for (name, message) in try await badInputs() {
            let result = try await Command.run(BuildProducts.executable(named: "dropcut"), ["render", name], directory: dir.path)
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("dropcut render: \(name): \(message)"), "\(result.stderr)")
            let ffmpeg = Self.ffmpegLines(result.stderr)
            #expect(!ffmpeg.isEmpty, "FFmpeg said nothing about \(name): the check would pass for nothing\n\(result.stderr)")
            #expect(ffmpeg.allSatisfy { $0.hasPrefix("  detail: ffmpeg: ") }, "\(result.stderr)")
        }
    }

    @Test func verboseWritesFFmpegsLinesAsTheyCome() async throws {
        let (name, message) = try await badInputs()[1]
        let result = try await Command.run(BuildProducts.executable(named: "dropcut"), ["render", "--verbose", name], directory: dir.path)
        #expect(result.status == 1)
        let ffmpeg = Self.ffmpegLines(result.stderr)
        #expect(!ffmpeg.isEmpty && ffmpeg.allSatisfy { $0.hasPrefix("ffmpeg: ") }, "\(result.stderr)")
        #expect(result.stderr.contains("dropcut render: \(name): \(message)"))
    }

    @Test(arguments: ["plan", "probe"])
    func planAndProbeStartWithTheirOwnMessage(command: String) async throws {
        for (name, message) in try await badInputs() {
            let result = try await Command.run(BuildProducts.executable(named: "dropcut"), [command, name], directory: dir.path)
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("dropcut \(command): \(name): \(message)"), "\(result.stderr)")
            #expect(Self.ffmpegLines(result.stderr).isEmpty, "\(result.stderr)")
        }
    }
}
