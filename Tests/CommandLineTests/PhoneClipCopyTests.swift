import Foundation
import Testing
import TestSupport

/// Real phone and camera clips with a recipe that asks for no change but `orientation:
/// keep`: each is copied whole by `dropcut render`, keeping what it states — its codec
/// (H.264, or HEVC: a recipe naming no codec keeps it where it copies), its display
/// matrix (shown upright, as AVFoundation's passthrough keeps `preferredTransform`), its
/// colour (full range, BT.601, BT.709) and its packets' times (a variable rate stays
/// variable) — instead of being encoded to normalise them. Without `keep` a turned clip is
/// encoded upright (its plan says why); an upright one is copied all the same. Checked as a player gets it: the output decodes
/// without a word from `ffmpeg -v error`; its frames as a player shows them (matrix
/// applied, with their times) are the source's, frame for frame; its matrix and colour
/// tags are the source's; and what it shows equals the full render's picture (≥ 35 dB).
@Suite(.tags(.slow)) struct PhoneClipCopyTests {
    /// The corpus's H.264 clips this holds for, and what each is.
    static let clips: [(String, String)] = [
        ("gp_karma.mp4", "GoPro, upright, full range"),
        ("mdx_with-gps.mov", "iPhone 6, turned 90°, audio first, 29.97"),
        ("osx_IMG_2908.MOV", "iPhone, turned 90°, variable rate"),
        ("ax_pixel7_videoOnly_cleaned.mp4", "Pixel 7, turned 180°, full range, variable rate"),
        ("ax_portrait_4k60.mp4", "Android 4K60, turned 90°, BT.601 full range, variable rate"),
        // HEVC, copied into an HEVC output: the recipe names no codec.
        ("osx_livephoto_B60C31AC_3.mov", "iPhone Live Photo, HEVC, turned 90°"),
        ("pp_quicktime-hvc1.mov", "iPhone, HEVC (hvc1), turned 90°"),
    ]

    /// The video stream's facts a player goes by: its matrix's rotation and its colour tags.
    static func stated(_ path: String) throws -> String {
        try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                           "stream=codec_name,width,height,pix_fmt,color_range,color_primaries,color_transfer,color_space:stream_side_data=rotation",
                                           "-of", "csv=p=0", path])
            .split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Each frame as a player shows it (autorotated), with its time: framemd5 lines.
    static func shown(_ path: String) throws -> [String] {
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
            .split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }.map(String.init)
    }

    @Test(arguments: clips.map(\.0))
    func aPhoneClipIsCopiedKeepingWhatItStates(_ name: String) async throws {
        let source = try CorpusMedia.file(name)
        let dir = try TemporaryDirectory()
        let keep = dir.file("keep.yaml")
        try "version: 1\norientation: keep\n".write(toFile: keep, atomically: true, encoding: .utf8)
        func videoLine(_ arguments: [String]) async throws -> String {
            let plan = try await DropcutProcess.run(["plan", source] + arguments)
            #expect(plan.status == 0, "\(plan.stderr)")
            return plan.stdout.split(separator: "\n").first { $0.hasPrefix("video: ") }.map(String.init) ?? ""
        }
        let line = try await videoLine(["--recipe", keep])
        #expect(line.hasPrefix("video: copied from \(name)"), "\(line)")
        let turned = try Self.stated(source).contains(",-90") || Self.stated(source).contains(",-180") || Self.stated(source).contains(",90")
        let byDefault = try await videoLine([])
        #expect(turned ? byDefault.contains("needs an orientation fix") : byDefault.hasPrefix("video: copied from"), "\(byDefault)")
        let output = dir.file("out.mp4")
        let render = try await DropcutProcess.run(["render", source, "--recipe", keep, "--output", output])
        #expect(render.status == 0, "\(render.stderr)")

        let decode = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg -v error: \(decode.stderr)")
        let (statedOut, statedIn) = (try Self.stated(output), try Self.stated(source))
        #expect(statedOut == statedIn, "matrix and colour as the source states them")
        let (frames, original) = (try Self.shown(output), try Self.shown(source))
        #expect(!frames.isEmpty && frames == original, "the source's frames, at their times, shown upright")

        // What a viewer sees equals the full render's picture, which bakes the turn into its
        // pixels, converts the colour to video-range BT.709 and (lossless here, to compare
        // pictures, not encoders) lays the frames on one constant rate: the copy's frames
        // are taken at the full render's frame times — each source frame from its time on,
        // as the render shows it — in the same colour.
        let full = dir.file("full.mp4"), recipe = dir.file("always.yaml")
        try "version: 1\noutput: { video: { reencode: always, crf: 0 } }\n".write(toFile: recipe, atomically: true, encoding: .utf8)
        let encoded = try await DropcutProcess.run(["render", source, "--recipe", recipe, "--output", full])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let rate = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                                                      "-of", "csv=p=0", full]).trimmingCharacters(in: .whitespacesAndNewlines)
        let average = try await Self.shownPSNR(output, against: full, first: "fps=fps=\(rate):round=up,format=yuv420p,")
        #expect(average >= 35, "the copy shows what the full render shows: \(average) dB")
    }

    /// A clip whose container states one pixel aspect (`pasp` 1:1) and whose SPS another
    /// (27:64), as Samsung's super-slow-motion clips do: players go by the container's, and
    /// so does the copy — it keeps the container's, and is shown at the source's shape
    /// (4:3), not squeezed to the SPS's (9:16).
    @Test func aCopyKeepsTheContainersPixelAspect() async throws {
        let dir = try TemporaryDirectory()
        let coded = dir.file("coded.mp4"), clip = dir.file("sef.mp4"), output = dir.file("out.mp4")
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=2", "-vf", "setsar=27/64",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], output: coded)
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", "-i", coded, "-c", "copy",
                                                "-aspect", "4:3", clip])
        func shape(_ path: String) async throws -> String {
            try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                     "stream=sample_aspect_ratio,display_aspect_ratio", "-of", "csv=p=0", path])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (codedShape, clipShape) = (try await shape(coded), try await shape(clip))
        #expect(codedShape == "27:64,9:16" && clipShape == "1:1,4:3", "the fixture")
        let plan = try await DropcutProcess.run(["plan", clip])
        #expect(plan.stdout.contains("video: copied from sef.mp4"), "\(plan.stdout)")
        let render = try await DropcutProcess.run(["render", clip, "--output", output])
        #expect(render.status == 0, "\(render.stderr)")
        let shown = try await shape(output)
        #expect(shown == "1:1,4:3")
        #expect(try Self.shown(output) == Self.shown(clip))
    }

    /// The average PSNR (ffmpeg's `psnr`) of what `output` shows — matrix applied, passed
    /// through `first` (a filter chain ending in a comma), then brought into video-range
    /// BT.709 — against the full render `full`, frame for frame.
    static func shownPSNR(_ output: String, against full: String, first: String = "") async throws -> Double {
        let psnr = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", output, "-i", full, "-lavfi",
                                                    "[0:v]\(first)scale=out_range=tv:out_color_matrix=bt709,format=yuv420p[a];"
                                                    + "[1:v]format=yuv420p[b];[a][b]psnr", "-f", "null", "-"])
        return psnr.stderr.range(of: #"average:([0-9.]+|inf)"#, options: .regularExpression)
            .map { psnr.stderr[$0].dropFirst("average:".count) }.map { $0 == "inf" ? Double.infinity : Double($0) ?? 0 } ?? 0
    }
}
