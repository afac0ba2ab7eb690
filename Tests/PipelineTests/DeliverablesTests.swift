import Foundation
import Logging
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
import DropcutRender
import DropcutSupport
import Synchronization
import TestSupport
import DropcutTimeline

/// `outputs:` rendered: every deliverable written, read back by ffprobe and ffmpeg,
/// posters as the video shows them, `best` measured, all or nothing, the manifest last.
/// (Slow tier: 17 s of CPU; `SharedPreparationTests` below stays in the fast one.)
@Suite(.tags(.slow)) struct DeliverablesTests {
    static let logger = Logger(label: "dropcut-test")

    /// A 3 s clip and its deliverables: two small videos, rendered in that order, then the
    /// `extra` entry line.
    static func twoVideos(in dir: TemporaryDirectory, and extra: String = "") async throws -> (clip: String, Deliverables) {
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 3)
        let recipe = try Self.recipe("""
            version: 1
            outputs:
              - { filename: "{name}.a.mp4", size: 160x120 }
              - { filename: "{name}.b.mp4", size: 240x180 }
            \(extra)

            """, in: dir)
        return (clip, try await Deliverables.prepare(recipe: recipe, input: clip))
    }

    /// `logo.png` in `dir`: a plain 64x32 white picture for the recipes' overlays.
    static func makeLogo(in dir: TemporaryDirectory) throws {
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=64x32", "-frames:v", "1", dir.file("logo.png")])
    }

    static func recipe(_ yaml: String, in dir: TemporaryDirectory) throws -> Recipe {
        let file = dir.file("deliverables.yaml")
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: file))
        return try RecipeLoader(resolver: AssetResolver(assetDirectories: [])).load([file])
    }

    /// Files in `dir` other than the inputs named.
    static func produced(_ dir: String, except inputs: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { !inputs.contains($0) }.sorted()
    }

    /// Raw RGB of a picture or of one frame of a movie, as ffmpeg decodes it.
    static func rgb(_ path: String, seek: Double? = nil, in dir: TemporaryDirectory) throws -> [UInt8] {
        let raw = dir.file("frame-\(UUID().uuidString).rgb")
        var args = ["-v", "error", "-y"]
        if let seek { args += ["-ss", String(format: "%.3f", seek)] }
        args += ["-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw]
        try Command.runChecked("ffmpeg", args)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in a.indices { let d = Double(a[i]) - Double(b[i]); sum += d * d }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The issue's example: three videos, a poster and a preview from a 3 s clip, each as
    /// asked, and a manifest whose sizes and SHA-256 are the files'.
    @Test func theIssuesExampleRendersEveryDeliverable() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-deliverables")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 3)
        let recipe = try Self.recipe("""
            version: 1
            output: { video: { codec: h264, crf: 20, preset: veryfast }, audio: { codec: aac, bitrate: 160k } }
            outputs:
              - { filename: "{name}.vertical.mp4", size: 1080x1920, fit: fill }
              - { filename: "{name}.square.mp4",   size: 1080x1080, fit: fill }
              - { filename: "{name}.wide.mp4",     size: 1280x720,  fit: fit }
              - { filename: "{name}.poster.jpg",   poster: { at: 2s } }
              - { filename: "{name}.preview.webp", preview: { from: 0s, duration: 3s, width: 320, fps: 10 } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.items.map(\.filename) == ["clip.vertical.mp4", "clip.square.mp4", "clip.wide.mp4", "clip.poster.jpg", "clip.preview.webp"])
        #expect(deliverables.manifestFilename == "clip.dropcut.json")
        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)
        #expect(files.map(\.name) == ["clip.vertical.mp4", "clip.square.mp4", "clip.wide.mp4", "clip.poster.jpg", "clip.preview.webp", "clip.dropcut.json"])
        #expect(try Self.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"]) == files.map(\.name).sorted(), "nothing else left")

        for (name, w, h) in [("clip.vertical.mp4", 1080, 1920), ("clip.square.mp4", 1080, 1080), ("clip.wide.mp4", 1280, 720)] {
            let path = dir.file(name)
            #expect(try FFprobe.streams(of: path).map { $0.codecName ?? "?" } == ["h264", "aac"], "\(name)")
            let video = try #require(try FFprobe.stream("video", of: path))
            #expect(video.width == w && video.height == h, "\(name)")
            #expect(abs((video.duration ?? 0) - 3) <= 1.0 / 30 + 1e-6, "\(name)")
            #expect(try FFprobe.decodedVideoFrames(of: path) == 90, "\(name)")
        }
        let poster = try FFprobe.streams(of: dir.file("clip.poster.jpg"))
        #expect(poster.map { $0.codecName ?? "?" } == ["mjpeg"] && poster.first?.width == 320 && poster.first?.height == 240)

        // The manifest: every file with its size, dimensions, duration and SHA-256.
        struct Manifest: Decodable { var input: String; var files: [Deliverables.File] }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("clip.dropcut.json"))))
        #expect(manifest.input == "clip.mp4")
        #expect(manifest.files.map(\.name) == files.dropLast().map(\.name))
        for file in manifest.files {
            let path = dir.file(file.name)
            let sum = try await Command.runChecked("sha256sum", [path]).split(separator: " ").first.map(String.init)
            #expect(file.sha256 == sum, "\(file.name)")
            #expect(file.bytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value)
        }
        #expect(manifest.files.map(\.kind) == ["video", "video", "video", "poster", "preview"])
        #expect(manifest.files[4].width == 320 && manifest.files[4].height == 240 && manifest.files[4].duration == 3)
        // The preview: 30 frames of 100 ms, 320x240, looping for ever.
        let info = try Self.webpInfo(dir.file("clip.preview.webp"))
        #expect(info.canvas == "320 x 240" && info.loop == 0 && info.durations == Array(repeating: 100, count: 30), "\(info)")
        #expect(manifest.files[0].width == 1080 && manifest.files[0].height == 1920 && manifest.files[0].duration == 3)
        #expect(manifest.files[3].time == 2 && manifest.files[3].duration == nil)
    }

    /// What `webpmux -info` says of an animated WebP (libwebp's own tool: FFmpeg's WebP
    /// decoder does not read animations).
    static func webpInfo(_ path: String) throws -> (canvas: String, loop: Int, durations: [Int]) {
        let text = try Command.runChecked("webpmux", ["-info", path])
        var canvas = "", loop = -1, durations: [Int] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("Canvas size: ") { canvas = String(line.dropFirst("Canvas size: ".count)) }
            if let range = line.range(of: "Loop Count : ") { loop = Int(line[range.upperBound...].trimmingCharacters(in: .whitespaces)) ?? -1 }
            let fields = line.split(separator: " ")
            // `  1:   320   240    no        0        0      100       none    no       4020       lossy`
            if fields.count >= 10, fields[0].hasSuffix(":"), Int(fields[0].dropLast()) != nil, let duration = Int(fields[6]) {
                durations.append(duration)
            }
        }
        return (canvas, loop, durations)
    }

    /// A preview's first frame is the output's frame at `from`, scaled to its width: as
    /// the poster of that size shows it (lossless PNG), within what the format's
    /// quantisation costs on testsrc2's fine detail; every later frame is `1/fps` on, cut
    /// at the output's end, and the animation loops for ever.
    @Test(arguments: ["webp", "gif"])
    func previewShowsTheOutputScaledDown(format: String) async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-preview")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let recipe = try Self.recipe("""
            version: 1
            output: { size: 640x480 }
            outputs:
              - { filename: "{name}.at.png", size: 160x120, poster: { at: 1.5 } }
              - { filename: "{name}.early.png", size: 160x120, poster: { at: 0.5 } }
              - { filename: "{name}.p.\(format)", preview: { from: 1.5, duration: 5, width: 160, fps: 8 } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)
        // From 1.5 s to the end at 2 s: 4 frames of 125 ms.
        #expect(files[2].duration == 0.5 && files[2].width == 160 && files[2].height == 120)
        let preview = dir.file("clip.p.\(format)")
        let first: [UInt8]
        if format == "webp" {
            let info = try Self.webpInfo(preview)
            #expect(info.canvas == "160 x 120" && info.loop == 0 && info.durations == [125, 125, 125, 125], "\(info)")
            try await Command.runChecked("webpmux", ["-get", "frame", "1", preview, "-o", dir.file("first.webp")])
            try await Command.runChecked("dwebp", ["-quiet", dir.file("first.webp"), "-o", dir.file("first.png")])
            first = try Self.rgb(dir.file("first.png"), in: dir)
        } else {
            let stream = try #require(try FFprobe.stream("video", of: preview))
            #expect(stream.width == 160 && stream.height == 120)
            #expect(try FFprobe.decodedVideoFrames(of: preview) == 4)
            // The NETSCAPE2.0 extension with a loop count of 0: for ever.
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: preview)))
            let marker = Array("NETSCAPE2.0".utf8)
            let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
            #expect(bytes[at + 11] == 3 && bytes[at + 12] == 1 && bytes[at + 13] == 0 && bytes[at + 14] == 0)
            first = try Self.rgb(preview, in: dir)
        }
        let db = Self.psnr(first, try Self.rgb(dir.file("clip.at.png"), in: dir))
        // Measured: webp 23.5 dB (libwebp at quality 75 on testsrc2's fine detail: the
        // ffmpeg CLI's own libwebp at 75 gets 24.2 dB on a picture it scaled itself),
        // gif 27.0 dB (a median-cut palette per frame, dithered).
        #expect(db >= (format == "webp" ? 21 : 25), "\(format): \(db) dB")
        // And it is that frame: the one a second earlier is further off.
        #expect(Self.psnr(first, try Self.rgb(dir.file("clip.early.png"), in: dir)) < db - 3)
    }

    /// A preview is cut at the output's end: its last frame is shown only until then, and a
    /// single-frame output still gives a frame that is shown (not a GIF delay of 0, which
    /// browsers turn into 10 cs). The manifest's duration is the shown length.
    @Test(arguments: ["webp", "gif"])
    func previewEndsWithTheOutput(format: String) async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-preview-end")
        defer { withExtendedLifetime(dir) {} }
        for (name, length) in [("short", ["-t", "0.3"]), ("one", ["-frames:v", "1"])] {
            try await Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30"] + length
                                         + ["-c:v", "libx264", "-pix_fmt", "yuv420p", dir.file("\(name).mp4")])
        }
        let recipe = try Self.recipe("""
            version: 1
            outputs:
              - { filename: "{name}.p.\(format)", preview: { from: 0, duration: 3, width: 160, fps: 5 } }

            """, in: dir)
        // 0.3 s at 5 fps: a frame at 0 and one at 0.2 s shown for 0.1 s, not 0.2.
        let short = try await Deliverables.prepare(recipe: recipe, input: dir.file("short.mp4"))
        let shortFiles = try await short.render(into: dir.path, tag: "s", logger: Self.logger)
        #expect(abs((shortFiles[0].duration ?? 0) - 0.3) < 1e-9, "\(shortFiles[0])")
        #expect(try Self.frameDurations(dir.file("short.p.\(format)"), format: format) == [200, 100])
        // One frame of 1/30 s: shown for 3 cs (GIF), or a still (WebP: one frame, no animation chunk).
        let one = try await Deliverables.prepare(recipe: recipe, input: dir.file("one.mp4"))
        let oneFiles = try await one.render(into: dir.path, tag: "o", logger: Self.logger)
        #expect(abs((oneFiles[0].duration ?? 0) - 1.0 / 30) < 1e-9, "\(oneFiles[0])")
        #expect(try Self.frameDurations(dir.file("one.p.\(format)"), format: format) == (format == "gif" ? [30] : []))
    }

    /// Each frame's duration in milliseconds: a GIF's graphic control extensions (hundredths),
    /// an animated WebP's frames as `webpmux -info` lists them (none for a still).
    static func frameDurations(_ path: String, format: String) throws -> [Int] {
        guard format == "gif" else { return try webpInfo(path).durations }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var delays: [Int] = [], i = 0
        while i + 6 <= bytes.count {
            if bytes[i] == 0x21, bytes[i + 1] == 0xF9, bytes[i + 2] == 0x04 {
                delays.append((Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8) * 10)
                i += 6
            } else {
                i += 1
            }
        }
        return delays
    }

    /// A poster is the frame the video of the same size shows — orientation, fill, the
    /// logo placed on that canvas — against ffmpeg's `-ss T -frames:v 1` of the video
    /// (which went through H.264 at crf 20: a PSNR bound, not equality).
    @Test(arguments: ["png", "jpg", "webp"])
    func posterMatchesTheVideosFrame(format: String) async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-poster")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        try await Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x32", "-frames:v", "1", dir.file("logo.png")])
        let recipe = try Self.recipe("""
            version: 1
            output: { size: 180x320, fit: fill, video: { crf: 16 } }
            outputs:
              - { filename: "{name}.v.mp4" }
              - { filename: "{name}.p.\(format)", poster: { at: 1.5 } }
            overlays:
              - { image: logo.png, anchor: bottom-right, width: 40% }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        _ = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)
        let poster = try Self.rgb(dir.file("clip.p.\(format)"), in: dir)
        let frame = try Self.rgb(dir.file("clip.v.mp4"), seek: 1.5, in: dir)
        #expect(poster.count == 180 * 320 * 3)
        let db = Self.psnr(poster, frame)
        // Measured: png 41.0 dB, jpg 37.4 dB, webp 37.3 dB (the video itself is lossy).
        #expect(db >= (format == "png" ? 38 : 34), "\(format): \(db) dB")
        // And not just any frame of it: the frame a second earlier is further off.
        let other = try Self.rgb(dir.file("clip.v.mp4"), seek: 0.5, in: dir)
        #expect(Self.psnr(poster, other) < db - 3)
    }

    /// `best` over a clip whose first second is black, whose second is blurred (boxblur)
    /// and whose third is sharp: the poster comes from the sharp second.
    @Test func bestPicksTheSharpSection() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-best")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeGenerated(
            in: dir.path, name: "clip.mp4", seconds: 3,
            video: "testsrc2=size=320x240:rate=30,boxblur=8:enable='between(t,1,2)',drawbox=c=black:t=fill:enable='lt(t,1)'")
        let recipe = try Self.recipe("""
            version: 1
            outputs:
              - { filename: "{name}.best.png", poster: { at: best } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        let production = deliverables.items[0].production
        let renderer = try PosterRenderer(composition: production.composition, videoComposition: production.videoComposition)
        let (index, scores) = try renderer.bestFrame(candidates: RecipeLimits.posterCandidates)
        #expect(scores.count == 32)
        #expect(index >= 60, "frame \(index): \(scores.map { "\($0.index): \($0.score)" })")
        // Black frames score nothing; every blurred frame scores below every sharp one.
        #expect(scores.filter { $0.index < 30 }.allSatisfy { $0.score.value == 0 })
        let blurred = scores.filter { (31...59).contains($0.index) }.map(\.score.value)
        let sharp = scores.filter { $0.index >= 61 }.map(\.score.value)
        #expect(!blurred.isEmpty && !sharp.isEmpty && blurred.max()! * 2 < sharp.min()!, "blurred \(blurred), sharp \(sharp)")

        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)
        let time = try #require(files.first?.time)
        #expect(time >= 2, "poster at \(time) s")
        // The poster is that frame of the source (lossless PNG against ffmpeg's decode).
        let poster = try Self.rgb(dir.file("clip.best.png"), in: dir)
        // ffmpeg's `-ss` shows the first frame at or after the time: just before it.
        let source = try Self.rgb(clip, seek: time - 0.001, in: dir)
        #expect(Self.psnr(poster, source) >= 40)
    }

    /// One rendition fails mid-way (its input cut short while the second video renders):
    /// nothing is published, no temporary file is left, no manifest.
    @Test func aFailedRenditionLeavesNothing() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-allornothing")
        defer { withExtendedLifetime(dir) {} }
        let (clip, deliverables) = try await Self.twoVideos(in: dir, and: #"  - { filename: "{name}.c.jpg", poster: { at: 1 } }"#)
        let cut = Mutex(false)
        await #expect(throws: (any Error).self) {
            _ = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger) { index, progress in
                // The first video is complete; the second loses the end of its source.
                if index == 1, progress.framesWritten == 5, cut.withLock({ done in defer { done = true }; return !done }) {
                    _ = truncate(clip, 20_000)
                }
            }
        }
        #expect(try Self.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"]) == [])
    }

    /// Cancelled while rendering: nothing left either.
    @Test func cancellingLeavesNothing() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-cancel")
        defer { withExtendedLifetime(dir) {} }
        let (_, deliverables) = try await Self.twoVideos(in: dir)
        // Cancelled from the second video's progress: deterministic, whatever the speed.
        let holder = Mutex<Task<[Deliverables.File], any Error>?>(nil)
        let task = Task {
            try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger) { index, progress in
                if index == 1, progress.framesWritten == 5 { holder.withLock { $0?.cancel() } }
            }
        }
        holder.withLock { $0 = task }
        let result = await task.result
        guard case .failure = result else { Issue.record("not cancelled"); return }
        #expect(try Self.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"]) == [])
    }

    /// Overlays are placed on each deliverable's own canvas: the logo's width is 15 % of
    /// each output's width, its margin 4 % of each one's shorter side, measured in the
    /// (lossless) posters of a black clip with a white logo.
    @Test func overlaysArePlacedPerCanvas() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-overlay")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeGenerated(in: dir.path, name: "clip.mp4", seconds: 1, video: "color=c=black:size=320x240:rate=30")
        try Self.makeLogo(in: dir)
        let recipe = try Self.recipe("""
            version: 1
            output: { fit: fill }
            outputs:
              - { filename: "{name}.v.png", size: 360x640, poster: { at: 0.5 } }
              - { filename: "{name}.w.png", size: 640x360, poster: { at: 0.5 } }
            overlays:
              - { image: logo.png, anchor: bottom-right, margin: 4%, width: 15% }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        _ = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger)
        for (name, w, h) in [("clip.v.png", 360, 640), ("clip.w.png", 640, 360)] {
            let rgb = try Self.rgb(dir.file(name), in: dir)
            var minX = w, maxX = -1, minY = h, maxY = -1
            for y in 0..<h {
                for x in 0..<w where rgb[(y * w + x) * 3] > 128 {
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                }
            }
            let width = 0.15 * Double(w), height = width / 2, margin = 0.04 * Double(min(w, h))
            #expect(abs(Double(maxX - minX + 1) - width) <= 1.5, "\(name): logo \(maxX - minX + 1) px wide, expected \(width)")
            #expect(abs(Double(maxY - minY + 1) - height) <= 1.5, "\(name): logo \(maxY - minY + 1) px high, expected \(height)")
            #expect(abs(Double(w - 1 - maxX) - margin) <= 1.5, "\(name): right margin \(w - 1 - maxX), expected \(margin)")
            #expect(abs(Double(h - 1 - maxY) - margin) <= 1.5, "\(name): bottom margin \(h - 1 - maxY), expected \(margin)")
        }
    }

    /// A poster past the output's end is refused when prepared, naming where it is asked.
    @Test func posterPastTheEndIsRefused() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-late")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try Self.recipe("version: 1\noutputs:\n  - { filename: p.jpg, poster: { at: 5 } }\n", in: dir)
        await #expect {
            _ = try await Deliverables.prepare(recipe: recipe, input: clip)
        } throws: { error in
            "\(error)".hasSuffix("deliverables.yaml:3:38: poster.at 5.0 s is not within the output, which lasts 1.000 s")
        }
    }
}

/// The deliverables of one drop probe each file once and measure each distinct
/// composition's sound once, not once per deliverable.
@Suite struct SharedPreparationTests {
    final class CountingProbe: MediaProbing, @unchecked Sendable {
        let calls = Mutex(0)
        func probe(_ path: String) throws -> ProbedMedia {
            calls.withLock { $0 += 1 }
            return ProbedMedia(path: path, duration: MediaTime(seconds: 4),
                               video: path.hasSuffix(".wav") ? nil : .init(trackID: 1, timeRange: TimeRange(start: .zero, duration: MediaTime(seconds: 4)),
                                            naturalSize: PixelSize(width: 1920, height: 1080), frameDuration: MediaTime(value: 1, timescale: 30)),
                               audio: path.hasSuffix(".wav") || path.hasSuffix(".mov")
                                   ? .init(trackID: path.hasSuffix(".wav") ? 1 : 2, timeRange: TimeRange(start: .zero, duration: MediaTime(seconds: 4)),
                                           sampleRate: 48_000, channels: 2) : nil)
        }
    }

    final class CountingMeter: SoundLevelMeasuring, @unchecked Sendable {
        let calls = Mutex(0)
        func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
            calls.withLock { $0 += 1 }
            return SoundLevels(window: MediaTime(value: 1, timescale: 10), decibels: Array(repeating: -60, count: 40))
        }
    }

    @Test func eachFileProbedOnceEachCompositionMeasuredOnce() throws {
        let probe = CountingProbe(), meter = CountingMeter()
        let shared = SharedProbe(probe), levels = SharedMeter(meter)
        var recipe = Recipe(name: "set")
        recipe.music = Recipe.Music(source: "/in/bed.wav", gain: Gain(decibels: -6), duck: Recipe.Duck(),
                                    location: SourceLocation(file: "set.yaml", line: 2, column: 1))
        var sizes: [Recipe.Output] = []
        for size in [PixelSize(width: 1080, height: 1920), PixelSize(width: 1080, height: 1080), PixelSize(width: 1280, height: 720)] {
            var output = Recipe.Output()
            output.size = size
            sizes.append(output)
        }
        for output in sizes {
            var single = recipe
            single.output = output
            _ = try Production(recipe: single, input: "/in/clip.mov", probe: shared, levels: levels)
        }
        #expect(probe.calls.withLock { $0 } == 2, "the clip and the bed, once each")
        #expect(meter.calls.withLock { $0 } == 1, "the same timing: measured once")
    }
}
