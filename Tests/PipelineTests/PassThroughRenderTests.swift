import Foundation
import Logging
import Testing
@testable import DropcutPipeline
import DropcutRecipe
import DropcutRender
import TestSupport
import DropcutTimeline

/// Pass-through end to end, on real files made with the ffmpeg CLI: what is copied
/// decodes to the very frames of the source (ffmpeg's framemd5 as the oracle), its
/// packets are the source's, and the output passes `OutputCheck` (`export` reads it back).
@Suite struct PassThroughRenderTests {
    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// The per-frame (or per-packet, with `copy`) MD5 lines of one stream kind, without
    /// ffmpeg's header comments.
    static func framemd5(_ path: String, _ stream: String, copy: Bool = false) throws -> [String] {
        let output = try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-i", path,
                                                       "-map", "0:\(stream)"] + (copy ? ["-c", "copy"] : []) + ["-f", "framemd5", "-"])
        return output.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    /// The hashes alone (the last field): timestamps may be written in another time base.
    static func hashes(_ lines: [String]) -> [String] {
        lines.map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
    }

    /// An upright 320x240 30 fps H.264 (with B-frames, a keyframe every second, tagged
    /// BT.709 as phones tag theirs; `tagged: false` states no colour) / AAC clip.
    static func clip(_ dir: TemporaryDirectory, seconds: Int = 2, tagged: Bool = true) throws -> String {
        let path = dir.file(tagged ? "clip.mp4" : "untagged.mp4")
        let tags = tagged ? ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"] : []
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=\(seconds)",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                          "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
                                          "-pix_fmt", "yuv420p"] + tags + ["-c:a", "aac", "-ac", "2", path])
        return path
    }

    static func render(_ yaml: String, _ clip: String, to output: String) async throws -> Production {
        let recipe = try RecipeLoader().load(yaml: yaml, file: "/tmp/passthrough.yaml")
        let production = try await Production.prepare(recipe: recipe, input: clip)
        try await production.export(to: output, logger: quiet)
        return production
    }

    @Test func theIdentityRecipeCopiesAnUprightClipFrameForFrame() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir)
        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\n", clip, to: output)
        #expect(production.passThrough.lines == ["video: copied from clip.mp4 (stream 0)", "audio: copied from clip.mp4 (stream 1)"])
        let source = try Self.framemd5(clip, "v")
        #expect(source.count == 60)
        #expect(try Self.framemd5(output, "v") == source)
        // The sound's packets are the source's, byte for byte.
        #expect(Self.hashes(try Self.framemd5(output, "a", copy: true)) == Self.hashes(try Self.framemd5(clip, "a", copy: true)))
        #expect(try FFprobe.streams(of: output).map(\.codecName) == ["h264", "aac"])
    }

    @Test func aMusicBedCopiesTheVideoAndEncodesOnlyTheSound() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir)
        let bed = try await Fixtures.makeGenerated(in: dir.path, name: "bed.wav", seconds: 3, audio: "sine=frequency=200:sample_rate=48000")
        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\nmusic: { source: \(bed), gain: -12dB }\n", clip, to: output)
        #expect(production.passThrough.lines == ["video: copied from clip.mp4 (stream 0)", "audio: re-encoded: a music bed is mixed in"])
        let copied = try Self.framemd5(output, "v")
        #expect(copied == (try Self.framemd5(clip, "v")))
        let mixed = Self.hashes(try Self.framemd5(output, "a", copy: true))
        let original = Self.hashes(try Self.framemd5(clip, "a", copy: true))
        #expect(!mixed.isEmpty && mixed != original)
        #expect(try FFprobe.streams(of: output).map(\.codecName) == ["h264", "aac"])
    }

    @Test func aCutOnKeyframesCopiesThoseFrames() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, seconds: 3)
        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\nclips: [{ trim: [1, 2] }]\n", clip, to: output)
        #expect(production.passThrough.video.copy != nil, "\(production.passThrough.lines)")
        #expect(production.passThrough.audio.copy == nil)
        #expect(Self.hashes(try Self.framemd5(output, "v")) == Array(Self.hashes(try Self.framemd5(clip, "v"))[30..<60]))
    }

    @Test func reencodeAlwaysAndAnOverlayReencode() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir)
        let source = Self.hashes(try Self.framemd5(clip, "v"))
        for yaml in ["version: 1\noutput: { video: { reencode: always } }\n", "version: 1\noverlays: [{ text: hello }]\n"] {
            let output = dir.file("out-\(yaml.count).mp4")
            let production = try await Self.render(yaml, clip, to: output)
            #expect(production.passThrough.video.copy == nil)
            let frames = Self.hashes(try Self.framemd5(output, "v"))
            #expect(frames.count == source.count && frames != source, "\(yaml)")
        }
    }

    /// HEVC is copied into an HEVC output, tagged `hvc1` as dropcut's own HEVC is, and
    /// into an output whose recipe names no codec.
    @Test func hevcIsCopiedIntoAnHEVCOutput() async throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("hevc.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                                          "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                                          "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709",
                                          "-colorspace", "bt709", clip])
        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\noutput: { video: { codec: hevc } }\n", clip, to: output)
        #expect(production.passThrough.lines == ["video: copied from hevc.mp4 (stream 0)"])
        let copied = try Self.framemd5(output, "v"), source = try Self.framemd5(clip, "v")
        #expect(copied.count == 30 && copied == source)
        let tag = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=codec_tag_string",
                                                     "-of", "csv=p=0", output])
        #expect(tag.trimmingCharacters(in: .whitespacesAndNewlines) == "hvc1")
        // A recipe that names no codec keeps it too; one that names H.264 has it re-encoded.
        let kept = try await Self.render("version: 1\n", clip, to: dir.file("kept.mp4"))
        #expect(kept.passThrough.lines == ["video: copied from hevc.mp4 (stream 0)"])
        #expect(try Self.framemd5(dir.file("kept.mp4"), "v") == source)
        let h264 = try await Self.render("version: 1\noutput: { video: { codec: h264 } }\n", clip, to: dir.file("h264.mp4"))
        #expect(h264.passThrough.video.reasons == ["the source's codec is hevc, the output's h264"])
        // Where the video is encoded (an overlay over it), an unnamed codec is H.264.
        let drawn = try await Self.render("version: 1\noverlays: [{ text: hello }]\n", clip, to: dir.file("drawn.mp4"))
        #expect(drawn.settings.videoCodec == .h264 && drawn.passThrough.video.copy == nil)
    }

    /// What the stream's SPS states (ffmpeg's `trace_headers`, the oracle), in order of the
    /// sets: `colour_primaries/transfer_characteristics/matrix_coefficients` of each.
    static func vuiColours(_ path: String) throws -> [String] {
        let run = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:v", "-c", "copy",
                                             "-bsf:v", "trace_headers", "-frames:v", "1", "-f", "null", "-"])
        var values: [String] = []
        for line in run.stderr.split(separator: "\n") {
            for field in ["colour_primaries", "transfer_characteristics", "matrix_coefficients"] where line.contains(" \(field) ") {
                values.append(String(line.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespaces))
            }
        }
        return stride(from: 0, to: values.count - 2, by: 3).map { values[$0...($0 + 2)].joined(separator: "/") }
    }

    /// A clip that states no colour is copied stating what players take it for: BT.709 for
    /// HD, BT.601 (SMPTE 170M) for SD — in the SPS's VUI (`h264_metadata`) and the
    /// container's `colr` — its pictures' packets the source's, byte for byte.
    @Test(arguments: [(1280, 720, "bt709,bt709,bt709", "1/1/1"), (320, 240, "smpte170m,bt709,smpte170m", "6/1/6")])
    func anUntaggedClipIsCopiedStatingWhatPlayersTakeItFor(_ width: Int, _ height: Int, _ probed: String, _ vui: String) async throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("untagged.mp4")
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=\(width)x\(height):rate=30:duration=2",
                                     "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p"], output: clip)
        #expect(try Self.vuiColours(clip).isEmpty, "the fixture states a colour")
        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\n", clip, to: output)
        #expect(production.passThrough.video.copy?.statedColour != nil, "\(production.passThrough.lines)")
        let colour = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                        "stream=color_primaries,color_transfer,color_space", "-of", "csv=p=0", output])
        #expect(colour.trimmingCharacters(in: .whitespacesAndNewlines) == probed)
        #expect(try Self.vuiColours(output) == [vui])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).range(of: Data("colrnclx".utf8)) != nil)
        #expect(Self.hashes(try Self.framemd5(output, "v", copy: true)) == Self.hashes(try Self.framemd5(clip, "v", copy: true)))
        // Cut between keyframes, it is spliced: its sets and the encoded pieces' both state
        // what players take it for (the SD one's pieces converted into BT.601).
        let cut = dir.file("cut.mp4")
        let spliced = try await Self.render("version: 1\nclips: [{ trim: [0.5, end] }]\n", clip, to: cut)
        #expect(spliced.passThrough.video.splice != nil, "\(spliced.passThrough.lines)")
        #expect(try Self.vuiColours(cut) == [vui, vui])
        let decode = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", cut, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty)
    }

    /// A damaged packet (a NAL length flipped past the packet's end, as DamagedPacketTests
    /// makes it) is never copied: the copy is abandoned and the clip re-encoded, the
    /// decoder concealing the damage — all 60 frames, none of them the damaged one's bytes.
    @Test func aDamagedPacketIsNeverCopied() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir)
        let damaged = dir.file("damaged.mp4")
        try await DamagedPacketFixture.damage(clip, packets: [30], into: damaged)

        let output = dir.file("out.mp4")
        let production = try await Self.render("version: 1\n", damaged, to: output)
        #expect(production.passThrough.video.copy != nil)   // decided before the damage shows
        let frames = Self.hashes(try Self.framemd5(output, "v"))
        let source = Self.hashes(try Self.framemd5(clip, "v"))
        #expect(frames.count == 60 && frames != source)
    }

    /// A cancelled copy leaves nothing behind, as a cancelled encode does.
    @Test func aCancelledCopyLeavesNoFile() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir)
        let recipe = try RecipeLoader().load(yaml: "version: 1\n", file: "/tmp/passthrough.yaml")
        let production = try await Production.prepare(recipe: recipe, input: clip)
        let output = dir.file("out.mp4")
        // The first packet's progress waits until the task is cancelled.
        let copying = DispatchSemaphore(value: 0), cancelled = DispatchSemaphore(value: 0)
        let task = Task {
            try await production.export(to: output, logger: Self.quiet) { progress in
                if progress.framesWritten == 1 {
                    copying.signal()
                    cancelled.wait()
                }
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { copying.wait(); continuation.resume() }
        }
        task.cancel()
        cancelled.signal()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
