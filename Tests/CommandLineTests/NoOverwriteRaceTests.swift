import Foundation
import Testing
import TestSupport

/// `dropcut render -n` against a file that appears while the render runs: the name was
/// free when the render started and is taken before it publishes. The file that appeared
/// is never replaced — a single output or any file of a deliverable set — and nothing of
/// the render is published: exit 1 naming the file, no other file of the set, no
/// manifest, no temporary file. The race is proven, not hoped for: the file is created
/// only once the render's temporary files exist, and the process must still be running
/// then.
@Suite(.tags(.slow)) struct NoOverwriteRaceTests {
    static let intruder = Data("made by someone else during the render\n".utf8)

    enum Shape: String, CaseIterable { case single, set }

    @Test(arguments: Shape.allCases)
    func aFileThatAppearsMidRenderSurvivesAndTheRenderFails(shape: Shape) throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-no-overwrite-race")
        // MPEG-4 Part 2 at x264's slow preset: seconds of rendering (an untagged upright
        // H.264 clip would be copied at once).
        let clip = try Fixtures.makeClip(in: dir.path, width: 640, height: 360, seconds: 6, videoCodec: "mpeg4")
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let recipe: String
        let taken: String
        switch shape {
        case .single:
            recipe = try Fixtures.makeFile(in: dir.path, name: "one.yaml", contents: "version: 1\noutput: { video: { preset: slow } }\n")
            taken = "clip.dropcut.mp4"
        case .set:
            recipe = try Fixtures.makeFile(in: dir.path, name: "set.yaml", contents: """
                version: 1
                output: { video: { preset: slow } }
                outputs:
                  - { filename: "{name}.wide.mp4", size: 640x360 }
                  - { filename: "{name}.small.mp4", size: 320x180 }
                  - { filename: "{name}.poster.png", size: 320x180, poster: { at: 0.5 } }

                """)
            taken = "clip.small.mp4"   // the second file of three: the first may already be out
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuildProducts.executable(named: "dropcut"))
        process.arguments = ["render", "-n", "--progress", "none", "--recipe", recipe, "--output", out + "/", clip]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The render is under way once its temporary files exist; poll on this thread.
        var rendering = false
        for _ in 0..<3000 where !rendering {
            rendering = try FileManager.default.contentsOfDirectory(atPath: out).contains { $0.contains(".partial-") }
            if !rendering { usleep(10_000) }
        }
        try #require(rendering, "the render never started writing")
        let intruder = (out as NSString).appendingPathComponent(taken)
        try Self.intruder.write(to: URL(fileURLWithPath: intruder))
        // The race happened: the file appeared while the render was still running.
        let stillRunning = process.isRunning
        let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(stillRunning, "the render ended before the file appeared: no race (\(errors))")

        #expect(process.terminationStatus == 1, "\(process.terminationStatus): \(errors)")
        #expect(errors.contains("\(intruder) exists; -n/--no-overwrite"), "\(errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: intruder)) == Self.intruder, "the file that appeared was replaced")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [taken],
                "nothing of the render is published and no temporary file is left")
    }
}
