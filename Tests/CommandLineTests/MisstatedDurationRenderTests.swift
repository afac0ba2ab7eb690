import Foundation
import Testing
import TestSupport

/// `dropcut render` on clips whose containers misstate their duration (issue 17): they
/// render with their real durations, as quickly as any 2 s clip. ffprobe and ffmpeg's own
/// decode are the oracles.
@Suite(.tags(.slow)) struct MisstatedDurationRenderTests {
    /// A fragmented MP4 whose segment index claims ~39 hours for 2 s of packets used to
    /// fail with "no decodable video frames" after planning 4,194,350 frames (and, where
    /// the reader could hold the last frame, to render for hours).
    @Test func aFragmentedMP4ClaimingHoursRendersItsTwoSeconds() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeFragmentedMP4WithMisstatedDuration(in: dir.path)
        let claimed = try FFprobe.format(of: clip).duration.flatMap(Double.init) ?? 0
        try #require(claimed > 100_000, "the fixture's header should claim hours, ffprobe says \(claimed) s")

        let output = dir.file("out.mp4")
        let start = Date()
        let result = try Command.runBlocking("timeout", ["-s", "KILL", "120", try BuildProducts.executable(named: "dropcut"),
                                                 "render", "--output", output, clip])
        let seconds = Date().timeIntervalSince(start)

        print("fragmented MP4 claiming \(claimed) s: rendered in \(String(format: "%.2f", seconds)) s")
        try #require(result.status == 0, "status \(result.status): \(result.stderr.suffix(800))")
        #expect(seconds < 30, "took \(seconds) s")
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        let videoSeconds = try #require(video.duration), audioSeconds = try #require(audio.duration)
        #expect(abs(videoSeconds - 2) < 0.1, "video \(videoSeconds) s")
        #expect(abs(audioSeconds - 2) < 0.1, "audio \(audioSeconds) s")
        let frames = try FFprobe.decodedVideoFrames(of: output)
        #expect((59...61).contains(frames), "\(frames) frames")
        // The pictures are the clip's, frame for frame, as ffmpeg decodes it.
        let psnr = try PSNR.compare(output, clip)
        #expect(psnr.min >= 30, "\(psnr)")
    }

    /// A WebM written to a pipe (as browsers and live recorders do) says nothing of its
    /// duration: it is measured from its packets and rendered whole. Mutated ones of this
    /// kind used to "render" to an empty file with exit 0.
    @Test func aWebMWithoutADurationRendersItsRealLength() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeWebMWithoutDuration(in: dir.path)
        #expect(try FFprobe.format(of: clip).duration == nil)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])
        #expect(result.status == 0, "\(result.stderr)")
        let streams = try FFprobe.streams(of: output)
        #expect(streams.map(\.codecType) == ["video", "audio"])
        let seconds = try FFprobe.format(of: output).duration.flatMap(Double.init) ?? 0
        #expect(abs(seconds - 2) < 0.1, "\(seconds) s")
    }

    /// Issue 28: a clip whose header and packets agree on more than 24 hours — two frames
    /// 50 000 s apart, a few hundred bytes — is refused by name with its length, not
    /// rendered for days (as a damaged time base could make any clip).
    @Test func aClipLongerThanADayIsRefusedByName() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("long.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "color=red:size=64x64:rate=1/50000", "-frames:v", "2",
                                          "-c:v", "libx264", "-preset", "ultrafast", clip])
        try #require(Double(try FFprobe.format(of: clip).duration ?? "") == 100_000)
        let output = dir.file("out.mp4")
        let result = try await Command.run("timeout", ["-s", "KILL", "60", try BuildProducts.executable(named: "dropcut"),
                                                 "render", "--output", output, clip])
        #expect(result.status == 1, "\(result.stderr.suffix(600))")
        #expect(result.stderr.contains("\(clip): it lasts 100000 s by its timestamps; dropcut reads clips of at most 24 hours (86400 s)"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
