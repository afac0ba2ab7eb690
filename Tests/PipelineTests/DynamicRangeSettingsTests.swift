import Foundation
import Testing
@testable import DropcutPipeline
import DropcutRecipe
import DropcutRender
import DropcutTimeline

/// What `output.dynamic_range` and the codec come to in the export settings, from probed
/// media (no files: the probe answers from a table).
@Suite struct DynamicRangeSettingsTests {
    struct Probe: MediaProbing {
        var colors: [String: ColorDescription]
        struct Unknown: Error {}
        func probe(_ path: String) throws -> ProbedMedia {
            guard let color = colors[(path as NSString).lastPathComponent] else { throw Unknown() }
            let range = TimeRange(start: .zero, duration: MediaTime(seconds: 2))
            return ProbedMedia(path: path, duration: range.duration,
                               video: .init(trackID: 1, timeRange: range, naturalSize: PixelSize(width: 320, height: 240),
                                            frameDuration: MediaTime(value: 1, timescale: 30), color: color))
        }
    }

    struct Silence: SoundLevelMeasuring {
        func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels {
            SoundLevels(window: MediaTime(value: 1, timescale: 50), decibels: [])
        }
    }

    static let colors: [String: ColorDescription] = [
        "hlg.mov": .hlg, "pq.mov": ColorDescription(primaries: .bt2020, transfer: .pq, matrix: .bt2020), "sdr.mov": .bt709,
    ]

    static func settings(_ choice: Recipe.DynamicRange, clips: [String], codec: VideoCodecID? = nil) throws -> ExportSettings {
        var recipe = Recipe(name: "range")
        recipe.output.dynamicRange = choice
        if let codec {
            recipe.output.video.codec = codec
            recipe.output.video.codecIsExplicit = true
        }
        recipe.clips = clips.dropFirst().map { name in
            var clip = Recipe.Clip()
            clip.source = "/media/" + name
            return clip
        }
        recipe.clips.insert(Recipe.Clip(), at: 0)
        return try Production(recipe: recipe, input: "/media/" + clips[0], probe: Probe(colors: colors), levels: Silence()).settings
    }

    @Test func sourceKeepsHDROnlyWhenAClipIsHDR() throws {
        #expect(try Self.settings(.source, clips: ["hlg.mov"]).dynamicRange == .hlg)
        #expect(try Self.settings(.source, clips: ["pq.mov"]).dynamicRange == .hlg)
        #expect(try Self.settings(.source, clips: ["sdr.mov"]).dynamicRange == .sdr)
        // Any clip: an SDR intro before the HLG clip.
        #expect(try Self.settings(.source, clips: ["hlg.mov", "sdr.mov"]).dynamicRange == .hlg)
        #expect(try Self.settings(.source, clips: ["sdr.mov", "hlg.mov"]).dynamicRange == .hlg)
    }

    @Test func hdrAndSDRAreWhatTheySay() throws {
        #expect(try Self.settings(.hdr, clips: ["sdr.mov"]).dynamicRange == .hlg)
        #expect(try Self.settings(.sdr, clips: ["hlg.mov"]).dynamicRange == .sdr)
    }

    /// HDR outputs are HEVC unless the recipe names a codec; SDR keeps H.264 by default.
    @Test func theCodecFollowsTheDynamicRange() throws {
        #expect(try Self.settings(.hdr, clips: ["sdr.mov"]).videoCodec == .hevc)
        #expect(try Self.settings(.source, clips: ["hlg.mov"]).videoCodec == .hevc)
        #expect(try Self.settings(.source, clips: ["sdr.mov"]).videoCodec == .h264)
        #expect(try Self.settings(.sdr, clips: ["hlg.mov"]).videoCodec == .h264)
        #expect(try Self.settings(.sdr, clips: ["sdr.mov"], codec: .hevc).videoCodec == .hevc)
    }
}
