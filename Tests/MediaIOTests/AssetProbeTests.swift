import Foundation
import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

@Suite struct AssetProbeTests {
    /// A 320x240 clip, black with a red 80x60 box in the top-left corner, tagged with a
    /// display rotation by stream copy (as phones store portrait video).
    static func markedClip(rotate degrees: Int, in dir: TemporaryDirectory) throws -> String {
        let plain = dir.file("plain.mp4"), tagged = dir.file("rot\(degrees).mov")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                          "-i", "color=black:s=320x240:d=1,drawbox=x=0:y=0:w=80:h=60:color=red:t=fill",
                                          "-c:v", "libx264", "-pix_fmt", "yuv420p", plain])
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", tagged])
        return tagged
    }

    /// ffmpeg's own autorotated first frame of a 320x240 clip, as RGB rows; quarter turns
    /// swap its width and height.
    static func ffmpegUpright(_ path: String, quarterTurn: Bool, in dir: TemporaryDirectory) throws -> (width: Int, height: Int, rgb: Data) {
        let raw = dir.file("upright.rgb")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return quarterTurn ? (240, 320, data) : (320, 240, data)
    }

    @Test(arguments: [90, 180, 270])
    func preferredTransformMatchesFFmpegAutorotation(degrees: Int) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.markedClip(rotate: degrees, in: dir)
        let media = try AssetProbe().probe(clip)
        let video = try #require(media.video)
        #expect(video.naturalSize == PixelSize(width: 320, height: 240))
        let upright = video.naturalSize.applying(video.preferredTransform)
        let oracle = try Self.ffmpegUpright(clip, quarterTurn: degrees % 180 == 90, in: dir)
        #expect(upright == PixelSize(width: oracle.width, height: oracle.height))
        // The red box's centre, moved by our transform, must be red in ffmpeg's frame, and
        // the opposite corner black.
        let centre = video.preferredTransform.apply(to: Point(x: 40, y: 30))
        func red(_ p: Point) -> UInt8 {
            let x = min(max(Int(p.x), 0), oracle.width - 1), y = min(max(Int(p.y), 0), oracle.height - 1)
            return oracle.rgb[(y * oracle.width + x) * 3]
        }
        #expect(red(centre) > 200, "rotate=\(degrees): marker expected at \(centre)")
        #expect(red(video.preferredTransform.apply(to: Point(x: 280, y: 210))) < 50)
    }

    @Test func unrotatedClipHasIdentityTransformAndNominalRate() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, fps: 25, seconds: 2)
        let media = try AssetProbe().probe(clip)
        let video = try #require(media.video), audio = try #require(media.audio)
        #expect(video.preferredTransform == .identity)
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 25))
        #expect(video.trackID == 1 && audio.trackID == 2)
        #expect(audio.sampleRate == 48_000)
        #expect(abs(video.timeRange.duration.seconds - 2) < 0.05)
        #expect(video.timeRange.start == .zero)
    }

    @Test func audioFirstFilesKeepStreamOrderInTrackIDs() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, audioFirst: true)
        let media = try AssetProbe().probe(clip)
        #expect(media.audio?.trackID == 1 && media.video?.trackID == 2)
    }

    @Test func variableFrameRateIsDetected() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // One second at 30 fps followed by one at 10 fps, kept variable.
        let clip = dir.file("vfr.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=1",
                                          "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=1",
                                          "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]", "-vsync", "vfr",
                                          "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        let stream = try #require(try Demuxer(path: clip).streams.first)
        #expect(stream.isVariableFrameRate)
        #expect(stream.frameDuration == MediaTime(value: 1, timescale: 30))
        let constant = try #require(try Demuxer(path: try Fixtures.makeClip(in: dir.path, name: "cfr.mp4")).streams.first)
        #expect(!constant.isVariableFrameRate)
        // A 3 s 29.97 fps clip on a 600 Hz clock, remuxed: its average rate counts 90 frames
        // over 89 frames' span (30.29 fps, 1.05 % off) and it is still constant.
        let stamped = dir.file("stamped.mp4"), remuxed = dir.file("remuxed.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=3",
                                          "-r", "30000/1001", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-video_track_timescale", "600", stamped])
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-i", stamped, "-c", "copy", remuxed])
        let short = try #require(try Demuxer(path: remuxed).streams.first)
        let average = try #require(short.averageFrameDuration)
        #expect(abs(1 / average.seconds / (30000.0 / 1001) - 1) > 0.01, "the fixture's average is not off by more than 1 %")
        #expect(!short.isVariableFrameRate)
    }

    /// A variable rate whose frames all lie on its nominal grid (30 fps, then every third
    /// frame: 10 fps) has a grid, the places between left out. 30 fps then 12, stamped on
    /// a 600 Hz clock, has none: ffmpeg states 60 fps for it (the finest step), on which
    /// the 12 fps frames are one place in five — a rate of its own, not frames left out.
    @Test(arguments: [(10, false, true), (12, true, false)])
    func aVariableRateHasAGridWhenItsFramesAreLeftOutOfOne(_ slower: Int, _ fineClock: Bool, _ onGrid: Bool) throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("vfr.mp4")
        // 30 frames 1/30 s apart, then 30 more 1/slower s apart.
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=2",
                                          "-vf", "settb=1/600,setpts='if(lt(N,30),N/30,1+(N-30)/\(slower))/TB'", "-fps_mode", "passthrough"]
                               + (fineClock ? ["-enc_time_base:v", "1/600"] : [])
                               + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-video_track_timescale", "600", clip])
        let video = try #require(try AssetProbe().probe(clip).video)
        #expect(video.isVariableFrameRate)
        #expect(!onGrid || video.frameDuration == MediaTime(value: 1, timescale: 30))
        #expect(video.variableRateLiesOnGrid == onGrid && video.hasFrameGrid == onGrid)
    }

    /// A second video stream is named as left out; the first (the default) is used.
    @Test func otherVideoStreamsAreListed() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("angles.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1",
                                          "-f", "lavfi", "-i", "smptebars=size=96x64:rate=10:duration=1",
                                          "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-preset", "ultrafast", clip])
        let media = try AssetProbe().probe(clip)
        #expect(media.video?.trackID == 1 && media.video?.encodedSize == PixelSize(width: 160, height: 120))
        #expect(media.otherVideoStreams == [1])
        #expect(try AssetProbe().probe(try Fixtures.makeClip(in: dir.path, name: "one.mp4")).otherVideoStreams.isEmpty)
    }

    @Test func unreadableFilesThrowNamingThePath() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let text = try Fixtures.makeFile(in: dir.path, name: "notes.mp4", contents: "not a movie")
        #expect(throws: FFmpegError.self) { try AssetProbe().probe(text) }
        do { _ = try AssetProbe().probe(text) } catch let error as FFmpegError { #expect(error.path == text) }
    }
}
