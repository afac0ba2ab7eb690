import Foundation
import Testing
import TestSupport

/// Still images as recipe clips, end to end: `dropcut render`, `plan` and `probe` on PNGs
/// made by the `ffmpeg` CLI, the outputs judged by `ffprobe` and by ffmpeg's own decode
/// and scaling (PSNR), never by dropcut.
///
/// References are converted by ffmpeg to what dropcut writes — BT.709 video-range 4:2:0 —
/// so the comparison measures placement and resampling, not the RGB-to-YUV matrix.
@Suite(.tags(.slow)) struct StillClipRenderTests {
    /// ffmpeg's picture in dropcut's output format, for the second input of a `PSNR` graph.
    static let asOutput = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"

    static func png(_ dir: TemporaryDirectory, _ name: String, source: String, format: String = "rgb24") async throws -> String {
        let path = dir.file(name)
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                                          "-frames:v", "1", "-pix_fmt", format, path])
        return path
    }

    /// A lossless (FFV1) reference made by the ffmpeg CLI from `inputs` through `graph`,
    /// `frames` frames long, in dropcut's output format.
    static func reference(_ dir: TemporaryDirectory, _ name: String, inputs: [String], graph: String, frames: Int) async throws -> String {
        let path = dir.file(name)
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + inputs
                               + ["-filter_complex", "\(graph),\(asOutput)", "-frames:v", "\(frames)", "-c:v", "ffv1", "-f", "nut", path])
        return path
    }

    /// The picture at `path` held for `frames` frames at 30 fps, as dropcut's output holds it.
    static func held(_ dir: TemporaryDirectory, _ path: String, frames: Int) async throws -> String {
        try await reference(dir, "held.nut", inputs: ["-loop", "1", "-framerate", "30", "-i", path], graph: "[0:v]null", frames: frames)
    }

    /// A 320x240 30 fps testsrc2 clip with a 440 Hz tone, its video BT.709 and tagged so
    /// (as phones write), so its frames compare with dropcut's plane for plane.
    static func bt709Clip(_ dir: TemporaryDirectory, seconds: Int) async throws -> String {
        let path = dir.file("clip709.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=\(seconds)",
                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                          "-vf", asOutput, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                                          "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", path])
        return path
    }

    static func recipe(_ dir: TemporaryDirectory, _ yaml: String, name: String = "still.yaml") throws -> String {
        try Fixtures.makeFile(in: dir.path, name: name, contents: yaml)
    }

    @Test func aStillRendersItsDurationOfFramesMatchingThePicture() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let photo = try await Self.png(dir, "photo.png", source: "testsrc=size=320x240")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\noutput: { fps: 30, video: { crf: 12 } }\nclips:\n  - { source: photo.png, duration: 2 }\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        // Video only: a still has no sound, and no other clip brings any.
        let streams = try FFprobe.facts(of: output)
        #expect(streams.map(\.codecType) == ["video"])
        let video = try #require(streams.first)
        #expect(video.width == 320 && video.height == 240 && video.frameRate == "30/1")
        #expect(abs((video.duration ?? 0) - 2) <= 0.001 && video.frameCount == 60, "\(video.duration ?? 0) s, \(video.frameCount ?? 0) frames")
        // Every frame is the picture (the PNG looped, paired by time).
        let psnr = try await PSNR.compare(output, try Self.held(dir, photo, frames: 60))
        print("still 2 s: \(video.frameCount ?? 0) frames, \(video.duration ?? 0) s; PSNR against the PNG \(psnr)")
        #expect(psnr.frames.count == 60)
        #expect(psnr.min >= 35, "\(psnr)")
    }

    @Test func aStillThenAVideoJoinAndTheirDurationsAdd() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let photo = try await Self.png(dir, "photo.png", source: "testsrc=size=320x240")
        let clip = try await Self.bt709Clip(dir, seconds: 2)
        let recipe = try Self.recipe(dir, "version: 1\noutput: { video: { crf: 12 } }\nclips:\n  - { source: photo.png, duration: 1.5 }\n  - source: \"{input}\"\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let video = try #require(try FFprobe.stream("video", of: output))
        let audio = try #require(try FFprobe.stream("audio", of: output))
        // 1.5 s + 2 s at the clip's 30 fps; the clip's sound, silent under the picture.
        #expect(abs((video.duration ?? 0) - 3.5) <= 0.001 && video.frameCount == 105, "\(video.duration ?? 0) s, \(video.frameCount ?? 0) frames")
        #expect(abs((audio.duration ?? 0) - 3.5) <= 0.05, "audio \(audio.duration ?? 0) s")
        let still = try await PSNR.compare(output, try Self.held(dir, photo, frames: 45), filterA: "trim=end_frame=45")
        let moving = try PSNR.compare(output, clip, filterA: "trim=start_frame=45,setpts=PTS-STARTPTS")
        print("still 1.5 s + clip 2 s: video \(video.duration ?? 0) s (\(video.frameCount ?? 0) frames), audio \(audio.duration ?? 0) s; "
              + "the still part against the PNG \(still); the clip part against the clip \(moving)")
        #expect(still.frames.count == 45 && still.min >= 35, "\(still)")
        #expect(moving.frames.count == 60 && moving.min >= 35, "\(moving)")
    }

    /// A Ken Burns from the whole picture to its centre half: the last frame (at 59/60 of
    /// the ramp) is ffmpeg's crop of the centre half scaled up, within 30 dB; the picture
    /// is softened so that a sub-pixel difference between two correct resamplers does not
    /// dominate. The uncropped picture is far off, so the test tells a zoom that failed.
    @Test func kenBurnsOnAStillEndsOnItsCrop() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let photo = try await Self.png(dir, "soft.png", source: "testsrc=size=320x240,gblur=sigma=2")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, """
            version: 1
            output: { size: 320x240, fps: 30, video: { crf: 12 } }
            clips:
              - source: soft.png
                duration: 2
                ken_burns: { from: [0, 0, "100%", "100%"], to: ["25%", "25%", "50%", "50%"] }

            """)
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        #expect(try FFprobe.stream("video", of: output)?.frameCount == 60)
        let last = "select=eq(n\\,59),setpts=PTS-STARTPTS"
        let cropped = try PSNR.compare(output, photo, filterA: last, filterB: "crop=160:120:80:60,scale=320:240,\(Self.asOutput)")
        let uncropped = try PSNR.compare(output, photo, filterA: last, filterB: Self.asOutput)
        let first = try PSNR.compare(output, photo, filterA: "select=eq(n\\,0),setpts=PTS-STARTPTS", filterB: Self.asOutput)
        print("ken burns on a still: last frame against ffmpeg's centre crop \(cropped.average) dB, against the whole picture \(uncropped.average) dB; "
              + "first frame against the whole picture \(first.average) dB")
        #expect(cropped.average >= 30, "\(cropped)")
        #expect(uncropped.average < 20, "\(uncropped)")
        #expect(first.average >= 35, "\(first)")
    }

    /// A PNG with alpha: its transparent part shows the instruction's background (black),
    /// as ffmpeg's overlay of the picture on black does.
    @Test func alphaIsCompositedOverTheBackground() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Opaque on the left half, fading to transparent across the right half.
        let photo = try await Self.png(dir, "alpha.png", source: "testsrc=size=320x240,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,160),255,(319-X)*255/159)'",
                                 format: "rgba")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\noutput: { fps: 30, video: { crf: 12 } }\nclips:\n  - { source: alpha.png, duration: 1 }\n")
        let output = dir.file("out.mp4")

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        try #require(result.status == 0, "\(result.stderr)")
        let first = "select=eq(n\\,0),setpts=PTS-STARTPTS"
        let onBlack = try await Self.reference(dir, "on-black.nut", inputs: ["-f", "lavfi", "-i", "color=c=black:s=320x240:r=30", "-i", photo],
                                         graph: "[0:v][1:v]overlay=shortest=1", frames: 1)
        let overBlack = try PSNR.compare(output, onBlack, filterA: first)
        let alphaIgnored = try PSNR.compare(output, photo, filterA: first, filterB: "format=rgb24,\(Self.asOutput)")
        print("alpha over black: \(overBlack.average) dB against ffmpeg's overlay on black, \(alphaIgnored.average) dB against the colours without alpha")
        #expect(overBlack.average >= 35, "\(overBlack)")
        #expect(alphaIgnored.average < 25, "\(alphaIgnored)")
    }

    /// A JPEG of `source` (320x240) carrying an EXIF orientation tag `orientation`, as a
    /// phone writes a photo taken turned: the pixels as the sensor stored them, and an
    /// APP1 segment (little-endian TIFF, one IFD entry 0x0112) saying how to show them.
    static func jpeg(_ dir: TemporaryDirectory, _ name: String, source: String, orientation: UInt16) async throws -> String {
        let plain = dir.file("plain-\(name)")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
                                          "-frames:v", "1", "-q:v", "2", plain])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        try #require(bytes.starts(with: [0xFF, 0xD8]), "ffmpeg wrote a JPEG")
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        // TIFF header, one IFD of one entry (tag 0x0112, type SHORT, count 1, the value
        // left-justified in the 4-byte field), no next IFD.
        let tiff = Array("II".utf8) + le16(42) + le32(8) + le16(1) + le16(0x0112) + le16(3) + le32(1) + le16(orientation) + le16(0) + le32(0)
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(body.count + 2)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        let path = dir.file(name)
        try Data(Array(bytes[0..<2]) + segment + Array(bytes[2...])).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A phone photo taken turned shows upright, as a portrait clip does: EXIF tag 6 (a
    /// quarter turn clockwise) makes a 320x240 picture a 240x320 output matching ffmpeg's
    /// `transpose=clock` of the stored pixels; tag 5 (mirrored, the transposition) matches
    /// `transpose=cclock_flip` and not the unmirrored turn. A Ken Burns on the turned photo
    /// crops in upright coordinates. `probe` says how the photo is shown.
    @Test func aPhotosEXIFOrientationShowsItUpright() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let source = "testsrc=size=320x240,gblur=sigma=1.5"
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let stored = ["-noautorotate"]
        for (tag, turn, wrong) in [(UInt16(6), "transpose=clock", "transpose=cclock"), (5, "transpose=cclock_flip", "transpose=clock")] {
            let photo = try await Self.jpeg(dir, "photo\(tag).jpg", source: source, orientation: tag)
            let recipe = try Self.recipe(dir, "version: 1\noutput: { fps: 30, video: { crf: 12 } }\nclips:\n  - { source: photo\(tag).jpg, duration: 1 }\n",
                                         name: "upright\(tag).yaml")
            let output = dir.file("upright\(tag).mp4")

            let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

            try #require(result.status == 0, "\(result.stderr)")
            let video = try #require(try FFprobe.stream("video", of: output))
            #expect(video.width == 240 && video.height == 320 && video.frameCount == 30, "\(video)")
            let first = "select=eq(n\\,0),setpts=PTS-STARTPTS"
            let upright = try PSNR.compare(output, photo, filterA: first, filterB: "\(turn),\(Self.asOutput)", inputOptionsB: stored)
            let other = try PSNR.compare(output, photo, filterA: first, filterB: "\(wrong),\(Self.asOutput)", inputOptionsB: stored)
            print("EXIF orientation \(tag): \(video.width ?? 0)x\(video.height ?? 0), against ffmpeg's \(turn) \(upright.average) dB, against \(wrong) \(other.average) dB")
            #expect(upright.average >= 35, "\(upright)")
            #expect(other.average < 20, "\(other)")
        }

        // Ken Burns to the upright picture's top-left quarter (120x160), filling 240x320:
        // the zoom ramps from 1 to 2 about the top-left corner, so the last frame (59/60
        // of the ramp) is the upright picture scaled 119/60 (476x634.7) and cropped there.
        let recipe = try Self.recipe(dir, """
            version: 1
            output: { fps: 30, video: { crf: 12 } }
            clips:
              - source: photo6.jpg
                duration: 2
                ken_burns: { from: [0, 0, "100%", "100%"], to: [0, 0, "50%", "50%"] }

            """, name: "kenburns.yaml")
        let output = dir.file("kenburns.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let last = "select=eq(n\\,59),setpts=PTS-STARTPTS"
        let quarter = try PSNR.compare(output, dir.file("photo6.jpg"), filterA: last,
                                       filterB: "transpose=clock,scale=476:635,crop=240:320:0:0,\(Self.asOutput)", inputOptionsB: stored)
        let storedQuarter = try PSNR.compare(output, dir.file("photo6.jpg"), filterA: last,
                                             filterB: "scale=635:476,crop=240:320:0:0,\(Self.asOutput)", inputOptionsB: stored)
        print("Ken Burns on a turned photo: last frame against the upright picture zoomed about its top-left corner \(quarter.average) dB, against the stored picture zoomed \(storedQuarter.average) dB")
        #expect(quarter.average >= 35, "\(quarter)")
        #expect(storedQuarter.average < 20, "\(storedQuarter)")

        let probe = try await DropcutProcess.run(["probe", dir.file("photo6.jpg")])
        #expect(probe.stdout.contains("320x240") && probe.stdout.contains("displayed rotated 90° clockwise"), "\(probe.stdout)")
        let json = try await DropcutProcess.run(["probe", "--json", dir.file("photo5.jpg")])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let stream = try #require((report["streams"] as? [[String: Any]])?.first)
        #expect(stream["rotation"] as? Int == 270 && stream["mirrored"] as? Bool == true, "\(stream)")
    }

    /// A photo dropped into the daemon's inbox with a sidecar recipe becomes a Ken Burns
    /// clip, upright from its EXIF orientation; the photo and recipe are archived. A photo
    /// dropped with no recipe goes to failed/ with the reason (a still needs a duration),
    /// its bytes intact, and the daemon carries on.
    @Test func aPhotoDroppedIntoTheInboxWithARecipeBecomesAClip() async throws {
        try Journald.ensureRunning()
        let h = try DaemonHarness()
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let photo = try await Self.jpeg(dir, "turned.jpg", source: "testsrc=size=320x240,gblur=sigma=1.5", orientation: 6)
        for name in ["photo.jpg", "lonely.jpg"] {
            let path = (h.inbox as NSString).appendingPathComponent(name)
            try FileManager.default.copyItem(atPath: photo, toPath: path)
            try h.age(path)
        }
        try h.write("photo.yaml", """
            version: 1
            output: { fps: 30 }
            clips:
              - source: "{input}"
                duration: 2
                ken_burns: { from: [0, 0, "100%", "100%"], to: [0, 0, "50%", "50%"] }

            """)

        let result = try await h.runOnce()

        #expect(result.status == 1, "the lonely photo fails; stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("1 done, 1 failed"), "\(result.stdout)")
        #expect(h.files(h.outbox) == ["photo.dropcut.mp4"])
        #expect(h.files(h.archive) == ["photo.jpg", "photo.yaml"])
        #expect(h.files(h.failed) == ["lonely.jpg", "lonely.jpg.error.txt"])
        #expect(h.files(h.inbox) == [] && h.claimedLeftovers() == [])
        let output = (h.outbox as NSString).appendingPathComponent("photo.dropcut.mp4")
        let video = try #require(try FFprobe.stream("video", of: output))
        #expect(video.width == 240 && video.height == 320 && video.frameCount == 60, "\(video)")
        let last = try PSNR.compare(output, photo, filterA: "select=eq(n\\,59),setpts=PTS-STARTPTS",
                                    filterB: "transpose=clock,scale=476:635,crop=240:320:0:0,\(Self.asOutput)", inputOptionsB: ["-noautorotate"])
        print("photo through the daemon: \(video.width ?? 0)x\(video.height ?? 0), \(video.frameCount ?? 0) frames; last frame against the upright picture zoomed \(last.average) dB")
        #expect(last.average >= 35, "\(last)")
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("lonely.jpg.error.txt"), encoding: .utf8)
        #expect(reason.contains("lonely.jpg") && reason.contains("still image") && reason.contains("duration"), "\(reason)")
        #expect(FileManager.default.contents(atPath: (h.failed as NSString).appendingPathComponent("lonely.jpg"))
                == FileManager.default.contents(atPath: photo))
    }

    /// An iPhone's HEIC photo (a real one, made by libheif's `heif-enc`): the FFmpeg
    /// dropcut is built on cannot decode HEIF, so `render` (as a recipe's clip and as the
    /// dropped input) and `probe` refuse it, naming the file and saying what to do, and
    /// write nothing — not FFmpeg's "moov atom not found".
    @Test func aHEICPhotoIsRefusedSayingWhatToDo() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let jpeg = try await Self.jpeg(dir, "photo.jpg", source: "testsrc=size=320x240", orientation: 1)
        let heic = dir.file("IMG_0001.HEIC")
        try await Command.runChecked("heif-enc", ["-q", "60", "-o", heic, jpeg])
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - { source: IMG_0001.HEIC, duration: 1 }\n")
        let runs = [["render", "--recipe", recipe, "--output", dir.file("a.mp4"), clip], ["render", "--output", dir.file("b.mp4"), heic],
                    ["probe", heic]]
        for arguments in runs {
            let result = try await DropcutProcess.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            // Named as given: the path on the command line, the name in the recipe.
            #expect(result.stderr.contains(arguments.contains(heic) ? heic : "IMG_0001.HEIC") && result.stderr.contains("HEIF") && result.stderr.contains("save it as JPEG or PNG")
                    && !result.stderr.contains("moov atom"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.mp4")) && !FileManager.default.fileExists(atPath: dir.file("b.mp4")))
    }

    /// A phone panorama is wider than any movie frame dropcut reads (8192): a still may be
    /// up to 16384 a side and 100 MP. A 12000x1000 picture panned from its left quarter to
    /// its right one: the first frame is ffmpeg's scaled left quarter, the last (59/60 of
    /// the pan) its quarter at 8850 px. Past the limits (17000 px wide, or 12000x9000 =
    /// 108 MP) the picture is refused, naming it and the limits, before it is decoded.
    @Test func aPanoramaIsPannedAndOversizedPicturesAreRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let pano = dir.file("pano.jpg")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "testsrc2=size=12000x1000,gblur=sigma=6", "-frames:v", "1", "-q:v", "2", pano])
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, """
            version: 1
            output: { size: 600x200, fps: 30, video: { crf: 12 } }
            clips:
              - source: pano.jpg
                duration: 2
                ken_burns: { from: [0, 0, "25%", "100%"], to: ["75%", 0, "25%", "100%"] }

            """, name: "pano.yaml")
        let output = dir.file("pano.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try FFprobe.stream("video", of: output)?.frameCount == 60)
        func frame(_ n: Int) -> String { "select=eq(n\\,\(n)),setpts=PTS-STARTPTS" }
        let first = try PSNR.compare(output, pano, filterA: frame(0), filterB: "crop=3000:1000:0:0,scale=600:200,\(Self.asOutput)")
        let last = try PSNR.compare(output, pano, filterA: frame(59), filterB: "crop=3000:1000:8850:0,scale=600:200,\(Self.asOutput)")
        let wrong = try PSNR.compare(output, pano, filterA: frame(59), filterB: "crop=3000:1000:0:0,scale=600:200,\(Self.asOutput)")
        print("panorama 12000x1000 panned: first frame \(first.average) dB, last \(last.average) dB against ffmpeg's crops; last against the first crop \(wrong.average) dB")
        #expect(first.average >= 35, "\(first)")
        #expect(last.average >= 35, "\(last)")
        #expect(wrong.average < 25, "\(wrong)")

        for (name, size, problem) in [("wide.jpg", "17000x16", "it is 17000 pixels wide, more than 16384"),
                                      ("huge.jpg", "12000x9000", "it is 108.0 megapixels, more than 100")] {
            let path = dir.file(name)
            try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                              "-i", "color=c=gray:s=\(size)", "-frames:v", "1", path])
            let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - { source: \(name), duration: 1 }\n", name: "\(name).yaml")
            let refused = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", dir.file("\(name).mp4"), clip])
            #expect(refused.status == 1, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("\(path)") && refused.stderr.contains("the picture is \(size) pixels: \(problem); dropcut reads pictures of at most 16384 pixels a side, 100 megapixels and 400 MB decoded"),
                    "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("\(name).mp4")))
        }
    }

    @Test func recipeMistakesAboutStillsNameTheFileLineAndColumn() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        _ = try await Self.png(dir, "photo.png", source: "testsrc=size=320x240")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let cases: [(yaml: String, expected: String)] = [
            ("version: 1\nclips:\n  - source: photo.png\n", ":3:5: clips[0]: photo.png is a still image (320x240): it needs duration: SECONDS"),
            ("version: 1\nclips:\n  - source: photo.png\n    duration: 0\n", ":4:15: clips[0].duration must be more than 0 and at most 4 hours (14400 s) (got 0)"),
            ("version: 1\nclips:\n  - source: photo.png\n    duration: -1\n", ":4:15: clips[0].duration must be more than 0 and at most 4 hours (14400 s) (got -1)"),
            ("version: 1\nclips:\n  - source: photo.png\n    duration: 1e12\n", ":4:15: clips[0].duration must be more than 0 and at most 4 hours (14400 s) (got 1e12)"),
            ("version: 1\nclips:\n  - source: photo.png\n    trim: [0, 1]\n", ":4:11: clips[0].trim: photo.png is a still image, with no time to trim"),
        ]
        for (i, item) in cases.enumerated() {
            let recipe = try Self.recipe(dir, item.yaml, name: "bad\(i).yaml")
            let output = dir.file("out\(i).mp4")
            let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
            #expect(result.status == 1, "\(item.yaml)")
            #expect(result.stderr.contains(recipe + item.expected), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test func aTruncatedPictureFailsNamingItWithoutAPartialOutput() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // Noise does not compress: half the file cuts the picture's data in the middle.
        let whole = try await Self.png(dir, "whole.png", source: "nullsrc=s=320x240,geq=random(1)*255:128:128")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.png")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - source: \"{input}\"\n  - { source: cut.png, duration: 1 }\n")
        let outbox = dir.file("outbox")
        try FileManager.default.createDirectory(atPath: outbox, withIntermediateDirectories: false)

        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", outbox, clip])

        #expect(result.status == 1)
        #expect(result.stderr.contains(cut + ": "), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outbox).isEmpty)
    }

    /// Issue 28: a truncated JPEG rendered with a flat green lower part (exit 0). Now the
    /// render fails naming it, and no output is left.
    @Test func aTruncatedJPEGFailsTheRenderNamingIt() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let whole = try await Self.jpeg(dir, "whole.jpg", source: "testsrc=size=320x240", orientation: 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = dir.file("cut.jpg")
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - { source: cut.jpg, duration: 1 }\n")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(cut + ": "), "\(result.stderr)")
        #expect(result.stderr.contains("truncated or damaged"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Issue 28: a 16-bit RGBA PNG of 16384x6102 (about 1 MB, 800 MB decoded) as a clip
    /// is refused from its header, naming the file and the byte limit, within a bounded
    /// peak memory (it took 1.77 GB and 21.6 s before).
    @Test func aSixteenBitPNGBombIsRefusedInBoundedMemory() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        _ = try PNGBombFixture.write(in: dir.path)
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - { source: bomb.png, duration: 1 }\n")
        let output = dir.file("out.mp4")
        let dropcut = try BuildProducts.executable(named: "dropcut")
        let run = try PeakMemory.run(dropcut, ["render", "--recipe", recipe, "--output", output, clip])
        // Against the same render of a small PNG, measured the same way (a spawned child's
        // peak also counts what it shared with this test process before exec).
        _ = try await Self.png(dir, "small.png", source: "testsrc=size=320x240")
        let small = try Self.recipe(dir, "version: 1\nclips:\n  - { source: small.png, duration: 1 }\n", name: "small.yaml")
        let baseline = try PeakMemory.run(dropcut, ["render", "--recipe", small, "--output", dir.file("small.mp4"), clip])
        print("16-bit PNG bomb: refused in \(String(format: "%.2f", run.seconds)) s, peak \(Int(run.peakMiB)) MiB (a small still's render: \(Int(baseline.peakMiB)) MiB)")
        #expect(run.status == 1, "\(run.stderr)")
        // The recipe's error, at the line naming the picture.
        #expect(run.stderr.contains("still.yaml:3:5: clips[0].source bomb.png: "), "\(run.stderr)")
        #expect(run.stderr.contains("it takes 799 MB decoded (8 bytes a pixel), more than 400 MB"), "\(run.stderr)")
        #expect(baseline.status == 0, "\(baseline.stderr)")
        #expect(run.peakMiB < baseline.peakMiB + 50, "peak \(run.peakMiB) MiB against \(baseline.peakMiB) MiB")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func probeAndPlanShowTheStill() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let photo = try await Self.png(dir, "photo.png", source: "testsrc=size=320x240")
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)

        let probe = try await DropcutProcess.run(["probe", photo])
        #expect(probe.status == 0, "\(probe.stderr)")
        #expect(probe.stdout.hasPrefix("\(photo): png_pipe, still image 320x240\n"), "\(probe.stdout)")
        #expect(probe.stdout.contains("stream 0: video png rgb24 320x240") && !probe.stdout.contains("fps"), "\(probe.stdout)")

        let json = try await DropcutProcess.run(["probe", "--json", photo])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(report["still_image"] as? Bool == true && report["format"] as? String == "png_pipe" && report["duration"] == nil)
        let stream = try #require((report["streams"] as? [[String: Any]])?.first)
        #expect(stream["width"] as? Int == 320 && stream["height"] as? Int == 240 && stream["frame_rate"] == nil)

        let recipe = try Self.recipe(dir, "version: 1\nclips:\n  - { source: photo.png, duration: 2 }\n  - source: \"{input}\"\n")
        let svg = dir.file("plan.svg")
        let plan = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", svg, clip])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("composition duration 3.000"), "\(plan.stdout)")
        #expect(plan.stdout.contains("0: timeRange [0.000,+2.000] from trackID 1 of asset \(photo) still image"), "\(plan.stdout)")
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.contains(">\(photo) still image</text>"), "the segment's label")
    }
}
