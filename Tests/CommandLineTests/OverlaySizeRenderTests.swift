import Foundation
import Testing
import TestSupport

/// What only the font or the picture tells (a long line of text, a tall image drawn at a
/// width) is bounded by the output too: refused before anything that size is allocated,
/// naming the overlay, with peak memory that of an ordinary render.
@Suite(.tags(.slow)) struct OverlaySizeRenderTests {
    private func render(_ dir: TemporaryDirectory, overlays: String) throws -> PeakMemory.Result {
        let clip = try Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1, audio: false)
        let recipe = dir.file("overlay.yaml")
        try "version: 1\noutput: { size: 320x240 }\noverlays:\n\(overlays)".write(toFile: recipe, atomically: true, encoding: .utf8)
        return try PeakMemory.run(BuildProducts.executable(named: "dropcut"),
                                  ["render", "--recipe", recipe, "--output", dir.file("out.mp4"), clip])
    }

    @Test func aLineOfTextWiderThanTwiceTheOutputIsRefusedBeforeItIsSet() async throws {
        let dir = try TemporaryDirectory()
        // 480 px is within the size rule (twice 240); 4000 such W's are not within 640 px.
        let result = try render(dir, overlays: "  - text: \"\(String(repeating: "W", count: 4000))\"\n    size: 480px\n")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("larger than an overlay may be (640x480, 2 times the output)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
        // Against an ordinary render with a short text, measured the same way (a spawned
        // child's peak also counts what it shared with the test process before exec).
        let baseline = try render(dir, overlays: "  - text: \"WWWW\"\n    size: 48px\n")
        #expect(baseline.status == 0, "\(baseline.stderr)")
        print("text refused: peak \(result.peakMiB) MiB; a short text rendered: \(baseline.peakMiB) MiB")
        #expect(result.peakMiB < baseline.peakMiB + 64, "peak \(result.peakMiB) MiB against \(baseline.peakMiB) MiB")
    }

    @Test func aTallImageDrawnWithinTheWidthIsStillBoundedByTheHeight() async throws {
        let dir = try TemporaryDirectory()
        // 40x800 drawn 40 wide is 800 tall: past 480.
        try await Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=40x800", "-frames:v", "1", dir.file("tall.png")])
        let result = try render(dir, overlays: "  - image: tall.png\n")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("tall.png: drawn at 40x800 it is larger than an overlay may be"), "\(result.stderr)")
        // Drawn 20 wide it is 400 tall, within the bound: rendered.
        let fits = try render(dir, overlays: "  - image: tall.png\n    width: 20px\n")
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    @Test func validateFindsTheTextSizeAtItsLine() async throws {
        let dir = try TemporaryDirectory()
        let recipe = dir.file("huge.yaml")
        try "version: 1\noutput: { size: 320x240 }\noverlays:\n  - text: \"WWWW\"\n    size: 32768px\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let result = try await DropcutProcess.run(["validate", recipe])
        #expect(result.status == 1)
        #expect((result.stdout + result.stderr).contains("huge.yaml:4:5: overlay text size is 32768 px"), "\(result.stdout)\(result.stderr)")
    }
}
