import Foundation
import Testing
import TestSupport

/// Smart render on what phones make, through `dropcut render`: a clip trimmed between
/// keyframes is spliced — its groups of pictures after the cut copied, the frames before
/// the next keyframe encoded — keeping what it states, as a whole copy does: its colour
/// (full range, BT.601, Display P3: the encoded pieces are converted into it and state its
/// very code points) and, with `orientation: keep`, its display matrix (the encoded pieces
/// stored turned back, so one matrix shows every frame upright).
///
/// Checked as a player gets it: the output decodes without a word from `ffmpeg -v error`;
/// every parameter set in it (the source's and the encoded pieces') states the source's
/// colour; the stream's matrix and tags are the source's; at least the frames `plan` says
/// are copied are the source's, bit for bit; and what it shows — matrix applied, in one
/// colour — equals the full render's picture (≥ 40 dB).
@Suite(.tags(.slow)) struct PhoneClipSpliceTests {
    /// Real clips from the corpus, and what each is.
    /// (The corpus's other long enough H.264 phone clips are of variable rate, which
    /// encoded pieces do not keep yet: `plan` says so and they are encoded whole.)
    static let clips: [(String, String)] = [
        ("gp_karma.mp4", "GoPro, full range BT.709, 29.97, Main"),
        ("mdx_with-gps.mov", "iPhone 6, turned 90°, 29.97 on a 600 Hz clock (20 or 21 ticks apart), Baseline"),
    ]

    /// Each SPS's colour as the stream states it, in order: `primaries/transfer/matrix/full range`
    /// (ffmpeg's `trace_headers` as the oracle), over the parameter sets in the sample entry.
    static func setColours(_ path: String) throws -> [String] {
        let run = try Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:v:0", "-c", "copy",
                                             "-bsf:v", "trace_headers", "-frames:v", "1", "-f", "null", "-"])
        var sets: [[String: String]] = []
        for line in run.stderr.split(separator: "\n") {
            if line.hasSuffix("Sequence Parameter Set") { sets.append([:]); continue }
            guard !sets.isEmpty else { continue }
            for field in ["video_full_range_flag", "colour_primaries", "transfer_characteristics", "matrix_coefficients"]
            where line.contains(" \(field) ") && sets[sets.count - 1][field] == nil {
                sets[sets.count - 1][field] = String(line.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespaces)
            }
        }
        return sets.map { set in
            ["colour_primaries", "transfer_characteristics", "matrix_coefficients", "video_full_range_flag"].map { set[$0] ?? "-" }
                .joined(separator: "/")
        }
    }

    /// The decoded frames' hashes (stored orientation, no conversion).
    static func frameHashes(_ path: String) throws -> [String] {
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-noautorotate", "-i", path, "-map", "0:v:0",
                                          "-f", "framemd5", "-"])
            .split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
    }

    /// Renders `source` trimmed at 1.5 s with `orientation: keep`, and checks the splice as the
    /// suite says; `name` is how the plan names the file.
    static func checkSplice(_ source: String, name: String, in dir: TemporaryDirectory) async throws {
        let recipe = dir.file("trim.yaml")
        try "version: 1\norientation: keep\nclips: [{ source: \"{input}\", trim: [1.5, end] }]\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try await DropcutProcess.run(["plan", source, "--recipe", recipe])
        #expect(plan.status == 0, "\(plan.stderr)")
        let line = plan.stdout.split(separator: "\n").first { $0.hasPrefix("video: ") }.map(String.init) ?? ""
        #expect(line.hasPrefix("video: smart render from \(name)"), "\(plan.stdout)")
        // "N of M frames copied"
        let copied = line.range(of: #"[0-9]+ of"#, options: .regularExpression).flatMap { Int(line[$0].dropLast(3)) } ?? 0
        #expect(copied > 0, "\(line)")

        let output = dir.file("spliced.mp4")
        let render = try await DropcutProcess.run(["render", source, "--recipe", recipe, "--output", output])
        #expect(render.status == 0, "\(render.stderr)")
        let decode = try await Command.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "ffmpeg -v error: \(decode.stderr)")

        // Every set states the source's colour; the stream, its matrix and tags.
        let sourceSets = Set(try Self.setColours(source)), outputSets = try Self.setColours(output)
        #expect(sourceSets.count == 1 && outputSets.count >= 2 && Set(outputSets) == sourceSets,
                "source's sets \(sourceSets), output's \(outputSets)")
        #expect(try PhoneClipCopyTests.stated(output) == PhoneClipCopyTests.stated(source))

        // One frame rate across every join (one `stts` entry): the pictures on the grid.
        let times = try await Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts",
                                                       "-of", "csv=p=0", output])
            .split(whereSeparator: \.isNewline).compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }.sorted()
        #expect(times.count > 2 && Set(zip(times.dropFirst(), times).map { $0 - $1 }).count == 1, "steps between pictures")
        // The copied frames are the source's, bit for bit.
        let sourceFrames = Set(try Self.frameHashes(source)), frames = try Self.frameHashes(output)
        #expect(frames.filter(sourceFrames.contains).count >= copied, "\(copied) frames copied")

        // What a viewer sees equals the full render's picture: that one bakes the turn into
        // its pixels and converts the colour into video-range BT.709; both are brought into
        // that colour and compared, frame for frame.
        let full = dir.file("full.mp4"), always = dir.file("always.yaml")
        try "version: 1\nclips: [{ source: \"{input}\", trim: [1.5, end] }]\noutput: { video: { reencode: always, crf: 0 } }\n"
            .write(toFile: always, atomically: true, encoding: .utf8)
        let encoded = try await DropcutProcess.run(["render", source, "--recipe", always, "--output", full])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        #expect(try Self.frameHashes(full).count == frames.count)
        let average = try await PhoneClipCopyTests.shownPSNR(output, against: full)
        #expect(average >= 40, "the spliced output shows what the full render shows: \(average) dB")
    }

    @Test(arguments: clips.map(\.0))
    func aTrimmedPhoneClipIsSplicedKeepingWhatItStates(_ name: String) async throws {
        try await Self.checkSplice(try CorpusMedia.file(name), name: name, in: try TemporaryDirectory())
    }

    /// What the corpus's spliceable clips do not cover: Display P3 (an iPhone's SDR),
    /// full-range BT.470 BG (an Android's), each stated by its own code points; 29.97 fps
    /// stamped by a 600 Hz clock (an iPhone's: 20 ticks apart, now and then 21); and clips
    /// stored turned a quarter and a half.
    @Test(arguments: [
        (["-color_primaries", "smpte432", "-color_trc", "bt709", "-colorspace", "bt709", "-pix_fmt", "yuv420p"], 0),
        (["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-pix_fmt", "yuv420p",
          "-r", "30000/1001", "-video_track_timescale", "600"], 0),
        (["-color_primaries", "bt470bg", "-color_trc", "smpte170m", "-colorspace", "bt470bg", "-pix_fmt", "yuvj420p"], 0),
        (["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-pix_fmt", "yuv420p"], 90),
        (["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-pix_fmt", "yuvj420p"], 180),
    ])
    func aClipTurnedOrInAnotherColourIsSplicedKeepingIt(_ colour: [String], _ rotation: Int) async throws {
        let dir = try TemporaryDirectory()
        let stored = dir.file("stored.mp4"), clip = dir.file("phone.mp4")
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=3",
                                     "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-sc_threshold", "0"] + colour, output: stored)
        // The display matrix as a phone writes it (ffmpeg 5's way to set one on a copy).
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", "-i", stored, "-c", "copy",
                                                "-metadata:s:v:0", "rotate=\(rotation)", clip])
        try await Self.checkSplice(clip, name: "phone.mp4", in: dir)
    }
}
