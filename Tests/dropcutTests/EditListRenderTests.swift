import Foundation
import Testing
import TestSupport

/// A clip whose edit lists show less than its media holds (a trimmed recording) renders
/// what the edit lists show: their length, and no picture from past their end — judged
/// against the ffmpeg CLI's reading of the same file.
@Suite struct EditListRenderTests {
    @Test func editListTrimIsTheClipsLength() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = dir.file("trimmed.mp4")
        // 3 s of media (a moving pattern and a tone), edit lists cut to the first 2 s;
        // tagged BT.709 so the comparison below measures only which frames are shown.
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                                          "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                                          "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                                          "-c:a", "aac", "-use_editlist", "1", "-shortest", input])
        try EditListFixture.trimEditLists(of: input, toSeconds: 2)
        // The fixture is what it claims: the movie header still says 3 s, the tracks as
        // their edit lists show them 2 s.
        #expect(Double(try FFprobe.format(of: input).duration ?? "") == 3)
        for kind in ["video", "audio"] {
            let stream = try #require(try FFprobe.stream(kind, of: input))
            #expect(abs((stream.duration ?? 0) - 2) < 0.01, "the fixture's \(kind) lasts \(stream.duration ?? 0) s")
        }

        let output = dir.file("out.mp4")
        let result = try DropcutProcess.run(["render", "--output", output, input])
        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        #expect(abs((video.duration ?? 0) - 2) <= 0.04, "video lasts \(video.duration ?? 0) s")
        #expect(abs((audio.duration ?? 0) - 2) <= 0.05, "audio lasts \(audio.duration ?? 0) s")
        // Frame for frame what the ffmpeg CLI decodes of the trimmed file: 50 frames, the
        // last one the last the edit list shows (testsrc2 moves every frame, so a frame from
        // past the edit would not match).
        let psnr = try PSNR.compare(output, input)
        #expect(psnr.frames.count == 50, "\(psnr)")
        #expect(psnr.min >= 30, "\(psnr)")
    }
}
