import Foundation
import Testing
import TestSupport

/// A clip whose edit lists show less than its media holds (a trimmed recording) renders
/// what the edit lists show: their length, and no picture from past their end — judged
/// against the ffmpeg CLI's reading of the same file.
@Suite(.tags(.slow)) struct EditListRenderTests {
    @Test func editListTrimIsTheClipsLength() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = dir.file("trimmed.mp4")
        // 3 s of media (a moving pattern and a tone), edit lists cut to the first 2 s;
        // tagged BT.709 so the comparison below measures only which frames are shown.
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
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
        let result = try await DropcutProcess.run(["render", "--output", output, input])
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

    /// Issue 28: a cut made without re-encoding (`-ss` with stream copy) starts its edit
    /// list inside a frame, and the frames before the cut stay in the file, flagged to be
    /// discarded (negative times, B-frame references). Those samples are not shown and do
    /// not count toward the length: 1 fps, cut at 1.5 s of 14 s, ffmpeg decodes 12 frames
    /// and renders 12 s although the header says 12.5 s — dropcut rendered 13 frames.
    @Test func samplesTheEditListDiscardsDoNotCount() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let quiet = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
        // Tagged BT.709 so the comparison below measures only which frames are shown.
        try await Command.runChecked("ffmpeg", quiet + ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=1:duration=14",
                                                  "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                                  "-c:v", "libx264", "-preset", "ultrafast", "-g", "100", "-bf", "2",
                                                  "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                                  "-color_range", "tv", dir.file("whole.mp4")])
        let input = dir.file("cut.mp4")
        try await Command.runChecked("ffmpeg", quiet + ["-ss", "1.5", "-i", dir.file("whole.mp4"), "-c", "copy", input])
        // The fixture is what it claims: a leading packet at a negative time, flagged
        // discard; a header of 12.5 s.
        let packets = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "packet=pts,flags", "-of", "csv=p=0", input])
        #expect(packets.split(separator: "\n").contains { $0.hasPrefix("-") && $0.hasSuffix("D") }, "\(packets.prefix(200))")
        #expect(Double(try FFprobe.format(of: input).duration ?? "") == 12.5)
        // ffmpeg's render of it: the oracle.
        let reference = dir.file("reference.mp4")
        try await Command.runChecked("ffmpeg", quiet + ["-i", input, "-c:v", "libx264", "-preset", "ultrafast", reference])
        let expected = try await Self.frameCount(of: reference)
        try #require(expected == 12, "ffmpeg renders \(expected) frames")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, input])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try await Self.frameCount(of: output) == expected)
        #expect(Double(try FFprobe.format(of: output).duration ?? "") == 12)
        // The same pictures: the first is the first shown, not a discarded one.
        let psnr = try PSNR.compare(output, reference)
        #expect(psnr.frames.count == expected, "\(psnr)")
        #expect(psnr.min >= 30, "\(psnr)")
    }

    static func frameCount(of path: String) async throws -> Int {
        let out = try await Command.runChecked("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                     "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
