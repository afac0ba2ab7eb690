import Foundation
import Testing
import TestSupport

/// `dropcut render --progress json`: one JSON object per line on standard output, as
/// `ffmpeg -progress pipe:1` writes key=value lines — parsed here, each output's percent
/// never going back and reaching 100, its frame count the output's own (ffprobe's count),
/// `"progress":"end"` for every file once it is in place.
@Suite(.tags(.slow)) struct ProgressJSONTests {
    /// Every line of `stdout` as a JSON object (a line that is not one fails the test).
    static func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not a JSON object: \(line)")
        }
    }

    /// One output's objects: percent never goes back, the last "continue" is at 100 with
    /// every frame, then exactly one "end"; out_time is ffmpeg's HH:MM:SS.micro.
    static func checkOneOutput(_ objects: [[String: Any]], frames expected: Int?, duration: Double) throws {
        try #require(!objects.isEmpty)
        let percents = objects.compactMap { $0["percent"] as? Double }
        #expect(percents.count == objects.count, "every object has a percent")
        #expect(zip(percents, percents.dropFirst()).allSatisfy { $0 <= $1 }, "percent goes back: \(percents)")
        #expect(percents.last == 100)
        #expect(objects.filter { $0["progress"] as? String == "end" }.count == 1)
        #expect(objects.last?["progress"] as? String == "end")
        let framesSeen = objects.compactMap { $0["frame"] as? Int }
        #expect(zip(framesSeen, framesSeen.dropFirst()).allSatisfy { $0 <= $1 }, "frame goes back: \(framesSeen)")
        let last = try #require(objects.last)
        let frames = try #require(last["frames"] as? Int)
        #expect(last["frame"] as? Int == frames)
        if let expected { #expect(frames == expected, "JSON says \(frames) frames, the file has \(expected)") }
        for object in objects {
            let time = try #require(object["out_time"] as? String)
            #expect(time.wholeMatch(of: #/\d\d:\d\d:\d\d\.\d{6}/#) != nil, "out_time \(time)")
            let seconds = try #require(object["out_time_seconds"] as? Double)
            #expect(seconds >= 0 && seconds <= duration + 0.001)
            #expect(object["speed"] is Double || object["speed"] is NSNull)
            #expect(object["fps"] is Double || object["fps"] is NSNull || object["fps"] is Int)
        }
        #expect(abs((last["out_time_seconds"] as? Double ?? 0) - duration) < 0.001)
        #expect(((last["speed"] as? Double) ?? 0) > 0, "a finished render has a speed: \(last)")
    }

    @Test(arguments: ["always", "auto"])
    func aSingleOutputReportsEveryFrameUpTo100(reencode: String) async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-progress-json")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "r.yaml", contents: "version: 1\noutput: { video: { reencode: \(reencode) } }\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--progress", "json", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "JSON progress writes nothing to stderr: \(result.stderr)")
        let objects = try Self.objects(result.stdout)
        #expect(objects.allSatisfy { $0["input"] as? String == clip && $0["output"] as? String == output }, "\(objects)")
        // Encoded, a frame is a frame; copied (auto: nothing to change), a video packet.
        try Self.checkOneOutput(objects, frames: try FFprobe.decodedVideoFrames(of: output), duration: 2)
    }

    @Test func aDeliverableSetReportsEachVideoAndEndsEveryFile() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-progress-json-set")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "set.yaml", contents: """
            version: 1
            output: { fps: 30, video: { crf: 23, preset: ultrafast } }
            outputs:
              - { filename: "{name}.vertical.mp4", size: 180x320, fit: fill }
              - { filename: "{name}.wide.mp4", size: 320x180 }
              - { filename: "{name}.poster.png", size: 180x320, fit: fill, poster: { at: 0.5 } }

            """)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)

        let result = try await DropcutProcess.run(["render", "--progress", "json", "--recipe", recipe, "--output", out, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let objects = try Self.objects(result.stdout)
        let byOutput = Dictionary(grouping: objects) { $0["output"] as? String ?? "" }
        let videos = ["clip.vertical.mp4", "clip.wide.mp4"].map { (out as NSString).appendingPathComponent($0) }
        for video in videos {
            try Self.checkOneOutput(byOutput[video] ?? [], frames: try FFprobe.decodedVideoFrames(of: video), duration: 1)
        }
        // The poster and the manifest: one "end" each, once they are in place.
        for name in ["clip.poster.png", "clip.dropcut.json"] {
            let path = (out as NSString).appendingPathComponent(name)
            #expect(byOutput[path]?.count == 1 && byOutput[path]?.first?["progress"] as? String == "end", "\(name): \(byOutput[path] ?? [])")
        }
        #expect(Set(byOutput.keys).count == 4, "\(byOutput.keys.sorted())")
        #expect(objects.last?["output"] as? String == (out as NSString).appendingPathComponent("clip.dropcut.json"), "the manifest last")
    }

    @Test func aFailedRenderEndsWithAFailedObject() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-progress-json-fail")
        defer { withExtendedLifetime(dir) {} }
        let broken = try Fixtures.makeFile(in: dir.path, name: "broken.mp4", contents: "not a video\n")

        let result = try await DropcutProcess.run(["render", "--progress", "json", broken])

        #expect(result.status == 1)
        let objects = try Self.objects(result.stdout)
        #expect(objects.count == 1 && objects.first?["progress"] as? String == "failed", "\(objects)")
        #expect((objects.first?["error"] as? String)?.contains("broken.mp4: is not a video or audio file") == true)
        #expect(result.stderr.hasPrefix("dropcut render: \(broken): is not a video or audio file"), "\(result.stderr)")
    }
}
