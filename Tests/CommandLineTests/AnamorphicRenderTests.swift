import Foundation
import Testing
import TestSupport

/// Anamorphic sources (non-square stored pixels) render at their display size in square
/// pixels, judged by ffprobe's display aspect ratio of the source and by ffmpeg's own
/// `scale=…,setsar=1` of it (PSNR).
@Suite(.tags(.slow)) struct AnamorphicRenderTests {
    /// A 640×480 clip with 16:9 pixels (shown 2.37:1) and NTSC DV's 720×480 with 10:11
    /// pixels (shown 654×480), in MP4 and MOV.
    @Test(arguments: [(640, 480, "16/9", "mp4", 1138), (720, 480, "10/11", "mov", 654)])
    func anamorphicClipRendersAtItsDisplaySizeWithSquarePixels(width: Int, height: Int, sar: String, ext: String,
                                                               displayWidth: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = dir.file("anamorphic.\(ext)")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30:duration=1",
                                          "-vf", "scale=out_color_matrix=bt709:out_range=tv,setsar=\(sar),format=yuv420p",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
                                          "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                          "-color_range", "tv", input])
        let source = try #require(try FFprobe.stream("video", of: input))
        let recipe = try Fixtures.makeFile(in: dir.path, name: "fine.yaml", contents: "version: 1\noutput: { video: { crf: 12 } }\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, input])

        try #require(result.status == 0, "\(result.stderr)")
        let probe = try await DropcutProcess.run(["probe", input])
        #expect(probe.stdout.contains("(pixels \(sar.replacingOccurrences(of: "/", with: ":")), shown \(displayWidth)x\(height))"), "\(probe.stdout)")
        let json = try await DropcutProcess.run(["probe", "--json", input]).stdout
        #expect(json.contains("\"sample_aspect_ratio\": \"\(sar.replacingOccurrences(of: "/", with: ":"))\"")
                && json.contains("\"display_width\": \(displayWidth)") && json.contains("\"field_order\": \"progressive\""), "\(json)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.width == displayWidth && video.height == height)
        #expect(["1:1", nil].contains(video.sampleAspectRatio), "\(String(describing: video.sampleAspectRatio))")
        // The source's display aspect as ffprobe computes it (width × SAR / height).
        let sourceAspect = Double(width) * (try #require(Self.ratio(source.sampleAspectRatio))) / Double(height)
        let outputAspect = Double(video.width ?? 0) / Double(video.height ?? 1)
        print("SAR \(sar): \(width)x\(height) -> \(video.width ?? 0)x\(video.height ?? 0), aspect \(outputAspect) vs \(sourceAspect)")
        #expect(abs(outputAspect / sourceAspect - 1) < 0.005)
        // The picture is ffmpeg's scale of the source to the same size, square pixels.
        let psnr = try PSNR.compare(output, input, filterB: "scale=\(displayWidth):\(height):flags=bicubic,setsar=1")
        print("SAR \(sar): PSNR vs ffmpeg's scale to square pixels: \(psnr)")
        #expect(psnr.min >= 38, "\(psnr)")
    }

    static func ratio(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: ":"), parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d > 0 else { return nil }
        return n / d
    }
}
