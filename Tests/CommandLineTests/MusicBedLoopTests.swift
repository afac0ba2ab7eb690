import Foundation
import Testing
import TestSupport

/// Issue 28: a looped music bed goes back to the start of its file at every loop point,
/// and that must not depend on the demuxer's seek. A real 2.2 s LAME -V2 MP3 (Xing/LAME
/// header, two attached cover pictures) stopped a render at 70 % with `av_seek_frame:
/// Operation not permitted`: FFmpeg's MP3 demuxer would not seek in it. Each format
/// dropcut takes as music, a short bed under a 6 s silent clip, must render and be
/// heard across the whole length.
@Suite(.tags(.slow)) struct MusicBedLoopTests {
    static let quiet = ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    /// The bed: a 330 Hz tone at amplitude 0.5, 2.2 s long.
    static let tone = "aevalsrc=0.5*sin(2*PI*330*t):s=44100:d=2.2"

    /// The bed's file and the encoder arguments for it, by name.
    static let formats: [String: [String]] = [
        // The file: VBR (Xing/LAME header) with two cover pictures as attached
        // picture streams.
        "bed.mp3": ["-f", "lavfi", "-i", "color=red:size=64x64:duration=1", "-f", "lavfi", "-i", "color=blue:size=32x32:duration=1",
                    "-map", "0:a", "-map", "1:v", "-map", "2:v", "-c:a", "libmp3lame", "-q:a", "2",
                    "-c:v", "mjpeg", "-frames:v", "1", "-disposition:v:0", "attached_pic", "-disposition:v:1", "attached_pic"],
        "bed.m4a": ["-c:a", "aac"],
        "bed.aac": ["-c:a", "aac", "-f", "adts"],
        "bed.wav": ["-c:a", "pcm_s16le"],
        "bed.flac": ["-c:a", "flac"],
        "bed.ogg": ["-c:a", "libvorbis"],
        "bed.opus": ["-c:a", "libopus"],
        "bed.ac3": ["-c:a", "ac3"],
    ]

    @Test(arguments: ["bed.mp3", "bed.m4a", "bed.aac", "bed.wav", "bed.flac", "bed.ogg", "bed.opus", "bed.ac3"])
    func aShortBedLoopsUnderALongerClip(name: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let bed = dir.file(name)
        try await Command.runChecked("ffmpeg", Self.quiet + ["-f", "lavfi", "-i", Self.tone] + Self.formats[name]! + [bed])
        if name == "bed.mp3" {
            // The fixture is what it claims: an MP3 with two attached pictures.
            let streams = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name:stream_disposition=attached_pic",
                                                             "-of", "csv=p=0", bed])
            #expect(streams.split(separator: "\n").filter { $0.hasPrefix("mjpeg,1") }.count == 2, "\(streams)")
        }
        let clip = dir.file("clip.mp4")
        try await Command.runChecked("ffmpeg", Self.quiet + ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=6",
                                                       "-c:v", "libx264", "-preset", "ultrafast", clip])
        let recipe = try Fixtures.makeFile(in: dir.path, name: "loop.yaml",
                                           contents: "version: 1\nmusic: { source: \(name), loop: true }\n")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(name): \(result.stderr.suffix(800))")
        let samples = try DecodedMedia.monoSamples(of: output)
        #expect(abs(samples.count - 6 * 48_000) <= 1024, "\(name): \(samples.count) samples")
        // Heard everywhere: each 100 ms is within 3 dB of the tone's level (the 50 ms
        // crossfades at the loop points included), none silent.
        let expected = 20 * log10(0.5 / sqrt(2.0))
        var off: [String] = []
        for start in stride(from: 0, to: samples.count - 4_800, by: 4_800) {
            let level = DecodedMedia.rmsDecibels(samples, start..<(start + 4_800))
            if abs(level - expected) > 3 { off.append(String(format: "%.1f s: %.1f dB", Double(start) / 48_000, level)) }
        }
        #expect(off.isEmpty, "\(name): the bed is not heard at its level at \(off.prefix(8))")
    }
}
