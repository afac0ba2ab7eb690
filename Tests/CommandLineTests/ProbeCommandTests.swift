import Foundation
import Testing
import TestSupport

/// `dropcut probe` as a user runs it: a subprocess of the built executable.
@Suite(.tags(.slow)) struct ProbeCommandTests {
    @Test func probePrintsBothStreamsInFileOrder() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path)

        let result = try await DropcutProcess.run(["probe", clip])

        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "stdout: \(result.stdout)")
        #expect(lines[0].hasPrefix("\(clip): mov,mp4,m4a,3gp,3g2,mj2"))
        #expect(lines[1].contains("stream 0: video h264 yuv420p 320x240 30 fps"))
        #expect(lines[2].contains("stream 1: audio aac 48000 Hz 1 ch"))
    }

    @Test func probeJSONParsesAndListsTwoStreams() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip \"quoted\".mp4")

        let result = try await DropcutProcess.run(["probe", "--json", clip])

        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let report = try #require(object as? [String: Any], "stdout: \(result.stdout)")
        #expect(report["path"] as? String == clip)  // the quotes in the name survive escaping
        #expect(report["format"] as? String == "mov,mp4,m4a,3gp,3g2,mj2")
        let streams = try #require(report["streams"] as? [[String: Any]])
        try #require(streams.count == 2)
        #expect(streams.map { $0["index"] as? Int } == [0, 1])
        #expect(streams.map { $0["type"] as? String } == ["video", "audio"])
        #expect(streams.map { $0["codec"] as? String } == ["h264", "aac"])
        #expect(streams[0]["width"] as? Int == 320)
        #expect(streams[0]["height"] as? Int == 240)
        #expect(streams[1]["sample_rate"] as? Int == 48_000)
        let duration = try #require(report["duration"] as? Double)
        #expect(abs(duration - 1) < 0.05)
    }

    @Test func probeOfATextFileFailsNamingTheFile() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let text = try Fixtures.makeFile(in: dir.path, name: "readme.mp4", contents: "not a video\n")

        let result = try await DropcutProcess.run(["probe", text])

        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("dropcut probe: \(text): is not a video or audio file dropcut can read\n  detail: avformat_open_input:"),
                "\(result.stderr)")
    }
}
