import Foundation
import Testing
import TestSupport

/// The progress a person reads: `--progress bar` (what a terminal gets) redraws one line
/// with frames, fps, speed (×realtime, as ffmpeg's `speed=3.1x`) and the time left; piped
/// (`auto` off a terminal) a line per 10 %, with the same figures; `--progress none` and
/// `-q` write none.
@Suite(.tags(.slow)) struct ProgressLineTests {
    let dir: TemporaryDirectory
    let clip: String
    let recipe: String

    init() async throws {
        dir = try TemporaryDirectory(prefix: "dropcut-progress-line")
        clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        recipe = try Fixtures.makeFile(in: dir.path, name: "r.yaml", contents: "version: 1\noutput: { video: { reencode: always } }\n")
    }

    @Test func theBarShowsFramesFpsSpeedAndTimeLeft() async throws {
        let result = try await DropcutProcess.run(["render", "--progress", "bar", "--recipe", recipe, "--output", dir.file("out.mp4"), clip])
        try #require(result.status == 0, "\(result.stderr)")
        let redraws = result.stderr.split(separator: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { !$0.isEmpty }
        let last = try #require(redraws.last).trimmingCharacters(in: .newlines)
        #expect(last.hasPrefix("clip.mp4 [##############################] 100% frame=60/60 fps="), "\(last)")
        #expect(last.contains(#/ speed=\d+(\.\d+)?x eta=0:00:00$/#), "\(last)")
        #expect(result.stderr.hasSuffix("\n"), "the bar's line is ended")
        // At most a few redraws a second, not one per frame.
        #expect(redraws.count < 60, "\(redraws.count) redraws for 60 frames")
    }

    /// A deliverable set's videos share the line: each one's percentage, never going back
    /// (one not begun shows 0 %, not 100 %), and the figures of the one furthest behind.
    @Test func aSetsVideosShareTheBar() async throws {
        let set = try Fixtures.makeFile(in: dir.path, name: "set.yaml", contents: """
            version: 1
            output: { video: { crf: 23, preset: ultrafast } }
            outputs:
              - { filename: "{name}.small.mp4", size: 160x120 }
              - { filename: "{name}.tiny.mp4", size: 96x72 }

            """)
        let out = dir.file("set")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let result = try await DropcutProcess.run(["render", "--progress", "bar", "--recipe", set, "--output", out, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let redraws = result.stderr.split(separator: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
        var last: [String: Int] = [:]
        for line in redraws {
            for match in line.matches(of: #/(?<name>clip\.\w+\.mp4) (?<percent>\d+)%/#) {
                let name = String(match.output.name), percent = Int(match.output.percent) ?? -1
                #expect(percent >= (last[name] ?? 0), "\(name) went back: \(redraws)")
                last[name] = percent
            }
        }
        #expect(last == ["clip.small.mp4": 100, "clip.tiny.mp4": 100], "\(redraws)")
        #expect(redraws.last?.contains(#/ · frame=60/60 fps=\d+ speed=\d+(\.\d+)?x eta=0:00:00$/#) == true, "\(redraws)")
    }

    @Test func pipedItWritesALinePerTenPercent() async throws {
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", dir.file("out.mp4"), clip])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 11, "0 % to 100 % by 10: \(lines)")
        #expect(lines.last?.hasPrefix("clip.mp4: 100% (frame=60/60 fps=") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.contains(#/ speed=(\d+(\.\d+)?x|-) eta=/#) }, "\(lines)")
        #expect(!result.stderr.contains("\r"))
    }

    @Test(arguments: [["--progress", "none"], ["-q"], ["--quiet"]])
    func noneAndQuietWriteNoProgress(flags: [String]) async throws {
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render"] + flags + ["--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout == "\(clip) -> \(output)\n")
    }
}
