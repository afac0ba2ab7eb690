import Foundation
import Testing
import TestSupport

/// A clip held at a constant zoom (`transform` scale up to the documented 100, or a
/// `ken_burns` whose two rectangles are the same few pixels) is drawn by sampling only
/// what shows: the exact path used to scale the whole frame first (a zoom of 12 on 1080p
/// asked for a 23040x12960 picture and failed; 11 took 680 MB).
@Suite(.tags(.slow)) struct ConstantZoomRenderTests {
    static let asOutput = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"

    /// A soft 640x360 clip (blurred, so two correct resamplers agree), 10 frames.
    private func clip(_ dir: TemporaryDirectory) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: "soft.mp4", seconds: 1,
                                   video: "testsrc=size=640x360:rate=10,gblur=sigma=3", lossless: true)
    }

    private func render(_ dir: TemporaryDirectory, clip: String, _ clipKeys: String) throws -> (PeakMemory.Result, String) {
        let recipe = dir.file("zoom.yaml")
        try """
            version: 1
            output: { size: 640x360, fps: 10, video: { crf: 12 } }
            clips:
              - source: "{input}"
            \(clipKeys)

            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let output = dir.file("zoom-\(UUID().uuidString.prefix(8)).mp4")
        let result = try PeakMemory.run(BuildProducts.executable(named: "dropcut"), ["render", "--recipe", recipe, "--output", output, clip])
        return (result, output)
    }

    @Test func aConstantZoomOfTenIsTheCentreCropScaledUp() throws {
        let dir = try TemporaryDirectory()
        let source = try clip(dir)
        let (result, output) = try render(dir, clip: source, "    transform: [ { at: 0, scale: 10 } ]")
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try FFprobe.stream("video", of: output)?.frameCount == 10)
        // The centre tenth (64x36 at 288,162) scaled to the frame.
        let cropped = try PSNR.compare(output, source, filterB: "crop=64:36:288:162,scale=640:360:flags=bicubic,\(Self.asOutput)")
        let whole = try PSNR.compare(output, source, filterB: Self.asOutput)
        print("constant zoom 10: \(cropped.average) dB against ffmpeg's centre crop, \(whole.average) dB against the unzoomed frame; peak \(result.peakMiB) MiB")
        #expect(cropped.average >= 30, "\(cropped)")
        #expect(whole.average < cropped.average - 8, "\(whole)")
    }

    @Test func theDocumentedMaximumZoomAndATinyKenBurnsCropRenderInBoundedMemory() throws {
        let dir = try TemporaryDirectory()
        let source = try clip(dir)
        // Scale 100 on 640x360: the exact path's picture would be 64000x36000 (9 GB).
        let (zoomed, zoomedOutput) = try render(dir, clip: source, "    transform: [ { at: 0, scale: 100 } ]")
        // A 4x4 pixel crop held still: 160x scale.
        let (tiny, tinyOutput) = try render(dir, clip: source, "    ken_burns: { from: [300, 170, 4, 4], to: [300, 170, 4, 4] }")
        // The same clip unzoomed: the memory the render needs anyway.
        let (plain, _) = try render(dir, clip: source, "")
        try #require(plain.status == 0, "\(plain.stderr)")
        print("peak memory: unzoomed \(plain.peakMiB) MiB, zoom 100 \(zoomed.peakMiB) MiB, 4 px Ken Burns \(tiny.peakMiB) MiB")
        for (result, output) in [(zoomed, zoomedOutput), (tiny, tinyOutput)] {
            try #require(result.status == 0, "\(result.stderr)")
            #expect(try FFprobe.stream("video", of: output)?.frameCount == 10)
            #expect(result.peakMiB < plain.peakMiB + 64, "peak \(result.peakMiB) MiB against \(plain.peakMiB) MiB unzoomed")
        }
    }
}
