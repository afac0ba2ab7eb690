import Foundation
import Logging
import Testing
@testable import DropcutPipeline
import DropcutRecipe
import DropcutRender
import TestSupport
import DropcutTimeline
import DropcutMediaIO

/// Smart rendering end to end, on real files made with the ffmpeg CLI at every kind of
/// group of pictures the tests can make, for the three edits it exists for (a cut between
/// keyframes, an outro appended, a logo over the first part): the copied frames decode to
/// the source's (framemd5), the encoded ones are within 40 dB of a full render, the stream
/// is one track with one sample entry whose `avcC` lists both parameter sets, constant
/// rate (one decode-time step), decodes without a word from `ffmpeg -v error`, and plays
/// in headless Chromium to its end, a seek into each piece showing a frame.
@Suite(.tags(.slow)) struct SmartRenderTests {
    /// The groups of pictures a source can have.
    enum Source: String, CaseIterable, CustomTestStringConvertible {
        /// x264's own: B-frames (pyramid), an IDR picture every second.
        case closedGOP
        /// Recovery-point I pictures with leading B-frames (`open-gop=1`): only the first
        /// picture is an IDR, so only the whole clip is one group.
        case openGOP
        /// As phones record: Main profile, no B-frames, a 600 Hz track clock.
        case phoneLike

        var testDescription: String { rawValue }

        var arguments: [String] {
            switch self {
            case .closedGOP: ["-g", "30", "-keyint_min", "30", "-sc_threshold", "0"]
            case .openGOP: ["-g", "30", "-keyint_min", "30", "-sc_threshold", "0", "-x264-params", "open-gop=1"]
            case .phoneLike: ["-profile:v", "main", "-bf", "0", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0",
                              "-video_track_timescale", "600"]
            }
        }
    }

    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        return logger
    }

    /// A 4 s upright 320x240 H.264 clip at `rate` (30 fps) tagged BT.709, with AAC sound.
    static func clip(_ dir: TemporaryDirectory, _ kind: Source, name: String = "clip.mp4", seconds: Int = 4,
                     pattern: String = "testsrc2", rate: String = "30") throws -> String {
        let path = dir.file(name)
        try Fixtures.generate(["-f", "lavfi", "-i", "\(pattern)=size=320x240:rate=\(rate):duration=\(seconds)",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                               "-c:v", "libx264", "-preset", "veryfast", "-crf", "20"] + kind.arguments
                              + ["-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
                                 "-c:a", "aac", "-ac", "2"], output: path)
        return path
    }

    static func render(_ yaml: String, _ clip: String, to output: String) async throws -> Production {
        let recipe = try RecipeLoader().load(yaml: yaml, file: "/tmp/smart.yaml")
        let production = try await Production.prepare(recipe: recipe, input: clip)
        try await production.export(to: output, logger: quiet)
        return production
    }

    static func hashes(_ path: String) throws -> [String] {
        PassThroughRenderTests.hashes(try PassThroughRenderTests.framemd5(path, "v"))
    }

    /// Mean PSNR (Y, U, V averaged) of output frames `frames` of `a` against the same of `b`.
    static func psnr(_ a: String, _ b: String, frames: Range<Int>) throws -> Double {
        let trim = "trim=start_frame=\(frames.lowerBound):end_frame=\(frames.upperBound),setpts=PTS-STARTPTS"
        let run = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", a, "-i", b, "-lavfi",
                                             "[0:v]\(trim)[x];[1:v]\(trim)[y];[x][y]psnr", "-f", "null", "-"])
        guard let range = run.stderr.range(of: #"average:([0-9.]+|inf)"#, options: .regularExpression) else {
            throw CommandError(command: ["ffmpeg psnr"], status: run.status, stderr: run.stderr)
        }
        let value = run.stderr[range].dropFirst("average:".count)
        return value == "inf" ? .infinity : Double(value) ?? 0
    }

    /// The checks every smart-rendered output must pass, given what was copied from where.
    static func expectSound(_ output: String, source: String, splice: VideoSplice, full: String) throws {
        let decode = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg -v error: \(decode.stderr)")
        let streams = try FFprobe.streams(of: output).filter { $0.codecType == "video" }
        #expect(streams.count == 1)
        let rate = try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                      "stream=avg_frame_rate,r_frame_rate", "-of", "csv=p=0", output])
        // The source's rate, stated exactly (30000/1001 for 29.97).
        let d = splice.frameDuration
        let fraction = try #require(MediaTime(value: 1, timescale: 1).ratio(to: d))
        #expect(rate.trimmingCharacters(in: .whitespacesAndNewlines) == "\(fraction.numerator)/\(fraction.denominator),\(fraction.numerator)/\(fraction.denominator)")
        // Decode times: rising by one frame each, every one (one `stts` entry).
        let dts = try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=dts",
                                                     "-of", "csv=p=0", output])
            .split(whereSeparator: \.isNewline).compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        let steps = Set(zip(dts, dts.dropFirst()).map { $1 - $0 })
        #expect(steps.count == 1 && steps.first.map { $0 > 0 } == true, "decode-time steps \(steps)")
        // One sample entry, whose avcC lists the source's sets and the encoded pieces'.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let stsd = try #require(find("stsd", in: bytes))
        #expect(Array(bytes[(stsd + 8)..<(stsd + 12)]) == [0, 0, 0, 1], "stsd entry count")
        let avcC = try #require(find("avcC", in: bytes))
        let size = Int(bytes[avcC - 4]) << 24 | Int(bytes[avcC - 3]) << 16 | Int(bytes[avcC - 2]) << 8 | Int(bytes[avcC - 1])
        let configuration = try #require(H264DecoderConfiguration(Array(bytes[(avcC + 4)..<(avcC - 4 + size)])))
        let ids = configuration.sequenceParameters.compactMap { $0?.id }
        #expect(ids.count == 2 && Set(ids).count == 2 && ids.last == splice.encoding.parameterSetID, "SPS ids \(ids)")
        // It plays in a real browser to its end, and a seek into every piece shows a frame.
        let seeks = splice.plan.pieces.map { (Double($0.output.lowerBound) + Double($0.output.count) / 2) * d.seconds }
        let playback = try ChromiumPlayback.check(file: output, seekTimes: seeks)
        #expect(playback.seeks.count == seeks.count)
        if !playback.playedCleanly {
            // Chromium (156) seeking into x264's open GOPs in MP4 fails on the source itself
            // (made by the ffmpeg CLI): it starts at the recovery point and cannot decode
            // its leading B-frames. A splice may fail only where its source does, seeking to
            // the same source times.
            let sourceSeeks = splice.plan.pieces.compactMap { piece -> Double? in
                guard case let .copied(output, source) = piece else { return nil }
                return (Double(source.lowerBound) + Double(output.count) / 2) * d.seconds
            }
            let original = try ChromiumPlayback.check(file: source, seekTimes: sourceSeeks)
            #expect(!original.playedCleanly, "the source plays in Chromium, the smart render does not: \(playback)")
        }
        // Copied frames are the source's; encoded ones near a full render's.
        let out = try hashes(output), original = try hashes(source)
        #expect(out.count == splice.plan.pieces.last?.output.upperBound)
        for piece in splice.plan.pieces {
            switch piece {
            case let .copied(output, source):
                #expect(Array(out[output]) == Array(original[source]), "copied frames \(output)")
            case let .encoded(frames, _):
                let quality = try psnr(output, full, frames: frames)
                #expect(quality >= 40, "encoded frames \(frames): \(quality) dB against a full render")
            }
        }
    }

    static func find(_ type: String, in bytes: [UInt8]) -> Int? {
        let tag = Array(type.utf8)
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == tag[0] && bytes[$0 + 1] == tag[1] && bytes[$0 + 2] == tag[2] && bytes[$0 + 3] == tag[3] }
    }

    /// Renders `yaml` both ways and checks the smart one; returns its splice (nil: the
    /// whole video was encoded, and then it matches the full render's frames).
    static func renderBothWays(_ yaml: String, _ clip: String, _ dir: TemporaryDirectory) async throws -> VideoSplice? {
        let smart = dir.file("smart.mp4"), full = dir.file("full.mp4")
        let production = try await render(yaml, clip, to: smart)
        _ = try await render(yaml + "output: { video: { reencode: always } }\n", clip, to: full)
        guard let splice = production.passThrough.video.splice else { return nil }
        try expectSound(smart, source: clip, splice: splice, full: full)
        return splice
    }

    @Test(arguments: Source.allCases) func aCutBetweenKeyframes(_ kind: Source) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, kind)
        let splice = try await Self.renderBothWays("version: 1\nclips: [{ trim: [0.5, end] }]\n", clip, dir)
        if kind == .openGOP {
            #expect(splice == nil, "an open GOP's recovery points are not IDR pictures")
            // and the plan says so, not only "cut not on a keyframe".
            let recipe = try RecipeLoader().load(yaml: "version: 1\nclips: [{ trim: [0.5, end] }]\n", file: "/tmp/smart.yaml")
            let reasons = try await Production.prepare(recipe: recipe, input: clip).passThrough.video.reasons
            #expect(reasons.contains { $0.contains("only IDR picture is its first (an open GOP") }, "\(reasons)")
        } else {
            #expect(splice?.plan.pieces == [.encoded(output: 0..<15, reasons: [SmartRenderPlan.partialGroupReason]),
                                           .copied(output: 15..<105, source: 30..<120)])
        }
    }

    @Test(arguments: Source.allCases) func anOutroAppended(_ kind: Source) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, kind)
        let outro = try Self.clip(dir, .closedGOP, name: "outro.mp4", seconds: 1, pattern: "testsrc")
        let splice = try await Self.renderBothWays("version: 1\nclips: [{ source: \"{input}\" }, { source: \(outro) }]\n", clip, dir)
        #expect(splice?.plan.pieces == [.copied(output: 0..<120, source: 0..<120),
                                       .encoded(output: 120..<150, reasons: ["another clip is shown (outro.mp4)"])])
    }

    @Test(arguments: Source.allCases) func aLogoOverTheFirstHalfSecond(_ kind: Source) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, kind)
        let logo = dir.file("logo.png")
        try await Fixtures.generate(["-f", "lavfi", "-i", "color=red:size=64x32", "-frames:v", "1"], output: logo)
        let splice = try await Self.renderBothWays("version: 1\noverlays: [{ image: \(logo), anchor: top-right, during: [0, 0.5] }]\n",
                                                   clip, dir)
        if kind == .openGOP {
            #expect(splice == nil)
        } else {
            #expect(splice?.plan.pieces == [.encoded(output: 0..<30, reasons: ["an overlay is drawn", SmartRenderPlan.partialGroupReason]),
                                           .copied(output: 30..<120, source: 30..<120)])
        }
    }

    /// A lower third in the middle: copied, encoded, copied — an encoded piece between
    /// two copied groups, starting with its own IDR picture and followed by the source's.
    @Test(arguments: [Source.closedGOP, .phoneLike]) func aLowerThirdInTheMiddle(_ kind: Source) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, kind)
        let splice = try await Self.renderBothWays(
            "version: 1\noverlays: [{ text: \"Lower third\", anchor: bottom-left, during: [1.5, 2.5] }]\n", clip, dir)
        #expect(splice?.plan.pieces == [.copied(output: 0..<30, source: 0..<30),
                                       .encoded(output: 30..<90, reasons: ["an overlay is drawn", SmartRenderPlan.partialGroupReason]),
                                       .copied(output: 90..<120, source: 90..<120)])
    }

    /// Times mean frames (`FrameGrid`): a cut at a time no frame starts at — 2.5 s at 29.97
    /// fps (frame 75 starts at 2.5025 s), 1.1 s at 25 fps (frame 28 at 1.12 s) — keeps the
    /// frames from the next one on, as `ffmpeg -ss` does, and splices: the frames before the
    /// next keyframe are encoded, the rest copied. The output's frames are the ones `ffmpeg
    /// -ss` gives (≥ 40 dB; the copied ones exact). (A phone's 29.97 on a 600 Hz clock is
    /// not on this grid: its times are rounded to 1/600 s — a variable rate, issue 57.)
    @Test(arguments: [("30000/1001", "2.5", 75), ("25", "1.1", 28), ("25", "1.3", 33)])
    func aCutBetweenTwoFramesKeepsTheNextFrameOnAndSplices(rate: String, cut: String, firstFrame: Int) async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, .closedGOP, rate: rate)
        let splice = try #require(try await Self.renderBothWays("version: 1\nclips: [{ trim: [\(cut), end] }]\n", clip, dir),
                                  "a cut between two frames is spliced")
        let keyframes = 30   // an IDR picture every 30 frames
        let nextKey = (firstFrame + keyframes - 1) / keyframes * keyframes
        let frames = try Self.hashes(clip).count
        #expect(splice.plan.pieces == [.encoded(output: 0..<(nextKey - firstFrame), reasons: [SmartRenderPlan.partialGroupReason]),
                                      .copied(output: (nextKey - firstFrame)..<(frames - firstFrame), source: nextKey..<frames)])
        // What ffmpeg -ss shows from that time on, frame for frame.
        let reference = dir.file("ss.mp4")
        try await Fixtures.generate(["-ss", cut, "-i", clip, "-an", "-fps_mode", "passthrough", "-c:v", "libx264", "-qp", "0"], output: reference)
        let count = try Self.hashes(dir.file("smart.mp4")).count
        #expect(try Self.hashes(reference).count == count, "as many frames as ffmpeg -ss keeps")
        #expect(try Self.psnr(dir.file("smart.mp4"), reference, frames: 0..<count) >= 40)
    }

    /// The same through `dropcut plan` and `dropcut render`, as a user runs them.
    @Test func dropcutRenderSplicesA2997ClipCutAt2_5Seconds() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, .closedGOP, rate: "30000/1001")
        let recipe = dir.file("recipe.yaml")
        try "version: 1\nclips: [{ trim: [2.5, end] }]\n".write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try await DropcutProcess.run(["plan", clip, "--recipe", recipe])
        #expect(plan.status == 0 && plan.stdout.contains("video: smart render from clip.mp4 (stream 0): 30 of 45 frames copied"), "\(plan)")
        let output = dir.file("out.mp4")
        let render = try await DropcutProcess.run(["render", clip, "--recipe", recipe, "--output", output])
        #expect(render.status == 0, "\(render)")
        let reference = dir.file("ss.mp4")
        try await Fixtures.generate(["-ss", "2.5", "-i", clip, "-an", "-fps_mode", "passthrough", "-c:v", "libx264", "-qp", "0"], output: reference)
        let out = try Self.hashes(output), ss = try Self.hashes(reference)
        #expect(out.count == 45 && ss.count == 45)
        #expect(Array(out[15...]) == Array(try Self.hashes(clip)[90...]), "the copied frames are the source's own")
        #expect(try Self.psnr(output, reference, frames: 0..<45) >= 40)
    }

    /// What the rule cannot prove safe is encoded whole, the reason in the plan.
    @Test func unsafeSourcesAreEncodedWholeWithTheReason() async throws {
        let dir = try TemporaryDirectory()
        let cut = "version: 1\nclips: [{ trim: [0.5, end] }]\n"
        func decide(_ yaml: String, _ path: String) async throws -> PassThrough {
            try await Production.prepare(recipe: try RecipeLoader().load(yaml: yaml, file: "/tmp/smart.yaml"), input: path).passThrough
        }
        func source(_ name: String, _ arguments: [String], video: String = "testsrc2=size=320x240:rate=30:duration=2") throws -> String {
            let path = dir.file(name)
            try Fixtures.generate(["-f", "lavfi", "-i", video] + arguments
                                  + ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"], output: path)
            return path
        }
        let interlaced = try source("interlaced.mp4", ["-vf", "tinterlace=interleave_top", "-c:v", "libx264", "-flags", "+ildct+ilme",
                                                       "-pix_fmt", "yuv420p", "-g", "30"])
        var decision = try await decide(cut, interlaced)
        #expect(decision.video.splice == nil && decision.video.reasons.contains { $0.contains("interlaced") }, "\(decision.lines)")

        let tenBit = try source("high10.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p10le", "-g", "30"])
        decision = try await decide(cut, tenBit)
        #expect(decision.video.splice == nil && decision.video.reasons.contains { $0.contains("yuv420p10le") }, "\(decision.lines)")

        let hevc = try source("hevc.mp4", ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=30", "-pix_fmt", "yuv420p"])
        decision = try await decide(cut + "output: { video: { codec: hevc } }\n", hevc)
        #expect(decision.video.splice == nil && decision.video.reasons.contains { $0.contains("smart render splices H.264 only") },
                "\(decision.lines)")

        // Frame times 1/30 s apart, then 1/12 s, on a 600 Hz clock: variable, on no one grid.
        let variable = try source("vfr.mp4", ["-vf", "settb=1/600,setpts='if(lt(N,30),N/30,1+(N-30)/12)/TB'", "-fps_mode", "passthrough",
                                              "-enc_time_base:v", "1/600",
                                              "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", "-video_track_timescale", "600"])
        decision = try await decide(cut, variable)
        #expect(decision.video.splice == nil
                && decision.video.reasons.contains { $0.contains("variable") || $0.contains("do not lie on the output's frame grid") },
                "\(decision.lines)")

        // Two short ranges, neither holding a whole group of pictures: the plan says that
        // is why, not only that the video combines two tracks.
        let grouped = try Self.clip(dir, .closedGOP, name: "grouped.mp4")
        decision = try await decide("version: 1\nclips: [{ trim: [0.5, 1.2] }, { source: \"{input}\", trim: [2.1, 2.9] }]\n", grouped)
        #expect(decision.video.splice == nil
                && decision.video.reasons.contains { $0.hasPrefix("smart render: no group of pictures (IDR to IDR) is shown whole") }
                && decision.video.reasons.contains { $0.contains(SmartRenderPlan.partialGroupReason) }, "\(decision.lines)")

        // reencode: always splices nothing.
        let clip = try Self.clip(dir, .closedGOP)
        decision = try await decide(cut + "output: { video: { reencode: always } }\n", clip)
        #expect(decision.video.splice == nil && decision.video.reasons.contains("output.video.reencode is always"))
    }

    /// `plan` says it per piece.
    @Test func thePlanNamesEveryPiece() async throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.clip(dir, .closedGOP)
        let production = try await Production.prepare(
            recipe: try RecipeLoader().load(yaml: "version: 1\nclips: [{ trim: [0.5, end] }]\n", file: "/tmp/smart.yaml"), input: clip)
        #expect(production.passThrough.lines.first == """
            video: smart render from clip.mp4 (stream 0): 90 of 105 frames copied, the rest encoded as high level 1.3
              0.000–0.500 s: encoded (15 frames): \(SmartRenderPlan.partialGroupReason)
              0.500–3.500 s: copied (clip.mp4 1.000–4.000 s, 90 frames)
            """)
    }
}
