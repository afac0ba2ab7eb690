import Foundation
import Testing
import TestSupport

/// `output.audio.loudness`: the final mix brought to an integrated loudness, checked with
/// ffmpeg's own EBU R128 meter as the oracle.
@Suite(.tags(.slow)) struct LoudnessTargetTests {
    @Test func mixIsBroughtToTheTargetLoudness() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeGenerated(in: dir.path, name: "quiet.mp4", seconds: 4,
                                              video: "testsrc2=size=160x120:rate=30:duration=4",
                                              audio: "aevalsrc=0.05*sin(2*PI*1000*t)*(0.6+0.4*sin(2*PI*0.5*t)):s=48000:d=4")
        let before = try await Self.integratedLoudness(clip)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "loud.yaml", contents: """
        version: 1
        output: { audio: { loudness: -16LUFS } }
        """)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let after = try await Self.integratedLoudness(output)
        #expect(before < -25, "the source measures \(before) LUFS")
        #expect(abs(after - -16) <= 0.5, "output at \(after) LUFS, target -16")
        print("loudness: source \(before) LUFS -> output \(after) LUFS (target -16)")

        let bad = try Fixtures.makeFile(in: dir.path, name: "bad.yaml", contents: "version: 1\noutput: { audio: { loudness: loud } }\n")
        let refused = try await DropcutProcess.run(["validate", bad])
        #expect(refused.status == 1 && refused.stderr.contains("output.audio.loudness must be a loudness like -16LUFS"), "\(refused.stderr)")
    }

    /// ffmpeg's `ebur128` summary: `I: -23.0 LUFS`.
    static func integratedLoudness(_ path: String) async throws -> Double {
        let run = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:a:0", "-nostats", "-af", "ebur128=framelog=verbose", "-f", "null", "-"])
        guard let summary = run.stderr.range(of: "Integrated loudness:"),
              let match = String(run.stderr[summary.upperBound...]).firstMatch(of: /I:\s+(-?[0-9.]+) LUFS/),
              let value = Double(match.1) else {
            throw CommandError(command: ["ffmpeg", "-i", path, "-af", "ebur128"], status: run.status, stderr: run.stderr)
        }
        return value
    }
}
