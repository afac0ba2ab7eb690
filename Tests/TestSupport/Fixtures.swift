import Foundation

/// Test media made with the `ffmpeg` command-line tool (used only by tests, as a fixture
/// maker), plus plain files for the bad-input cases.
public enum Fixtures {
    /// Encodes a `seconds`-long clip into `dir/name` and returns its path: a `testsrc2`
    /// pattern at `width`x`height` and `fps` encoded with `videoCodec`, and, when `audio`,
    /// a mono 440 Hz sine at `sampleRate` encoded as AAC. `audioFirst` writes the audio
    /// stream before the video stream (as some phones do). The container follows `name`'s
    /// extension. Throws a `CommandError` with ffmpeg's command line and stderr on failure.
    /// Made once per test process for the same arguments, then copied (`FixtureCache`).
    public static func makeClip(
        in dir: String,
        name: String = "clip.mp4",
        width: Int = 320,
        height: Int = 240,
        fps: Int = 30,
        seconds: Int = 1,
        audio: Bool = true,
        sampleRate: Int = 48_000,
        audioFirst: Bool = false,
        videoCodec: String = "libx264"
    ) throws -> String {
        precondition(audio || !audioFirst, "audioFirst needs audio")
        let output = (dir as NSString).appendingPathComponent(name)
        var args = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=\(fps):duration=\(seconds)"]
        if audio {
            args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(sampleRate):duration=\(seconds)"]
            args += audioFirst ? ["-map", "1:a", "-map", "0:v"] : ["-map", "0:v", "-map", "1:a"]
            args += ["-c:a", "aac"]
        }
        args += ["-c:v", videoCodec]
        if videoCodec == "libx264" { args += ["-preset", "ultrafast"] }
        args += ["-pix_fmt", "yuv420p", "-t", "\(seconds)"]
        try FixtureCache.ffmpeg(args, output: output)
        return output
    }

    /// Encodes `seconds` of lavfi-generated sources into `dir/name` and returns its path:
    /// `video` (a lavfi video graph: frame numbers as bars, flashes...) as H.264 —
    /// lossless with `lossless` —, `audio` (a lavfi audio graph: tones, beeps) as AAC
    /// 192k, or as PCM in a `.wav`. For clips whose content a test computes. Made once per
    /// test process for the same arguments, then copied (`FixtureCache`).
    public static func makeGenerated(in dir: String, name: String, seconds: Double, video: String? = nil,
                                     audio: String? = nil, lossless: Bool = false) throws -> String {
        let output = (dir as NSString).appendingPathComponent(name)
        var args = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
        if let video { args += ["-f", "lavfi", "-i", video] }
        if let audio { args += ["-f", "lavfi", "-i", audio] }
        if video != nil { args += ["-c:v", "libx264", "-preset", "ultrafast"] + (lossless ? ["-qp", "0"] : []) }
        if audio != nil, !name.hasSuffix(".wav") { args += ["-c:a", "aac", "-b:a", "192k"] }
        try FixtureCache.ffmpeg(args + ["-t", "\(seconds)"], output: output)
        return output
    }

    /// Runs ffmpeg with `arguments` to make `output` (added last) from generated sources
    /// only (lavfi): made once per test process for the same arguments, then copied
    /// (`FixtureCache`).
    public static func generate(_ arguments: [String], output: String) throws {
        try FixtureCache.ffmpeg(arguments, output: output)
    }

    /// `generate`, awaited (see the async `makeClip`).
    public static func generate(_ arguments: [String], output: String) async throws {
        try await OwnThread.run { try generate(arguments, output: output) }
    }

    /// `makeClip`, awaited: ffmpeg runs and is waited for on a thread of its own
    /// (`OwnThread`), leaving the calling task's pool thread to other tests meanwhile.
    public static func makeClip(
        in dir: String,
        name: String = "clip.mp4",
        width: Int = 320,
        height: Int = 240,
        fps: Int = 30,
        seconds: Int = 1,
        audio: Bool = true,
        sampleRate: Int = 48_000,
        audioFirst: Bool = false,
        videoCodec: String = "libx264"
    ) async throws -> String {
        try await OwnThread.run {
            try makeClip(in: dir, name: name, width: width, height: height, fps: fps, seconds: seconds, audio: audio,
                         sampleRate: sampleRate, audioFirst: audioFirst, videoCodec: videoCodec)
        }
    }

    /// `makeGenerated`, awaited (see the async `makeClip`).
    public static func makeGenerated(in dir: String, name: String, seconds: Double, video: String? = nil,
                                     audio: String? = nil, lossless: Bool = false) async throws -> String {
        try await OwnThread.run {
            try makeGenerated(in: dir, name: name, seconds: seconds, video: video, audio: audio, lossless: lossless)
        }
    }

    /// Writes `contents` (empty by default: a zero-byte file) to `dir/name`; returns the path.
    public static func makeFile(in dir: String, name: String, contents: String = "") throws -> String {
        let output = (dir as NSString).appendingPathComponent(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: output))
        return output
    }
}
