import Foundation
import Testing
import TestSupport

/// `dropcut render` end to end: the built executable on clips made by the `ffmpeg` CLI,
/// its outputs judged by `ffprobe` and by `ffmpeg`'s own decode (PSNR), never by dropcut.
///
/// Fixtures are BT.709-tagged (what phones write) unless a test is about colour, so the
/// pixel comparisons do not depend on how a BT.601 source is converted.
@Suite(.tags(.slow)) struct RenderCommandTests {
    /// One frame at 30 fps, plus a millisecond for container rounding.
    static let frame = 1.0 / 30 + 0.001

    // MARK: 1. Orientation

    @Test(arguments: [0, 90, 180, 270])
    func rotatedClipRendersUprightAndUntagged(rotation: Int) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let base = try await RenderFixture.clip(dir.file("base.mp4"))
        let input = try await RenderFixture.rotated(base, by: rotation, to: dir.file("turned\(rotation).mp4"))
        let opposite = try await RenderFixture.rotated(base, by: (rotation + 180) % 360, to: dir.file("opposite.mp4"))
        // crf 12 instead of the identity's 20: ~48 dB instead of ~42, margin over 40 dB.
        let recipe = try Fixtures.makeFile(in: dir.path, name: "fine.yaml", contents: "version: 1\noutput: { video: { crf: 12 } }\n")
        if rotation != 0 {
            #expect(try FFprobe.videoSideData(of: input).contains("Display Matrix"), "the fixture carries no display matrix")
        }

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, input])

        try #require(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\(input) -> \(output)"))
        let video = try #require(try FFprobe.stream("video", of: output))
        let quarter = rotation % 180 == 90
        #expect(video.width == (quarter ? 240 : 320) && video.height == (quarter ? 320 : 240), "\(String(describing: video.width))x\(String(describing: video.height))")
        let sideData = try FFprobe.videoSideData(of: output)
        #expect(!sideData.contains("Display Matrix") && !sideData.lowercased().contains("rotation"), "\(sideData)")
        // ffmpeg autorotates the tagged input: the same upright picture, frame for frame.
        let psnr = try PSNR.compare(output, input)
        print("rotation \(rotation): output \(video.width ?? 0)x\(video.height ?? 0), PSNR vs ffmpeg's autorotated decode: \(psnr)")
        #expect(psnr.frames.count == 30)
        #expect(psnr.min >= 40, "\(psnr)")
        // The comparison can tell a wrong turn: the same clip turned the other way is far off.
        let wrong = try PSNR.compare(output, opposite)
        #expect(wrong.average < 20, "against the opposite turn: \(wrong)")
    }

    /// All eight display matrices a file can hold — four turns, each plain and mirrored —
    /// written into the track header as a phone stores them: the output is ffmpeg's
    /// autorotated picture (which follows libavutil/display.h's definition for all eight),
    /// and far from the same turn mirrored the other way (the transpose is not the
    /// anti-transpose).
    @Test(arguments: [(Int32(1), Int32(0), Int32(0), Int32(1)), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
                      (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0)])
    func everyDisplayMatrixRendersAsFFmpegShowsIt(matrix: (Int32, Int32, Int32, Int32)) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let (a, b, c, d) = matrix
        let base = try await RenderFixture.clip(dir.file("base.mp4"))
        let input = try DisplayMatrixFixture.write(base, to: dir.file("matrix.mp4"), a: a, b: b, c: c, d: d, width: 320, height: 240)
        // The same turn with the mirror on the other axis (for a plain turn: mirrored).
        let other = try DisplayMatrixFixture.write(base, to: dir.file("other.mp4"), a: -a, b: b, c: -c, d: d, width: 320, height: 240)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "fine.yaml", contents: "version: 1\noutput: { video: { crf: 12 } }\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, input])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        let quarter = a == 0
        #expect(video.width == (quarter ? 240 : 320) && video.height == (quarter ? 320 : 240))
        let psnr = try PSNR.compare(output, input)
        let wrong = try PSNR.compare(output, other)
        print("matrix [\(a) \(b) \(c) \(d)]: PSNR vs ffmpeg's autorotated decode \(psnr); vs the other mirror \(wrong.average) dB")
        #expect(psnr.min >= 40, "\(psnr)")
        #expect(wrong.average < 20, "against the other mirror: \(wrong)")
    }

    // MARK: 2. Audio stream first

    @Test func audioFirstClipRendersWithBothStreamsInStep() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await RenderFixture.clip(dir.file("phone.mp4"), audioFirst: true)
        #expect(try FFprobe.codecNames(of: clip) == ["aac", "h264"], "the fixture is not audio-first")

        let result = try await DropcutProcess.run(["render", clip])

        try #require(result.status == 0, "\(result.stderr)")
        let output = dir.file("phone.dropcut.mp4")  // the default: beside the input
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        let videoSeconds = try #require(video.duration), audioSeconds = try #require(audio.duration)
        print("audio-first: video \(videoSeconds) s, audio \(audioSeconds) s")
        #expect(abs(videoSeconds - 1) <= Self.frame)
        #expect(abs(audioSeconds - videoSeconds) <= Self.frame)
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
        #expect(try PSNR.compare(output, clip).min >= 38)
        // The sound is the source's 440 Hz tone at its level.
        let samples = try DecodedMedia.monoSamples(of: output)
        let source = try DecodedMedia.monoSamples(of: clip)
        let middle = 9_600..<38_400
        #expect(abs(DecodedMedia.rmsDecibels(samples, middle) - DecodedMedia.rmsDecibels(source, middle)) < 1)
        #expect(abs(Self.frequency(samples, middle, sampleRate: 48_000) - 440) < 10)
    }

    // MARK: 3. Variable frame rate in, constant out

    @Test func variableRateSourceRendersOnAConstantGrid() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // 1 s at 30 fps then 1 s at 15 fps, timestamps kept as they are.
        let clip = dir.file("vfr.mp4")
        try await RenderFixture.ffmpeg(["-f", "lavfi", "-i",
                         "testsrc2=size=320x240:rate=30:duration=1[a];testsrc2=size=320x240:rate=15:duration=1[b];[a][b]concat=n=2:v=1:a=0,"
                             + RenderFixture.bt709Filter,
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2",
                         "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast"] + RenderFixture.bt709Tags + ["-c:a", "aac", clip])
        let sourceSteps = Set(try FFprobe.videoPackets(of: clip).map(\.time).sorted().adjacentDifferences.map { ($0 * 1000).rounded() })
        #expect(sourceSteps == [33, 67], "the fixture is not 30 + 15 fps: steps \(sourceSteps) ms")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "cfr.yaml", contents: "version: 1\noutput: { fps: 30 }\n")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        let sourceVideo = try #require(try FFprobe.stream("video", of: clip))
        let seconds = try #require(video.duration)
        let frames = try FFprobe.decodedVideoFrames(of: output)
        let packets = try FFprobe.videoPackets(of: output)
        print("VFR -> 30 fps: source video \(sourceVideo.duration ?? 0) s (\(sourceVideo.frameCount ?? 0) frames), output \(seconds) s, \(frames) frames, packet durations \(Set(packets.map(\.duration)))")
        #expect(video.frameRate == "30/1")
        #expect(abs(seconds - (sourceVideo.duration ?? 0)) <= Self.frame)
        #expect(abs(Double(frames) - seconds * 30) <= 1, "\(frames) frames in \(seconds) s")
        #expect(packets.count == frames)
        #expect(Set(packets.map(\.duration)).count == 1, "frame durations vary: \(packets.map(\.duration))")
        let audio = try #require(try FFprobe.stream("audio", of: output))
        #expect(abs((audio.duration ?? 0) - seconds) <= Self.frame)
        // Each output frame shows the source frame on screen at its time (ffmpeg's fps filter
        // rounding source times up = showing the latest frame at or before each output time).
        let psnr = try PSNR.compare(output, clip, filterB: "fps=30:round=up")
        print("VFR -> 30 fps: PSNR vs ffmpeg fps=30 \(psnr)")
        #expect(abs(psnr.frames.count - frames) <= 1)
        #expect(psnr.min >= 38, "\(psnr)")
    }

    // MARK: 4. Odd sizes, fit / fill / stretch

    @Test(arguments: ["318x238", "317x237"], ["fit", "fill", "stretch"])
    func oddSizedSourceFillsTheRequestedSizeExactly(size: String, fit: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let (width, height) = Self.parse(size)
        // libx264 refuses odd 4:2:0 sizes; MPEG-4 part 2 takes them (as some cameras write).
        let clip = try await RenderFixture.clip(dir.file("odd.mp4"), width: width, height: height, codec: width % 2 == 1 ? "mpeg4" : "libx264")
        let sourceVideo = try #require(try FFprobe.stream("video", of: clip))
        #expect(sourceVideo.width == width && sourceVideo.height == height, "the fixture is not \(size)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "box.yaml", contents: "version: 1\noutput: { size: 320x240, fit: \(fit) }\n")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.width == 320 && video.height == 240)
        #expect(abs((video.duration ?? 0) - 1) <= Self.frame)
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
        switch fit {
        case "fill":
            let psnr = try PSNR.compare(output, clip, filterB: "scale=320:240:force_original_aspect_ratio=increase:flags=bicubic,crop=320:240")
            print("\(size) fill: PSNR vs ffmpeg scale+crop \(psnr)")
            #expect(psnr.min >= 35, "\(psnr)")
        case "stretch":
            let psnr = try PSNR.compare(output, clip, filterB: "scale=320:240:flags=bicubic")
            print("\(size) stretch: PSNR vs ffmpeg scale \(psnr)")
            #expect(psnr.min >= 35, "\(psnr)")
        default:
            // Nearly 4:3: the fitted picture covers the canvas but for at most one row or column.
            let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
            let blackRows = (0..<240).filter { row in Self.isBlack(Array(picture.y[row * 320..<(row + 1) * 320])) }
            let blackColumns = (0..<320).filter { column in Self.isBlack((0..<240).map { picture.y[$0 * 320 + column] }) }
            print("\(size) fit: black rows \(blackRows), black columns \(blackColumns)")
            #expect(blackRows.count <= 1 && blackColumns.count <= 1)
        }
    }

    @Test func identityRecipeRoundsAnOddSizeDownToEven() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await RenderFixture.clip(dir.file("odd.mp4"), width: 317, height: 237, codec: "mpeg4")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.width == 316 && video.height == 236)
        #expect(try PSNR.compare(output, clip, filterB: "scale=316:236:flags=bicubic").min >= 35)
    }

    /// A picture of another shape, fitted: black bars (Y 16, U/V 128) on the sides it does not
    /// reach, the picture centred between them; filled: no bars, the middle of the picture.
    @Test(arguments: ["317x177", "177x317"])
    func fitLeavesBlackBarsAndFillCovers(size: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let (width, height) = Self.parse(size)
        let clip = try await RenderFixture.clip(dir.file("shape.mp4"), width: width, height: height, codec: "mpeg4")
        let fitRecipe = try Fixtures.makeFile(in: dir.path, name: "fit.yaml", contents: "version: 1\noutput: { size: 320x240, fit: fit }\n")
        let fillRecipe = try Fixtures.makeFile(in: dir.path, name: "fill.yaml", contents: "version: 1\noutput: { size: 320x240, fit: fill }\n")

        let fitted = dir.file("fit.mp4"), filled = dir.file("fill.mp4")
        let fitResult = try await DropcutProcess.run(["render", "--recipe", fitRecipe, "--output", fitted, clip])
        let fillResult = try await DropcutProcess.run(["render", "--recipe", fillRecipe, "--output", filled, clip])

        try #require(fitResult.status == 0, "\(fitResult.stderr)")
        try #require(fillResult.status == 0, "\(fillResult.stderr)")
        for output in [fitted, filled] {
            let video = try #require(try FFprobe.stream("video", of: output))
            #expect(video.width == 320 && video.height == 240)
            #expect(abs((video.duration ?? 0) - 1) <= Self.frame)
        }
        let wide = width > height
        // Expected picture: 320x178.7 (wide) or 134x240 (tall), centred.
        let picture = try DecodedMedia.yuvFrame(of: fitted, index: 10, width: 320, height: 240)
        let lumaRows = { (rows: Range<Int>, columns: Range<Int>) in rows.flatMap { r in columns.map { picture.y[r * 320 + $0] } } }
        let chroma = { (rows: Range<Int>, columns: Range<Int>) in
            rows.flatMap { r in columns.flatMap { [picture.u[r * 160 + $0], picture.v[r * 160 + $0]] } }
        }
        let bars: [(Range<Int>, Range<Int>)] = wide ? [(0..<24, 0..<320), (216..<240, 0..<320)] : [(0..<240, 0..<84), (0..<240, 236..<320)]
        for (rows, columns) in bars {
            let luma = lumaRows(rows, columns)
            let uv = chroma(rows.lowerBound / 2..<rows.upperBound / 2, columns.lowerBound / 2..<columns.upperBound / 2)
            print("\(size) fit: bar rows \(rows) columns \(columns): Y mean \(Self.mean(luma)), U/V mean \(Self.mean(uv))")
            #expect(abs(Self.mean(luma) - 16) < 2 && luma.allSatisfy { abs(Int($0) - 16) <= 10 }, "bar not black: Y mean \(Self.mean(luma))")
            #expect(abs(Self.mean(uv) - 128) < 2 && uv.allSatisfy { abs(Int($0) - 128) <= 10 }, "bar not neutral: U/V mean \(Self.mean(uv))")
        }
        let centre = wide ? lumaRows(40..<200, 0..<320) : lumaRows(0..<240, 100..<220)
        #expect(!Self.isBlack(centre), "no picture between the bars")
        // Centred: as many black lines on either side (within one, plus one for rounding).
        let black = wide
            ? (0..<240).map { r in Self.isBlack(lumaRows(r..<r + 1, 0..<320)) }
            : (0..<320).map { c in Self.isBlack(lumaRows(0..<240, c..<c + 1)) }
        let leading = black.prefix { $0 }.count, trailing = black.reversed().prefix { $0 }.count
        print("\(size) fit: \(leading) + \(trailing) black \(wide ? "rows" : "columns")")
        #expect(abs(leading - trailing) <= 2)
        #expect(wide ? (26...34).contains(leading) : (88...96).contains(leading))
        // Filled: no bars; the picture matches ffmpeg's scale-to-cover and centre crop.
        let filledPicture = try DecodedMedia.yuvFrame(of: filled, index: 10, width: 320, height: 240)
        #expect(!Self.isBlack(Array(filledPicture.y[0..<320 * 4])) && !Self.isBlack(Array(filledPicture.y[320 * 236..<320 * 240])))
        let psnr = try PSNR.compare(filled, clip, filterB: "scale=320:240:force_original_aspect_ratio=increase:flags=bicubic,crop=320:240")
        print("\(size) fill: PSNR vs ffmpeg scale+crop \(psnr)")
        #expect(psnr.min >= 35, "\(psnr)")
    }

    // MARK: 5. Two clips: different sizes and rates, cut and crossfade

    @Test(arguments: ["cut", "crossfade"])
    func twoClipsOfDifferentSizesAndRatesJoin(transition: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let assets = dir.file("assets"), recipes = dir.file("recipes")
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: recipes, withIntermediateDirectories: false)
        // A: the dropped clip, 320x240 30 fps 1 s, 440 Hz at 48 kHz.
        // B: an asset, 480x270 25 fps 1.2 s, 880 Hz at 44.1 kHz; fitted to 320x180 at y 30.
        let a = try await RenderFixture.clip(dir.file("a.mp4"))
        let b = try await RenderFixture.clip((assets as NSString).appendingPathComponent("b.mp4"), width: 480, height: 270, fps: 25,
                              seconds: 1.2, frequency: 880, sampleRate: 44_100)
        let join = transition == "cut" ? "" : "transition: { kind: crossfade, duration: 0.5 }\n"
        let recipe = try Fixtures.makeFile(in: recipes, name: "two.yaml", contents: """
        version: 1
        clips:
          - source: "{input}"
          - source: b.mp4
        \(join)
        """)
        let overlap = transition == "cut" ? 0 : 0.5

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--assets", assets, "--output", output, a])

        try #require(result.status == 0, "\(result.stderr)")
        let expected = 1 + 1.2 - overlap
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        let frames = try FFprobe.decodedVideoFrames(of: output)
        print("\(transition): video \(video.duration ?? 0) s, \(frames) frames, audio \(audio.duration ?? 0) s at \(audio.sampleRate ?? "?") Hz (expected \(expected) s)")
        #expect(video.width == 320 && video.height == 240 && video.frameRate == "30/1")
        #expect(abs((video.duration ?? 0) - expected) <= Self.frame)
        #expect(abs(Double(frames) - expected * 30) <= 1)
        #expect(abs((audio.duration ?? 0) - (video.duration ?? 0)) <= Self.frame)
        #expect(audio.sampleRate == "48000")

        // Pictures: A unchanged until the transition; B, converted to 30 fps and fitted, after it.
        let first = try PSNR.compare(output, a, filterA: "trim=end=0.5,setpts=PTS-STARTPTS", filterB: "trim=end=0.5,setpts=PTS-STARTPTS")
        let bStart = 1 - overlap
        let second = try PSNR.compare(
            output, b,
            filterA: "trim=start=1,setpts=PTS-STARTPTS",
            filterB: "fps=30:round=up,trim=start=\(overlap),setpts=PTS-STARTPTS,scale=320:180:flags=bicubic,pad=320:240:0:30")
        print("\(transition): A part \(first); B part (from \(bStart + overlap) s) \(second)")
        #expect(first.min >= 38 && first.frames.count == 15, "\(first)")
        #expect(second.min >= 38 && abs(second.frames.count - Int(((expected - 1) * 30).rounded())) <= 1, "\(second)")
        if overlap > 0 {
            // Mid-crossfade the picture is neither clip alone.
            let mid = try PSNR.compare(output, a, filterA: "select=eq(n\\,22),setpts=0", filterB: "select=eq(n\\,22),setpts=0")
            #expect(mid.average < 30, "frame 22 is still clip A alone: \(mid)")
        }
        // Sound: A's tone first, B's (resampled to 48 kHz, pitch kept) at the end.
        let samples = try DecodedMedia.monoSamples(of: output)
        let startTone = Self.frequency(samples, 2_400..<19_200, sampleRate: 48_000)
        let endTone = Self.frequency(samples, Int((expected - 0.45) * 48_000)..<Int((expected - 0.1) * 48_000), sampleRate: 48_000)
        print("\(transition): tones \(startTone) Hz then \(endTone) Hz")
        #expect(abs(startTone - 440) < 15 && abs(endTone - 880) < 15)
    }

    // MARK: 6. Held frames

    /// A source frame that stays on screen for half a second (a VFR gap) is shown on every
    /// output frame of that half second.
    @Test func sourceFrameHeldForHalfASecondRepeatsOnTheGrid() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Source frames 0-15 at n/30 s, then frame 29 of the pattern at 29/30 s: frame 15
        // (0.5 s) lasts until 0.967 s.
        let clip = dir.file("gap.mp4")
        try await RenderFixture.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                         "-vf", "select='lte(n,15)+eq(n,29)',setpts='if(lte(N,15),N/30,29/30)/TB'," + RenderFixture.bt709Filter,
                         "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast"] + RenderFixture.bt709Tags + ["-c:a", "aac", clip])
        let times = try FFprobe.videoPackets(of: clip).map(\.time).sorted()
        #expect(times.count == 17 && abs(times[16] - 29.0 / 30) < 0.002 && abs(times[15] - 0.5) < 0.002, "fixture frame times \(times)")

        let recipe = try Fixtures.makeFile(in: dir.path, name: "cfr.yaml", contents: "version: 1\noutput: { fps: 30 }\n")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.frameRate == "30/1")
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
        #expect(abs((video.duration ?? 0) - 1) <= Self.frame)
        var held: [Double] = []
        for index in 15...28 {
            let same = try PSNR.compare(output, clip, filterA: "select=eq(n\\,\(index)),setpts=0", filterB: "select=eq(n\\,15),setpts=0")
            held.append(same.average)
            #expect(same.average >= 40, "output frame \(index) vs the held source frame: \(same)")
        }
        let before = try PSNR.compare(output, clip, filterA: "select=eq(n\\,15),setpts=0", filterB: "select=eq(n\\,14),setpts=0")
        let last = try PSNR.compare(output, clip, filterA: "select=eq(n\\,29),setpts=0", filterB: "select=eq(n\\,16),setpts=0")
        print("held frame: PSNR of output frames 15-28 vs source frame 15: \(held.map { String(format: "%.1f", $0) }); output 15 vs source 14: \(before); output 29 vs source last: \(last)")
        #expect(before.average < 32, "the held frame is not told from its neighbour: \(before)")
        #expect(last.average >= 38, "\(last)")
    }

    /// A clip whose sound outlasts its picture by half a second: the sound is kept whole and
    /// the last picture stays on screen until it ends (the output lasts as long as the
    /// clip's longest track, like the ffmpeg CLI's output and an AVAsset's duration).
    @Test func audioOutlastingVideoKeepsTheSoundAndHoldsTheLastFrame() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await RenderFixture.clip(dir.file("long-tail.mp4"), seconds: 1, audioSeconds: 1.5)
        let sourceAudio = try #require(try FFprobe.stream("audio", of: clip))
        #expect(abs((sourceAudio.duration ?? 0) - 1.5) < 0.01, "the fixture's audio is not 1.5 s")

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        let frames = try FFprobe.decodedVideoFrames(of: output)
        print("audio 0.5 s longer than video: output video \(video.duration ?? 0) s (\(frames) frames), audio \(audio.duration ?? 0) s")
        #expect(abs((audio.duration ?? 0) - 1.5) <= Self.frame, "the sound after the last picture was dropped")
        #expect(abs((video.duration ?? 0) - 1.5) <= Self.frame)
        #expect(abs(frames - 45) <= 1)
        guard frames >= 44 else { return }
        // Frames 29 (the source's last) to the end all show the source's last frame.
        for index in [29, 35, frames - 2, frames - 1] {
            let psnr = try PSNR.compare(output, clip, filterA: "select=eq(n\\,\(index)),setpts=0", filterB: "select=eq(n\\,29),setpts=0")
            #expect(psnr.average >= 38, "output frame \(index) vs the source's last frame: \(psnr)")
        }
        let lastTwo = try PSNR.compare(output, output, filterA: "select=eq(n\\,\(frames - 2)),setpts=0", filterB: "select=eq(n\\,\(frames - 1)),setpts=0")
        #expect(lastTwo.average >= 45, "\(lastTwo)")
    }

    // MARK: 7. Trim

    @Test func trimStartsOnTheExactFrameNotTheKeyframe() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // 2 s, one keyframe (at 0); the sound is a 440 Hz burst from 0.5 to 0.7 s, silent otherwise.
        let clip = dir.file("long-gop.mp4")
        try await RenderFixture.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=2",
                         "-f", "lavfi", "-i", "aevalsrc='if(between(t,0.5,0.7),0.5*sin(2*PI*440*t),0)':s=48000:d=2",
                         "-vf", RenderFixture.bt709Filter, "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", "-sc_threshold", "0"]
                        + RenderFixture.bt709Tags + ["-c:a", "aac", clip])
        let keyframes = try FFprobe.videoPackets(of: clip).filter(\.keyframe).map(\.time)
        #expect(keyframes == [0], "fixture keyframes at \(keyframes)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "trim.yaml", contents: """
        version: 1
        clips:
          - source: "{input}"
            trim: [0.5, 1.5]
        """)

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(abs((video.duration ?? 0) - 1) <= Self.frame)
        #expect(try FFprobe.decodedVideoFrames(of: output) == 30)
        let firstFrame = "select=eq(n\\,0),setpts=0"
        let atHalf = try PSNR.compare(output, clip, filterA: firstFrame, filterB: "select=eq(n\\,15),setpts=0")
        let before = try PSNR.compare(output, clip, filterA: firstFrame, filterB: "select=eq(n\\,14),setpts=0")
        let keyframe = try PSNR.compare(output, clip, filterA: firstFrame, filterB: "select=eq(n\\,0),setpts=0")
        // And ffmpeg's own accurate seek to 0.5 s.
        let seekReference = dir.file("seek.mp4")
        try await RenderFixture.ffmpeg(["-ss", "0.5", "-i", clip, "-frames:v", "1", "-an", "-c:v", "libx264", "-qp", "0", seekReference])
        let seek = try PSNR.compare(output, seekReference, filterA: firstFrame)
        print("trim [0.5, 1.5]: first frame vs source 0.5 s: \(atHalf); vs ffmpeg -ss 0.5: \(seek); vs 0.467 s: \(before); vs keyframe 0: \(keyframe)")
        #expect(atHalf.average >= 35 && seek.average >= 35)
        #expect(before.average <= atHalf.average - 10 && keyframe.average <= atHalf.average - 10)
        let whole = try PSNR.compare(output, clip, filterB: "trim=start=0.5:end=1.5,setpts=PTS-STARTPTS")
        print("trim [0.5, 1.5]: whole output vs source 0.5-1.5 s: \(whole)")
        #expect(whole.frames.count == 30 && whole.min >= 35, "\(whole)")
        // The sound is cut at the same place: the burst opens the output, silence follows.
        let samples = try DecodedMedia.monoSamples(of: output)
        let burst = DecodedMedia.rmsDecibels(samples, 480..<8_640), after = DecodedMedia.rmsDecibels(samples, 14_400..<43_200)
        print("trim [0.5, 1.5]: audio 0.01-0.18 s \(burst) dBFS, 0.3-0.9 s \(after) dBFS")
        #expect(burst > -12 && after < -50)
    }

    // MARK: 8. Bad inputs

    @Test(arguments: ["zero-byte", "truncated", "text", "audio-only", "truncated-faststart"])
    func badInputFailsNamingItAndLeavesNothing(kind: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let scratch = dir.file("scratch"), inbox = dir.file("in"), outbox = dir.file("out")
        for folder in [scratch, inbox, outbox] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false) }
        let input = (inbox as NSString).appendingPathComponent("bad \(kind).mp4")
        switch kind {
        case "zero-byte":
            try Data().write(to: URL(fileURLWithPath: input))
        case "text":
            try Data("this is not a video\n".utf8).write(to: URL(fileURLWithPath: input))
        case "audio-only":
            try await RenderFixture.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", "-f", "mp4", input])
        default:
            // First half of a 2 s clip: without faststart the index (moov) is at the end and
            // lost; with it the index survives and the media data is cut short.
            let whole = try await Fixtures.makeClip(in: scratch, name: "whole.mp4", seconds: 2)
            var source = whole
            if kind == "truncated-faststart" {
                source = (scratch as NSString).appendingPathComponent("faststart.mp4")
                try await RenderFixture.ffmpeg(["-i", whole, "-c", "copy", "-movflags", "+faststart", source])
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: source))
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: input))
        }

        let besideInput = try await DropcutProcess.run(["render", input])
        let intoOutbox = try await DropcutProcess.run(["render", "--output", outbox + "/", input])

        for result in [besideInput, intoOutbox] {
            print("\(kind): status \(result.status), stderr: \(result.stderr.split(separator: "\n").last ?? "")")
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("dropcut render: \(input)"), "\(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox) == ["bad \(kind).mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox) == [])
    }

    // MARK: 9. Memory

    @Test func peakMemoryDoesNotGrowWithClipLength() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // MPEG-4 Part 2: decoded, composited and encoded (H.264 would pass through).
        let short = try Fixtures.makeClip(in: dir.path, name: "short.mp4", width: 640, height: 360, seconds: 2, videoCodec: "mpeg4")
        let long = try Fixtures.makeClip(in: dir.path, name: "long.mp4", width: 640, height: 360, seconds: 8, videoCodec: "mpeg4")
        let dropcut = try BuildProducts.executable(named: "dropcut")

        let shortRun = try PeakMemory.run(dropcut, ["render", "--output", dir.file("short.out.mp4"), short])
        let longRun = try PeakMemory.run(dropcut, ["render", "--output", dir.file("long.out.mp4"), long])

        #expect(shortRun.status == 0, "\(shortRun.stderr)")
        #expect(longRun.status == 0, "\(longRun.stderr)")
        #expect(try FFprobe.decodedVideoFrames(of: dir.file("long.out.mp4")) == 240)
        let growth = Double(longRun.peakKiB - shortRun.peakKiB) / Double(shortRun.peakKiB)
        print(String(format: "peak RSS: 2 s clip %.1f MiB (%.2f s), 8 s clip %.1f MiB (%.2f s), growth %+.1f %%",
                     shortRun.peakMiB, shortRun.seconds, longRun.peakMiB, longRun.seconds, growth * 100))
        #expect(shortRun.peakKiB > 10_000, "implausible peak RSS \(shortRun.peakKiB) KiB")
        #expect(abs(growth) < 0.15)
    }

    // MARK: Colour

    /// A BT.601 clip (what many Android phones write) keeps its colours whether its layer is
    /// passed through at its own size or scaled: the output is tagged BT.709, so the pixels
    /// must be converted to it either way.
    @Test func bt601ClipKeepsItsColoursScaledOrNot() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("bt601.mp4")
        try await RenderFixture.ffmpeg(["-f", "lavfi", "-i", "color=c=0xC04020:size=320x240:rate=30:duration=1",
                         "-vf", "scale=out_color_matrix=bt601:out_range=tv,format=yuv420p",
                         "-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m", "-color_range", "tv",
                         "-c:v", "libx264", "-preset", "ultrafast", clip])
        let bigger = try Fixtures.makeFile(in: dir.path, name: "big.yaml", contents: "version: 1\noutput: { size: 640x480 }\n")

        let same = dir.file("same.mp4"), scaled = dir.file("scaled.mp4")
        let sameResult = try await DropcutProcess.run(["render", "--output", same, clip])
        let scaledResult = try await DropcutProcess.run(["render", "--recipe", bigger, "--output", scaled, clip])

        try #require(sameResult.status == 0 && scaledResult.status == 0, "\(sameResult.stderr)\(scaledResult.stderr)")
        // ffmpeg turns each into RGB by the matrix its stream is tagged with.
        let source = try await Self.rgb(of: clip), passedThrough = try await Self.rgb(of: same), enlarged = try await Self.rgb(of: scaled)
        print("BT.601 source RGB \(source); same size \(passedThrough) (\(try FFprobe.stream("video", of: same)?.colorSpace ?? "?")); scaled \(enlarged) (\(try FFprobe.stream("video", of: scaled)?.colorSpace ?? "?"))")
        #expect(zip(source, enlarged).allSatisfy { abs($0 - $1) <= 6 }, "scaled: \(enlarged) vs \(source)")
        #expect(zip(source, passedThrough).allSatisfy { abs($0 - $1) <= 6 }, "same size: \(passedThrough) vs \(source)")
    }

    // MARK: Helpers

    static func parse(_ size: String) -> (Int, Int) {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        return (parts[0], parts[1])
    }

    static func mean(_ values: [UInt8]) -> Double {
        values.isEmpty ? 0 : Double(values.reduce(0) { $0 + Int($1) }) / Double(values.count)
    }

    /// Video-range black, give or take coding noise.
    static func isBlack(_ luma: [UInt8]) -> Bool {
        abs(mean(luma) - 16) < 3 && luma.allSatisfy { abs(Int($0) - 16) <= 12 }
    }

    /// The frequency of a steady tone, from its rising zero crossings.
    static func frequency(_ samples: [Float], _ range: Range<Int>, sampleRate: Int) -> Double {
        let slice = Array(samples[max(0, range.lowerBound)..<min(samples.count, range.upperBound)])
        guard slice.count > 1 else { return 0 }
        let rising = (1..<slice.count).filter { slice[$0 - 1] < 0 && slice[$0] >= 0 }.count
        return Double(rising) * Double(sampleRate) / Double(slice.count)
    }

    /// The RGB of the pixel at (160, 120) of frame 5, converted by ffmpeg.
    static func rgb(of path: String) async throws -> [Int] {
        let output = NSTemporaryDirectory() + "dropcut-rgb-\(UUID().uuidString).raw"
        defer { try? FileManager.default.removeItem(atPath: output) }
        try await RenderFixture.ffmpeg(["-i", path, "-vf", "select=eq(n\\,5),scale=320:240,crop=2:2:160:120,format=rgb24",
                         "-frames:v", "1", "-f", "rawvideo", output])
        return try Data(contentsOf: URL(fileURLWithPath: output)).prefix(3).map(Int.init)
    }
}

/// Fixtures for these tests, made with the `ffmpeg` CLI.
fileprivate enum RenderFixture {
    /// Converts testsrc2's RGB with the BT.709 matrix into video-range 4:2:0...
    static let bt709Filter = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
    /// ...and says so in the stream.
    static let bt709Tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    static func ffmpeg(_ args: [String]) async throws {
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + args)
    }

    /// A BT.709 testsrc2 clip of `width`x`height` (odd sizes too: scaled from the next even
    /// size) at `fps`, with a `frequency` Hz sine lasting `audioSeconds` (default: as long as
    /// the video; 0: no audio) encoded as AAC, written before the video when `audioFirst`.
    /// Returns `path`.
    @discardableResult
    static func clip(_ path: String, width: Int = 320, height: Int = 240, fps: Int = 30, seconds: Double = 1,
                     audioSeconds: Double? = nil, frequency: Int = 440, sampleRate: Int = 48_000, audioFirst: Bool = false,
                     codec: String = "libx264") async throws -> String {
        let audio = audioSeconds ?? seconds
        var args = ["-f", "lavfi", "-i", "testsrc2=size=\(width + width % 2)x\(height + height % 2):rate=\(fps):duration=\(seconds)"]
        if audio > 0 {
            args += ["-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=\(sampleRate):duration=\(audio)", "-c:a", "aac"]
            args += audioFirst ? ["-map", "1:a", "-map", "0:v"] : ["-map", "0:v", "-map", "1:a"]
        }
        args += ["-vf", "scale=\(width):\(height):flags=bicubic:out_color_matrix=bt709:out_range=tv,format=yuv420p", "-c:v", codec]
        args += codec == "libx264" ? ["-preset", "ultrafast"] : ["-q:v", "2"]
        // The same clip is asked for again and again: made once per test process.
        try await Fixtures.generate(["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + args + bt709Tags, output: path)
        return path
    }

    /// `source` stream-copied with its video tagged `rotate=degrees` (a display matrix).
    static func rotated(_ source: String, by degrees: Int, to path: String) async throws -> String {
        try await ffmpeg(["-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", path])
        return path
    }
}

fileprivate extension Array where Element == Double {
    /// Differences between neighbours: `[b - a, c - b, ...]`.
    var adjacentDifferences: [Double] {
        count < 2 ? [] : (1..<count).map { self[$0] - self[$0 - 1] }
    }
}
