import Foundation
import Logging
import Synchronization
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
import DropcutRender
import DropcutSupport
import TestSupport
import DropcutTimeline

/// A deliverable set's videos render from one decode (issue 30): each source frame is
/// decoded once however many videos show it, and each video is what its own render
/// makes — frame for frame, and sound for sound.
@Suite struct SharedDecodeTests {
    static let logger = Logger(label: "dropcut-test")

    /// The decoded frames' MD5s of a file's stream (`v` or `a`), as the ffmpeg CLI decodes it.
    static func framemd5(_ path: String, _ stream: String) throws -> [String] {
        try Command.runChecked("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-map", "0:\(stream)", "-f", "framemd5", "-"])
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    @Test func threeVideosDecodeEachFrameOnceAndMatchTheirOwnRenders() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-shared")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        try DeliverablesTests.makeLogo(in: dir)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast, reencode: always } }
            outputs:
              - { filename: "{name}.v.mp4", size: 120x160, fit: fill }
              - { filename: "{name}.s.mp4", size: 160x160, fit: fill, video: { crf: 30 } }
              - { filename: "{name}.w.mp4", size: 192x108, fit: fit, audio: { bitrate: 96k } }
              - { filename: "{name}.p.jpg", poster: { at: 1 } }
              - { filename: "{name}.p.webp", preview: { from: 0.5, duration: 1, width: 96, fps: 10 } }
            overlays:
              - { image: logo.png, anchor: bottom-right, margin: 4%, width: 15% }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.renderGroups == [.init(videos: [0, 1, 2], pictures: [3, 4])])
        let decoded = Mutex<[RenderGraph.GroupStatistics]>([])
        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger, progress: { _, _ in },
                                                  shared: { statistics in decoded.withLock { $0.append(statistics) } })
        #expect(files.map(\.name) == ["clip.v.mp4", "clip.s.mp4", "clip.w.mp4", "clip.p.jpg", "clip.p.webp", "clip.dropcut.json"])
        #expect(files[3].time == 1 && files[3].width == 320 && files[3].height == 240)
        #expect(files[4].time == 0.5 && files[4].duration == 1 && files[4].width == 96 && files[4].height == 72)
        let statistics = decoded.withLock { $0 }
        #expect(statistics.count == 1)
        // 60 frames in the clip: decoded once each, not once per video, poster or preview.
        #expect(statistics.first?.framesDecoded == [clip: 60], "\(statistics)")

        // Each video as its own render makes it: the same pictures and the same sound.
        for (index, name) in ["clip.v.mp4", "clip.s.mp4", "clip.w.mp4"].enumerated() {
            let single = dir.file("single-\(index).mp4")
            try await deliverables.items[index].production.export(to: single, logger: Self.logger)
            let video = try Self.framemd5(dir.file(name), "v")
            #expect(video.count == 60, "\(name)")
            #expect(video == (try Self.framemd5(single, "v")), "\(name): pictures")
            #expect(try Self.framemd5(dir.file(name), "a") == (try Self.framemd5(single, "a")), "\(name): sound")
        }
        // The poster and the preview as made on their own, byte for byte.
        guard case let .poster(poster) = deliverables.items[3].kind, case let .preview(preview) = deliverables.items[4].kind else {
            Issue.record("not a poster and a preview"); return
        }
        _ = try await deliverables.items[3].production.writePoster(poster, to: dir.file("single.jpg"), logger: Self.logger)
        _ = try await deliverables.items[4].production.writePreview(preview, to: dir.file("single.webp"), logger: Self.logger)
        for (shared, single) in [("clip.p.jpg", "single.jpg"), ("clip.p.webp", "single.webp")] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file(shared))) == Data(contentsOf: URL(fileURLWithPath: dir.file(single))),
                     "\(shared)")
        }
    }

    /// An HLS ladder of the videos' timeline is a lane of their render (issue 30): one
    /// decode for the video and every rung, the sound mixed once, and each rung the frames
    /// (and the audio rendition the sound) the ladder makes on its own.
    @Test func aLadderJoinsTheVideosDecodeAndMatchesItsOwnRender() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-shared-hls")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        try DeliverablesTests.makeLogo(in: dir)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast, reencode: always } }
            outputs:
              - { filename: "{name}.s.mp4", size: 160x160, fit: fill }
              - { filename: "{name}.m3u8", hls: { heights: [240, 120], segment: 1s } }
              - { filename: "{name}.p.jpg", poster: { at: 1 } }
            overlays:
              - { image: logo.png, anchor: bottom-right, margin: 4%, width: 15% }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.renderGroups == [.init(videos: [0], pictures: [2], ladders: [1])])
        let decoded = Mutex<[RenderGraph.GroupStatistics]>([])
        let files = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger, progress: { _, _ in },
                                                  shared: { statistics in decoded.withLock { $0.append(statistics) } })
        #expect(files.map(\.name) == ["clip.s.mp4", "clip/clip.m3u8", "clip.p.jpg", "clip.dropcut.json"])
        #expect(try DeliverablesTests.produced(dir.path, except: ["clip.mp4", "deliverables.yaml", "logo.png"])
                == ["clip", "clip.dropcut.json", "clip.p.jpg", "clip.s.mp4"])
        let statistics = decoded.withLock { $0 }
        // 60 frames in the clip: decoded once each for the video, both rungs and the poster.
        #expect(statistics.count == 1 && statistics.first?.framesDecoded == [clip: 60], "\(statistics)")
        #expect(statistics.first?.ladders.count == 1)

        // The ladder on its own: the same files, each rung the same frames, the same sound.
        guard case let .hls(ladder) = deliverables.items[1].kind else { Issue.record("not a ladder"); return }
        let alone = dir.file("alone")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: false)
        let made = try await deliverables.items[1].production.exportHLS(ladder, into: alone, masterName: "clip.m3u8", logger: Self.logger)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: dir.file("clip")).sorted()
                == (try FileManager.default.subpathsOfDirectory(atPath: alone).sorted()))
        #expect(statistics.first?.ladders.first?.files == made.files)
        for rung in ["240p", "120p"] {
            let shared = try Self.framemd5(dir.file("clip/\(rung)/index.m3u8"), "v")
            #expect(shared.count == 60, "\(rung)")
            #expect(shared == (try Self.framemd5("\(alone)/\(rung)/index.m3u8", "v")), "\(rung): pictures")
        }
        #expect(try Self.framemd5(dir.file("clip/audio/index.m3u8"), "a") == (try Self.framemd5("\(alone)/audio/index.m3u8", "a")),
                "the audio rendition")
        // And the video beside it is still its own render's.
        let single = dir.file("single.mp4")
        try await deliverables.items[0].production.export(to: single, logger: Self.logger)
        #expect(try Self.framemd5(dir.file("clip.s.mp4"), "v") == (try Self.framemd5(single, "v")))
    }

    /// Outputs of one shape without overlays are composited once, at the largest, and
    /// scaled down to the others. Not the same pixels as their own renders (one more
    /// resampling), so compared by PSNR, not frame MD5s: at least 40 dB on every frame
    /// (near-lossless encodes, crf 4, so the compositing is most of what differs). Outputs composited as ever
    /// stay frame for frame their own renders'.
    @Test func outputsOfOneShapeCompositeOnceAndScaleDown() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-shared-shape")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast, crf: 4, reencode: always } }
            outputs:
              - { filename: "{name}.l.mp4", size: 240x180, fit: fill }
              - { filename: "{name}.s.mp4", size: 160x120, fit: fill }
              - { filename: "{name}.t.mp4", size: 120x160, fit: fill }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        let decoded = Mutex<[RenderGraph.GroupStatistics]>([])
        _ = try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger, progress: { _, _ in },
                                          shared: { statistics in decoded.withLock { $0.append(statistics) } })
        let statistics = decoded.withLock { $0 }
        #expect(statistics.count == 1 && statistics.first?.framesDecoded == [clip: 60], "\(statistics)")
        // 160x120 is 240x180 scaled down; 120x160 is another shape.
        #expect(statistics.first?.scaledFrom == [1: 0])
        for (index, name) in ["clip.l.mp4", "clip.s.mp4", "clip.t.mp4"].enumerated() {
            let single = dir.file("single-\(index).mp4")
            try await deliverables.items[index].production.export(to: single, logger: Self.logger)
            if index == 1 {
                let psnr = try PSNR.compare(dir.file(name), single)
                #expect(psnr.frames.count == 60 && psnr.min >= 40, "\(name): \(psnr)")
            } else {
                #expect(try Self.framemd5(dir.file(name), "v") == (try Self.framemd5(single, "v")), "\(name)")
            }
            #expect(try Self.framemd5(dir.file(name), "a") == (try Self.framemd5(single, "a")), "\(name): sound")
        }
    }

    /// A ladder counts one encoder per rung towards the four a decode serves: it joins a
    /// group only where its rungs fit.
    @Test func aLadderCountsItsRungs() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-hls-cap")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { reencode: always } }
            outputs:
              - { filename: "{name}.a.mp4", size: 160x120 }
              - { filename: "{name}.b.mp4", size: 120x160 }
              - { filename: "{name}.c.mp4", size: 240x180 }
              - { filename: "{name}.two.m3u8", hls: { heights: [240, 120] } }
              - { filename: "{name}.one.m3u8", hls: { heights: [120] } }
              - { filename: "{name}.d.mp4", size: 160x120, fps: 15 }
              - { filename: "{name}.slow.m3u8", hls: { heights: [240, 120], segment: 2s }, fps: 15 }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        // Three videos and two rungs would be five encoders: that ladder renders on its own.
        #expect(deliverables.renderGroups == [.init(videos: [0, 1, 2], ladders: [4]), .init(videos: [5], ladders: [6]),
                                              .init(videos: [], ladders: [3])])
    }

    /// Videos on different frame grids render apart: each grid its own decode, a poster
    /// with the videos on its grid; and no more than four videos share one.
    @Test func differentRatesRenderApart() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-apart")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            outputs:
              - { filename: "{name}.a.mp4", size: 160x120 }
              - { filename: "{name}.b.mp4", size: 160x120, fps: 15 }
              - { filename: "{name}.c.mp4", size: 240x180 }
              - { filename: "{name}.p.jpg", poster: { at: 0.5 } }
              - { filename: "{name}.d.mp4", size: 240x180, fps: 15 }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.renderGroups == [.init(videos: [0, 2], pictures: [3]), .init(videos: [1, 4])])

        // At most four videos to a decode: their encoders all run at once. (No size is the
        // clip's own: an untagged upright clip at its size is copied, a group of its own.)
        let six = try DeliverablesTests.recipe("version: 1\noutputs:\n" + (1...6).map { "  - { filename: \"{name}.\($0).mp4\", size: \(80 * $0 + 16)x\(60 * $0 + 12) }\n" }.joined(), in: dir)
        #expect(try await Deliverables.prepare(recipe: six, input: clip).renderGroups == [.init(videos: [0, 1, 2, 3]), .init(videos: [4, 5])])
    }

    /// Cancelled in the middle of a shared render whose sound is mixed (not copied) and
    /// which feeds a preview: every thread stops and nothing is left.
    @Test func cancellingASharedRenderLeavesNothing() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-shared-cancel")
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            output: { video: { preset: ultrafast, reencode: always } }
            outputs:
              - { filename: "{name}.a.mp4", size: 160x120 }
              - { filename: "{name}.b.mp4", size: 120x160, fit: fill }
              - { filename: "{name}.p.gif", preview: { from: 0, duration: 2, width: 64, fps: 10 } }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.renderGroups == [.init(videos: [0, 1], pictures: [2])])
        let holder = Mutex<Task<[Deliverables.File], any Error>?>(nil)
        let task = Task {
            try await deliverables.render(into: dir.path, tag: "t", logger: Self.logger) { index, progress in
                if index == 1, progress.framesWritten == 20 { holder.withLock { $0?.cancel() } }
            }
        }
        holder.withLock { $0 = task }
        guard case let .failure(error) = await task.result else { Issue.record("not cancelled"); return }
        #expect(error is CancellationError || (error as? ExportError) == .cancelled, "\(error)")
        #expect(try DeliverablesTests.produced(dir.path, except: ["clip.mp4", "deliverables.yaml"]) == [])
    }
}
