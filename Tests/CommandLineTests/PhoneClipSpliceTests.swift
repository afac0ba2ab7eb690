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
/// Checked as a player gets it: the output decodes without a word from `ffmpeg -v error`
/// and plays in headless Chromium, a seek into every piece showing a frame;
/// every parameter set in it (the source's and the encoded pieces') states the source's
/// colour; the stream's matrix and tags are the source's; at least the frames `plan` says
/// are copied are the source's, bit for bit; and what it shows — matrix applied, in one
/// colour — equals the full render's picture (≥ 40 dB). A variable-rate clip's frames lie
/// on its grid with some left out: the copied pictures keep the source's times, frames
/// left out stay out.
@Suite(.tags(.slow)) struct PhoneClipSpliceTests {
    /// Real clips from the corpus, and what each is.
    static let clips: [(String, String)] = [
        ("gp_karma.mp4", "GoPro, full range BT.709, 29.97, Main"),
        ("mdx_with-gps.mov", "iPhone 6, turned 90°, 29.97 on a 600 Hz clock (20 or 21 ticks apart), Baseline"),
    ]

    /// Real clips of variable rate whose frames lie on a grid.
    static let variableClips: [(String, String)] = [
        ("osx_livephoto_jpegvideocomplement_1.mov",
         "iPhone Live Photo, turned 90°, full range BT.601, 29.97 on 600 Hz going to 15 fps (every other frame left out), High"),
        ("osx_IMG_2908.MOV", "iPhone, turned 90°, 30 fps on 2400 Hz after an edit list's dropped lead-in of 3.75 fps, High with B-frames"),
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
    static func checkSplice(_ source: String, name: String, in dir: TemporaryDirectory, variable: Bool = false) async throws {
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

        // It plays in headless Chromium to its end, and a seek into the middle of every
        // piece ("a–b s: copied/encoded") shows a frame.
        let seeks = plan.stdout.split(separator: "\n").filter { $0.contains(" s: copied") || $0.contains(" s: encoded") }.compactMap {
            line -> Double? in
            let bounds = line.split(separator: " s:").first?.split(separator: "–").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard let bounds, bounds.count == 2 else { return nil }
            return (bounds[0] + bounds[1]) / 2
        }
        #expect(seeks.count >= 2, "\(plan.stdout)")
        let playback = try await ChromiumPlayback.check(file: output, seekTimes: seeks)
        #expect(playback.playedCleanly && playback.seeks.count == seeks.count, "Chromium: \(playback)")

        let times = try Self.pictureTimes(output)
        var copiedPictures = copied
        if variable {
            // The last copied piece runs to the source's end ("a–b s, N frames"): the
            // source's pictures in its last N frames are copied, frames left out not.
            let piece = plan.stdout.split(separator: "\n").last { $0.contains(": copied (") }.map(String.init) ?? ""
            // After the file's name: "a–b s, N frames)".
            let numbers = piece.split(separator: "(").last.map {
                $0.split(separator: " ").dropFirst().joined(separator: " ")
                    .split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
            } ?? []
            let sourceTimes = try Self.pictureTimes(source)
            #expect(numbers.count == 3, "\(piece)")
            if numbers.count == 3, numbers[2] > 0, let last = sourceTimes.last {
                let frame = (numbers[1] - numbers[0]) / numbers[2]
                copiedPictures = sourceTimes.filter { last - $0 < (numbers[2] - 0.5) * frame }.count
            }
            #expect(copiedPictures > 0 && copiedPictures <= copied, "\(copiedPictures) pictures in \(copied) frames")
            // The copied pictures (the last ones) keep the source's times, each within an
            // eighth of a frame (the output's on the grid): frames left out stay out.
            let tail = zip(times.suffix(copiedPictures), sourceTimes.suffix(copiedPictures)).map { (times.last! - $0) - (sourceTimes.last! - $1) }
            #expect(tail.count == copiedPictures && tail.allSatisfy { abs($0) < 0.005 }, "copied pictures' times: \(tail)")
        } else {
            // One frame rate across every join (one `stts` entry): the pictures on the grid.
            // (Within 10 µs: ffprobe prints times to the microsecond; a 600 Hz clock's tick is 1.7 ms.)
            let steps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(times.count > 2 && steps.max()! - steps.min()! < 0.000_01, "steps between pictures: \(Set(steps))")
        }
        // The copied frames are the source's, bit for bit.
        let sourceFrames = Set(try Self.frameHashes(source)), frames = try Self.frameHashes(output)
        #expect(frames.filter(sourceFrames.contains).count >= copiedPictures, "\(copiedPictures) pictures copied")

        // What a viewer sees equals the full render's picture: that one bakes the turn into
        // its pixels and converts the colour into video-range BT.709; both are brought into
        // that colour and compared, frame for frame.
        let full = dir.file("full.mp4"), always = dir.file("always.yaml")
        try "version: 1\nclips: [{ source: \"{input}\", trim: [1.5, end] }]\noutput: { video: { reencode: always, crf: 0 } }\n"
            .write(toFile: always, atomically: true, encoding: .utf8)
        let encoded = try await DropcutProcess.run(["render", source, "--recipe", always, "--output", full])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        // A variable rate is made constant by the full render (its frames left out repeat),
        // and kept where copied: the splice has as many pictures fewer as it leaves out.
        let fullFrames = try Self.frameHashes(full).count
        #expect(times.count == fullFrames - (copied - copiedPictures), "\(times.count) pictures, the full render \(fullFrames)")
        let average = try await PhoneClipCopyTests.shownPSNR(output, against: full)
        #expect(average >= 40, "the spliced output shows what the full render shows: \(average) dB")
    }

    /// The pictures' presentation times, seconds, ascending.
    static func pictureTimes(_ path: String) throws -> [Double] {
        try Command.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                           "-of", "csv=p=0", path])
            .split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }.sorted()
    }

    @Test(arguments: clips.map(\.0))
    func aTrimmedPhoneClipIsSplicedKeepingWhatItStates(_ name: String) async throws {
        try await Self.checkSplice(try CorpusMedia.file(name), name: name, in: try TemporaryDirectory())
    }

    @Test(arguments: variableClips.map(\.0))
    func aVariableRateClipOnItsGridIsSplicedKeepingItsTimes(_ name: String) async throws {
        try await Self.checkSplice(try CorpusMedia.file(name), name: name, in: try TemporaryDirectory(), variable: true)
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
