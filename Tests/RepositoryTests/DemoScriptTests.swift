import Foundation
import Testing
import TestSupport

/// `scripts/demo`, the README's "run it", with small clips and the debug build: it runs to
/// completion and leaves the outputs it promises.
@Suite(.tags(.slow)) struct DemoScriptTests {
    @Test func demoRendersBothFoldersAndRefusesTheBrokenClip() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-demo")
        let result = try await Command.run(Repository.path("scripts/demo"), [],
                                     environment: ["DROPCUT_BINARY": try BuildProducts.executable(named: "dropcut"),
                                                   "DROPCUT_DEMO_DIR": dir.path, "DROPCUT_DEMO_SMALL": "1"])
        #expect(result.status == 0, "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(result.stdout.contains("dropcut watch --once: 3 done, 1 failed"))
        #expect(result.stdout.contains("recently done"), "dropcut status printed")

        func video(_ relative: String) throws -> [Int?] {
            let streams = try FFprobe.streams(of: dir.file(relative))
            #expect(streams.contains { $0.codecType == "audio" }, "\(relative) has sound")
            return streams.first { $0.codecType == "video" }.map { [$0.width, $0.height] } ?? []
        }
        // The upright phone clip: its 90° display matrix applied, portrait pixels.
        #expect(try video("phone/outbox/rotated.dropcut.mp4") == [240, 320])
        // The sidecar recipe (watermark-only) kept the size.
        #expect(try video("phone/outbox/landscape.watermarked.mp4") == [320, 240])
        // The folder recipe (social-vertical) with the inbox's recipe.yaml size.
        #expect(try video("social/outbox/interview.social.mp4") == [360, 640])
        let error = try String(contentsOfFile: dir.file("phone/failed/broken.mp4.error.txt"), encoding: .utf8)
        #expect(error.contains("broken.mp4") && error.contains("Invalid data"))
        #expect(FileManager.default.fileExists(atPath: dir.file("phone/archive/rotated.mov")))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.file("phone/inbox")).filter { !$0.hasPrefix(".") }
        #expect(left == [], "inbox emptied")
    }
}
