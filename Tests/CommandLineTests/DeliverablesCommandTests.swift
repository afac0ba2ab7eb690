import Foundation
import Testing
import TestSupport

/// `outputs:` through the command line: `dropcut render` writes every deliverable and the
/// manifest, `dropcut plan` lists them, and the daemon publishes such a set whole.
@Suite(.tags(.slow)) struct DeliverablesCommandTests {
    static let recipe = """
        version: 1
        output: { fps: 30, video: { crf: 23, preset: ultrafast } }
        outputs:
          - { filename: "{name}.vertical.mp4", size: 180x320, fit: fill }
          - { filename: "{name}.wide.mp4", size: 720p }
          - { filename: "{name}.poster.png", size: 180x320, fit: fill, poster: { at: 0.5 } }
          - { filename: "{name}.preview.webp", preview: { width: 160, fps: 5 } }

        """

    @Test func renderWritesEveryDeliverableAndTheManifest() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-deliverables-cli")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = dir.file("set.yaml")
        try Self.recipe.write(toFile: recipe, atomically: false, encoding: .utf8)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", out, clip])
        #expect(result.status == 0, "\(result.stderr)")
        let names = ["clip.vertical.mp4", "clip.wide.mp4", "clip.poster.png", "clip.preview.webp", "clip.dropcut.json"]
        #expect(result.stdout == names.map { "\(clip) -> \(out)/\($0)\n" }.joined())
        // Nothing hidden left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == names.sorted())
        // 720p never upscales: the 320x240 clip stays 320x240.
        #expect(try FFprobe.stream("video", of: (out as NSString).appendingPathComponent("clip.wide.mp4")).map { [$0.width, $0.height] } == [320, 240])
        #expect(try FFprobe.stream("video", of: (out as NSString).appendingPathComponent("clip.vertical.mp4")).map { [$0.width, $0.height] } == [180, 320])
        #expect(try FFprobe.streams(of: (out as NSString).appendingPathComponent("clip.poster.png")).first?.codecName == "png")

        // Beside the clip without --output; a file as --output is refused.
        let beside = try await DropcutProcess.run(["render", "--recipe", recipe, clip])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(names.allSatisfy { FileManager.default.fileExists(atPath: dir.file($0)) })
        let file = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", dir.file("x.mp4"), clip])
        #expect(file.status == 1)
        #expect(file.stderr.contains("is not a directory: a recipe with outputs: writes several files, give a directory"), "\(file.stderr)")
    }

    @Test func planListsEveryDeliverable() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-deliverables-plan")
        defer { withExtendedLifetime(dir) {} }
        // MPEG-4 Part 2: the wide video (the clip's own size) is encoded, sharing the decode,
        // not copied (as an untagged upright H.264 clip would be).
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1, videoCodec: "mpeg4")
        let recipe = dir.file("set.yaml")
        try Self.recipe.write(toFile: recipe, atomically: false, encoding: .utf8)
        let result = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", dir.file("t.svg"), clip])
        #expect(result.status == 0, "\(result.stderr)")
        let all = result.stdout.split(separator: "\n").map(String.init)
        // Under each video, what of it is copied and what encoded, and why (as for one output).
        for name in ["clip.vertical.mp4", "clip.wide.mp4"] {
            let at = try #require(all.firstIndex { $0.hasPrefix("  video  \(name) ") })
            #expect(all[at + 1].hasPrefix("    video: re-encoded: the source's codec is mpeg4, the output's h264"), "\(result.stdout)")
            #expect(all[at + 2].hasPrefix("    audio: "), "\(result.stdout)")
        }
        let lines = all.filter { !$0.hasPrefix("    ") }
        #expect(Array(lines.prefix(7)) == [
            "\(clip) -> 4 deliverables from 1 decode of the clip",
            "  one decode: clip.vertical.mp4, clip.wide.mp4, clip.poster.png, clip.preview.webp",
            "  video  clip.vertical.mp4 180x320 30 fps h264 crf 23 ultrafast, aac 160k 1.000 s",
            "  video  clip.wide.mp4 320x240 30 fps h264 crf 23 ultrafast, aac 160k 1.000 s",
            "  poster clip.poster.png 180x320 png at 0.500 s",
            "  preview clip.preview.webp 160x120 webp from 0.000 s, 5 frames at 5 fps, silent, looping",
            "  manifest clip.dropcut.json (written last)",
        ], "\(result.stdout)")
        // Nothing written but the timeline asked for.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.mp4", "set.yaml", "t.svg"])
        #expect(try String(contentsOfFile: dir.file("t.svg"), encoding: .utf8).contains("clip.vertical.mp4, clip.wide.mp4"))
    }

    /// The daemon renders a dropped recipe with `outputs:` (a sidecar) as `dropcut render`
    /// does — every kind, videos, poster and preview — and publishes the whole set with its
    /// manifest; nothing hidden is left (DeliverableSetDaemonTests: failures and crashes).
    @Test func theDaemonPublishesASidecarsDeliverables() async throws {
        let h = try DaemonHarness(retries: 2)
        try h.drop("clip.mp4")
        try h.write("clip.yaml", Self.recipe)

        let result = try await h.runOnce()
        #expect(result.status == 0, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("1 done, 0 failed"), "\(result.stdout)")
        let names = ["clip.vertical.mp4", "clip.wide.mp4", "clip.poster.png", "clip.preview.webp", "clip.dropcut.json"]
        #expect(h.files(h.outbox, hidden: true) == names.sorted())
        #expect(h.files(h.archive) == ["clip.mp4", "clip.yaml"])
        #expect(try FFprobe.stream("video", of: (h.outbox as NSString).appendingPathComponent("clip.vertical.mp4")).map { [$0.width, $0.height] } == [180, 320])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: (h.outbox as NSString).appendingPathComponent("clip.dropcut.json")))) as? [String: Any]
        #expect((manifest?["files"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["video", "video", "poster", "preview"])
        #expect(result.stderr.contains("done clip.mp4 -> \(names.joined(separator: ", "))"), "\(result.stderr)")
    }

    /// The manifest says how each video was made: a copy the plan chose and the render
    /// kept says `copied`; one that failed while rendering (a damaged packet: the plan is
    /// made before any packet is read) says `encoded` and why, as the render's log does.
    @Test func theManifestSaysHowEachVideoWasMadeEvenWhenACopyFailedWhileRendering() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-deliverables-made")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        // A NAL length flipped past its packet's end.
        let damaged = dir.file("damaged.mp4")
        try await DamagedPacketFixture.damage(clip, packets: [30], into: damaged)
        let recipe = dir.file("set.yaml")
        try "version: 1\noutputs:\n  - { filename: \"{name}.same.mp4\" }\n  - { filename: \"{name}.small.mp4\", size: 160x120 }\n"
            .write(toFile: recipe, atomically: false, encoding: .utf8)
        func made(_ input: String, name: String) async throws -> [String] {
            let out = dir.file("out-\(name)")
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
            let plan = try await DropcutProcess.run(["plan", "--recipe", recipe, input])
            #expect(plan.stdout.contains("video: copied from"), "\(plan.stdout)")
            let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", out, input])
            #expect(result.status == 0, "\(result.stderr)")
            let manifest = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: (out as NSString).appendingPathComponent("\(name).dropcut.json")))) as? [String: Any]
            return (manifest?["files"] as? [[String: Any]])?.map { $0["video"] as? String ?? "-" } ?? []
        }
        let clean = try await made(clip, name: "clip")
        #expect(clean == ["copied", "encoded"], "\(clean)")
        let broken = try await made(damaged, name: "damaged")
        #expect(broken.count == 2 && broken[0].hasPrefix("encoded (the planned copy failed: ") && broken[1] == "encoded", "\(broken)")
    }
}
