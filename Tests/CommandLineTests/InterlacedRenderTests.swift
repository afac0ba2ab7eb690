import Foundation
import Testing
import TestSupport

/// Interlaced sources: deinterlaced at the field rate by default — whether the stream
/// states its field order or only its frames are flagged — judged by the ffmpeg CLI — its
/// `bwdif=mode=send_field` of the same file (PSNR), the progressive clip the fields were
/// cut from, and its `idet` comb detector — and kept woven with `deinterlace: off`.
@Suite(.tags(.slow)) struct InterlacedRenderTests {
    /// Two seconds of a moving 50p pattern woven into 25i (`tinterlace`), coded as
    /// interlaced H.264 (lossless) with the field order flagged; returns the interlaced
    /// file and the progressive original.
    static func interlacedClip(topFirst: Bool, in dir: TemporaryDirectory) async throws -> (interlaced: String, progressive: String) {
        let progressive = dir.file("progressive.mp4"), interlaced = dir.file(topFirst ? "tff.mp4" : "bff.mp4")
        let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
        let scale = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=50:duration=2",
                                          "-vf", scale, "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0"] + tags + [progressive])
        let weave = topFirst ? "tinterlace=interleave_top,fieldorder=tff" : "tinterlace=interleave_bottom,fieldorder=bff"
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", progressive,
                                          "-vf", "\(weave),\(scale)", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
                                          "-flags", "+ilme+ildct", "-x264-params", topFirst ? "tff=1" : "bff=1"] + tags + [interlaced])
        return (interlaced, progressive)
    }

    /// `idet`'s multi-frame verdicts on a file's frames: how many look interlaced (either
    /// field order) and how many progressive.
    static func combing(_ path: String) async throws -> (interlaced: Int, progressive: Int) {
        let result = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-vf", "idet", "-f", "null", "-"])
        guard let line = result.stderr.split(whereSeparator: \.isNewline).last(where: { $0.contains("Multi frame detection") }) else {
            throw CommandError(command: ["ffmpeg", "idet"], status: result.status, stderr: result.stderr)
        }
        func count(_ key: String) -> Int {
            guard let range = line.range(of: key + ":") else { return 0 }
            return Int(line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }) ?? 0
        }
        return (count("TFF") + count("BFF"), count("Progressive"))
    }

    /// The ffmpeg CLI's deinterlacing of `input` at the field rate (`bwdif=mode=send_field`,
    /// coded losslessly): the reference the renders are compared with.
    static func bwdifReference(of input: String, in dir: TemporaryDirectory) async throws -> String {
        let reference = dir.file("bwdif.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", input,
                                          "-vf", "bwdif=mode=send_field", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", reference])
        return reference
    }

    /// `dropcut render` of `input` with a recipe of these `output:` settings; the output's
    /// path and its video stream.
    static func render(_ input: String, output settings: String, in dir: TemporaryDirectory) async throws -> (String, FFprobe.StreamFacts) {
        let recipe = try Fixtures.makeFile(in: dir.path, name: "recipe.yaml", contents: "version: 1\noutput: { \(settings) }\n")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, input])
        try #require(result.status == 0, "\(result.stderr)")
        return (output, try #require(try FFprobe.stream("video", of: output)))
    }

    @Test(arguments: [true, false])
    func interlacedClipIsDeinterlacedAtTheFieldRate(topFirst: Bool) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let (input, progressive) = try await Self.interlacedClip(topFirst: topFirst, in: dir)
        let source = try #require(try FFprobe.stream("video", of: input))
        #expect(source.fieldOrder == (topFirst ? "tt" : "bb") && source.frameRate == "25/1", "the fixture is not 25i")
        let probe = try await DropcutProcess.run(["probe", input])
        #expect(probe.stdout.contains("interlaced, \(topFirst ? "top" : "bottom") first"), "\(probe.stdout)")
        let json = try await DropcutProcess.run(["probe", "--json", input]).stdout
        #expect(json.contains("\"field_order\": \"\(topFirst ? "top_first" : "bottom_first")\""), "\(json)")
        let reference = try await Self.bwdifReference(of: input, in: dir)
        let (output, video) = try await Self.render(input, output: "video: { crf: 10 }", in: dir)

        #expect(video.frameRate == "50/1", "\(String(describing: video.frameRate))")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 100)
        let versusBwdif = try PSNR.compare(output, reference)
        let versusTruth = try PSNR.compare(output, progressive)
        let bwdifVersusTruth = try PSNR.compare(reference, progressive)
        let woven = try await Self.combing(input), shown = try await Self.combing(output)
        print("\(topFirst ? "tff" : "bff"): vs bwdif \(versusBwdif); vs the progressive original \(versusTruth.average) dB (bwdif's \(bwdifVersusTruth.average) dB); idet interlaced/progressive: source \(woven), output \(shown)")
        #expect(versusBwdif.average >= 40 && versusBwdif.min >= 35, "\(versusBwdif)")
        #expect(versusTruth.average >= bwdifVersusTruth.average - 1, "\(versusTruth) vs bwdif's \(bwdifVersusTruth)")
        // The source is seen combed; the output is not.
        #expect(woven.interlaced > 4 * woven.progressive)
        #expect(shown.progressive > 9 * shown.interlaced, "\(shown)")
    }

    /// Interlaced frames behind a stream that does not say so (FFV1 25i in Matroska,
    /// `UnstatedFieldOrderFixture`: ffprobe finds no field order, only flagged frames) are
    /// deinterlaced at the field rate all the same: the probe reports the frames' order,
    /// the composition runs at 50 fps, and the pictures match ffmpeg's `bwdif`.
    @Test func framesFlaggedInterlacedAreDeinterlacedWhenTheStreamDoesNotSay() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = try UnstatedFieldOrderFixture.interlaced(topFirst: true, in: dir.path)
        let source = try #require(try FFprobe.stream("video", of: input))
        #expect(source.fieldOrder == nil && source.frameRate == "25/1", "the stream states \(source.fieldOrder ?? "") at \(source.frameRate ?? "")")
        #expect(try FFprobe.frameFields(of: input).allSatisfy { $0.interlaced && $0.topFieldFirst }, "the frames are not flagged tff")
        let probe = try await DropcutProcess.run(["probe", input])
        #expect(probe.stdout.contains("interlaced, top first (flagged by its frames)"), "\(probe.stdout)")
        let json = try await DropcutProcess.run(["probe", "--json", input]).stdout
        #expect(json.contains("\"field_order\": \"top_first\", \"field_order_from\": \"frames\""), "\(json)")
        let reference = try await Self.bwdifReference(of: input, in: dir)
        let (output, video) = try await Self.render(input, output: "video: { crf: 10 }", in: dir)

        #expect(video.frameRate == "50/1", "\(String(describing: video.frameRate))")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 100)
        let versusBwdif = try PSNR.compare(output, reference)
        let woven = try await Self.combing(input), shown = try await Self.combing(output)
        print("ffv1 25i, order unstated: vs bwdif \(versusBwdif); idet interlaced/progressive: source \(woven), output \(shown)")
        #expect(versusBwdif.average >= 40 && versusBwdif.min >= 35, "\(versusBwdif)")
        #expect(woven.interlaced > 4 * woven.progressive)
        #expect(shown.progressive > 9 * shown.interlaced, "\(shown)")
    }

    /// The same codec and container with progressive frames: the look at the frames does
    /// not misfire, the clip stays at its 25 fps, frame for frame.
    @Test func progressiveFramesOfAStreamThatDoesNotSayKeepTheirRate() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let input = try UnstatedFieldOrderFixture.progressive(in: dir.path)
        #expect(try FFprobe.stream("video", of: input)?.fieldOrder == nil)
        let json = try await DropcutProcess.run(["probe", "--json", input]).stdout
        #expect(json.contains("\"field_order\": \"progressive\", \"field_order_from\": \"frames\""), "\(json)")
        let (output, video) = try await Self.render(input, output: "video: { crf: 10 }", in: dir)

        #expect(video.frameRate == "25/1", "\(String(describing: video.frameRate))")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 50)
        let psnr = try PSNR.compare(output, input)
        #expect(psnr.min >= 40, "\(psnr)")
    }

    @Test func deinterlaceOffKeepsTheFramesWoven() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let (input, _) = try await Self.interlacedClip(topFirst: true, in: dir)
        let (output, video) = try await Self.render(input, output: "deinterlace: off, video: { crf: 10 }", in: dir)

        #expect(video.frameRate == "25/1", "\(String(describing: video.frameRate))")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 50)
        let psnr = try PSNR.compare(output, input)
        #expect(psnr.min >= 40, "\(psnr)")
    }
}
