import Foundation
import Logging
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
import DropcutSubtitles
import TestSupport
import DropcutTimeline

/// Captions as deliverables: a `.vtt` file in output time beside the videos, and
/// `captions: none` / `burn` per video.
@Suite struct CaptionDeliverableTests {
    static let logger = Logger(label: "dropcut-test")

    @Test func aVTTDeliverableHoldsTheCuesInOutputTime() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 3)
        try "1\n00:00:00,500 --> 00:00:01,000\nbefore\n\n2\n00:00:01,500 --> 00:00:02,000\nslowed\n".write(toFile: dir.file("clip.srt"), atomically: true, encoding: .utf8)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            clips: [ { source: "{input}", speed: [ { range: [1, 2], rate: 0.5 } ] } ]
            outputs:
              - { filename: "{name}.clean.mp4", size: 160x120, captions: none }
              - { filename: "{name}.burnt.mp4", size: 160x120 }
              - { filename: "{name}.vtt" }

            """, in: dir)
        let deliverables = try await Deliverables.prepare(recipe: recipe, input: clip)
        #expect(deliverables.items[0].production.overlays.isEmpty)
        #expect(deliverables.items[1].production.overlays.count == 1)
        let out = dir.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let files = try await deliverables.render(into: out, tag: "t", logger: Self.logger)
        #expect(files.map(\.name) == ["clip.clean.mp4", "clip.burnt.mp4", "clip.vtt", "clip.dropcut.json"])
        #expect(files[2].kind == "captions")
        let text = try String(contentsOfFile: (out as NSString).appendingPathComponent("clip.vtt"), encoding: .utf8)
        let cues = try WebVTTParser.read(Array(text.utf8), path: "clip.vtt").captions
        // [1, 2) plays at half speed: the second cue, [1.5, 2.0) of source, is [2.0, 3.0) of output.
        #expect(cues.map(\.text) == ["before", "slowed"])
        #expect(cues.map(\.timeRange) == [TimeRange(start: MediaTime(value: 500, timescale: 1000), end: MediaTime(value: 1000, timescale: 1000)),
                                          TimeRange(start: MediaTime(value: 2000, timescale: 1000), end: MediaTime(value: 3000, timescale: 1000))])
    }

    @Test func aVTTDeliverableWithoutCaptionsIsRefusedBeforeAnythingIsRendered() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 1)
        let recipe = try DeliverablesTests.recipe("""
            version: 1
            outputs:
              - { filename: "{name}.mp4", size: 160x120 }
              - { filename: "{name}.vtt" }

            """, in: dir)
        await #expect {
            _ = try await Deliverables.prepare(recipe: recipe, input: clip)
        } throws: { error in
            "\(error)".contains("clip.vtt would hold the captions, but clip.mp4 has none")
        }
    }

    @Test func softCaptionsAreASubtitleStreamAndLeaveThePictureToBeCopied() async throws {
        let dir = try TemporaryDirectory()
        // Tagged BT.709 with a keyframe a second: a clip whose picture can be copied.
        let clip = try PassThroughRenderTests.clip(dir, seconds: 3)
        try "1\n00:00:00,500 --> 00:00:01,000\nsoft {one}\n\n2\n00:00:01,500 --> 00:00:02,250\ntwo\nlines\n".write(toFile: dir.file("clip.srt"), atomically: true, encoding: .utf8)
        let recipe = try DeliverablesTests.recipe("version: 1\noutput: { captions: soft }\n", in: dir)
        let production = try await Production.prepare(recipe: recipe, input: clip)
        // Nothing is drawn, so the clip's own video can be copied.
        #expect(production.overlays.isEmpty)
        #expect(production.settings.videoCopy != nil, "\(production.passThrough.lines)")
        #expect(production.settings.softCaptions.count == 2)
        let out = dir.file("soft.mp4")
        try await production.export(to: out, logger: Self.logger)
        let streams = try await Command.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", out])
        #expect(streams.split(separator: "\n").contains("mov_text,subtitle"), "\(streams)")
        // The ffmpeg CLI reads the stream back as the cues that went in.
        let srt = try await Command.runChecked("ffmpeg", ["-v", "error", "-i", out, "-map", "0:s", "-f", "srt", "-"])
        let back = try SubRipParser.read(Array(srt.utf8), path: "back.srt").captions
        #expect(back.map(\.text) == ["soft (one)", "two\nlines"])
        #expect(back.map(\.timeRange) == [TimeRange(start: MediaTime(value: 500, timescale: 1000), end: MediaTime(value: 1000, timescale: 1000)),
                                          TimeRange(start: MediaTime(value: 1500, timescale: 1000), end: MediaTime(value: 2250, timescale: 1000))])
    }
}
