import Foundation
import Testing
import TestSupport

/// `dropcut render` stopped half way, and the metadata it carries over.
@Suite(.tags(.slow)) struct RenderInterruptTests {
    @Test func ctrlCStopsTheRenderAndLeavesNothingBehind() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // x264's slowest preset on 20 s of 640x360 keeps the render going for many
        // seconds, so the signal surely lands mid-render (an MPEG-4 Part 2 clip: an
        // untagged upright H.264 one would pass through at once).
        let clip = try Fixtures.makeClip(in: dir.path, width: 640, height: 360, seconds: 20, videoCodec: "mpeg4")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: "version: 1\noutput: { video: { preset: veryslow } }\n")
        let outbox = dir.path + "/outbox"
        try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuildProducts.executable(named: "dropcut"))
        process.arguments = ["render", "--recipe", recipe, "--output", outbox + "/", clip]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until the partial output exists: the render is under way. Poll on this
        // thread (not with Task.sleep): the parallel suite can keep the cooperative pool
        // busy for longer than a render lasts.
        var sawPartial = false
        for _ in 0..<3000 where !sawPartial {
            sawPartial = (try FileManager.default.contentsOfDirectory(atPath: outbox)).contains { $0.contains(".partial-") }
            if !sawPartial { usleep(20_000) }
        }
        #expect(sawPartial, "the render never started writing")
        process.interrupt()   // SIGINT, as Ctrl-C sends
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(process.terminationStatus): \(errors)")
        #expect(errors.contains("interrupted"), "\(errors)")
        let left = try FileManager.default.contentsOfDirectory(atPath: outbox)
        #expect(left.isEmpty, "left behind: \(left)")
    }

    @Test func creationTimeIsCarriedOverAndNoRotationIsLeft() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let base = try await Fixtures.makeClip(in: dir.path, name: "base.mp4", seconds: 1)
        let tagged = dir.path + "/tagged.mov"
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", base, "-c", "copy",
                                          "-metadata", "creation_time=2024-05-01T12:34:56.000000Z",
                                          "-metadata:s:v:0", "rotate=90", tagged])
        let output = dir.path + "/out.mp4"
        let result = try await DropcutProcess.run(["render", "--output", output, tagged])
        #expect(result.status == 0, "\(result.stderr)")
        let tags = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time:stream_side_data",
                                                      "-of", "default=noprint_wrappers=1", output])
        #expect(tags.contains("creation_time=2024-05-01T12:34:56"), "\(tags)")
        #expect(!tags.lowercased().contains("rotation"), "\(tags)")
    }
}
