import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `captions:` in a recipe and a clip's `.srt`/`.vtt` sidecar: read, checked with their
/// lines, mapped through the composition onto the captions layer.
@Suite struct CaptionsRecipeTests {
    static let srt = "1\n00:00:01,000 --> 00:00:02,000\nfirst\n\n2\n00:00:04,500 --> 00:00:05,500\nslowed\n\n3\n00:00:08,500 --> 00:00:09,000\ncut away\n"

    static func build(_ yaml: String, in dir: TemporaryDirectory, input: String) throws -> BuiltComposition {
        let recipe = try loadRecipe(yaml, in: dir).get()
        let probe = TableProbe(table: ["clip.mp4": TableProbe.clip("clip.mp4", seconds: 10, width: 1080, height: 1920),
                                       "intro.mp4": TableProbe.clip("intro.mp4", seconds: 10, width: 1080, height: 1920)])
        return try CompositionBuilder(recipe: recipe, probe: probe, levels: FixedLevels()).build(input: input)
    }

    static func captions(_ built: BuiltComposition) -> CaptionTrack? {
        guard case let .captions(track)? = built.overlays.last?.content else { return nil }
        return track
    }

    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds, preferredTimescale: 1000) }

    @Test func aSidecarBesideTheClipIsCaptionedThroughTrimAndSlowMotion() throws {
        let dir = try TemporaryDirectory()
        _ = dir.write("clip.srt", Self.srt)
        let input = dir.file("clip.mp4")
        let built = try Self.build("""
        version: 1
        clips:
          - source: "{input}"
            trim: [0.5, 8]
            speed: [ { range: [4, 6], rate: 0.5 } ]
        """, in: dir, input: input)
        let track = try #require(Self.captions(built))
        #expect(built.captionSource == dir.file("clip.srt"))
        #expect(track.cues.map(\.text) == ["first", "slowed"])
        // Trim starts at 0.5: the first cue plays at [0.5, 1.5); the second is inside the
        // 0.5x range [4, 6), which starts at 3.5 in the output: [4.5, 5.5) → [4.5, 6.5).
        #expect(track.cues[0].timeRange == TimeRange(start: Self.s(0.5), end: Self.s(1.5)))
        #expect(track.cues[1].timeRange == TimeRange(start: Self.s(4.5), end: Self.s(6.5)))
        // The default style: DejaVu Sans Bold, 5 % of the height, the portrait safe area.
        #expect(track.style.fontPaths.first?.hasSuffix("DejaVuSans-Bold.ttf") == true)
        #expect(abs(track.style.size - 0.05) < 1e-9)
        #expect(track.style.safeRect(on: PixelSize(width: 1080, height: 1920)).maxY == 1920 - 480)
    }

    @Test func noSidecarNoCaptions() throws {
        let dir = try TemporaryDirectory()
        let built = try Self.build("version: 1\n", in: dir, input: dir.file("clip.mp4"))
        #expect(Self.captions(built) == nil)
        #expect(built.captionSource == nil)
    }

    @Test func aBrokenSidecarFailsNamingItsLine() throws {
        let dir = try TemporaryDirectory()
        _ = dir.write("CLIP.SRT", "1\n00:00:01,000 --> 00:00:02,500\ncafé crème à la française\n".data(using: .isoLatin1)!)
        #expect {
            _ = try Self.build("version: 1\n", in: dir, input: dir.file("clip.mp4"))
        } throws: { error in
            "\(error)".contains("CLIP.SRT: line 3: the text is not UTF-8 (4 bytes are not): save the file as UTF-8")
        }
    }

    /// A cue a player skips is skipped, and the build says so (the logs and `plan` print it).
    @Test func aSkippedCueIsAWarningNotAFailure() throws {
        let dir = try TemporaryDirectory()
        _ = dir.write("CLIP.SRT", "1\n00:00:01,000 --> 00:00:00,500\nbackwards\n\n2\n00:00:02,000 --> 00:00:03,000\nforwards\n")
        let built = try Self.build("version: 1\n", in: dir, input: dir.file("clip.mp4"))
        #expect(Self.captions(built)?.cues.map(\.text) == ["forwards"])
        #expect(built.captionWarnings.count == 1)
        #expect(built.captionWarnings.first?.hasSuffix("CLIP.SRT:2: the cue ends at or before its start: not shown") == true)
    }

    @Test func theRecipesSourceAndStyleAreUsed() throws {
        let dir = try TemporaryDirectory()
        _ = dir.write("talk.vtt", "WEBVTT\n\n00:01.000 --> 00:02.000\nhi <00:01.500>there\n")
        _ = dir.write("clip.srt", Self.srt)   // the recipe's source wins over the sidecar
        _ = dir.write("intro.mp4", "")        // found by the resolver, probed from the table
        let built = try Self.build("""
        version: 1
        clips: [ { source: intro.mp4 }, { source: "{input}" } ]
        captions:
          source: talk.vtt
          style: { size: 96px, highlight: "#ffd400", background: "#00000080", outline: 0, max_lines: 1, safe_area: ["5%", "5%", "10%", "5%"], position: top }
        """, in: dir, input: dir.file("clip.mp4"))
        let track = try #require(Self.captions(built))
        #expect(track.cues.map(\.text) == ["hi there"])
        // After the 10 s intro (the table's clip).
        #expect(track.cues[0].timeRange.start == Self.s(11))
        #expect(track.cues[0].words.map(\.start) == [Self.s(11), Self.s(11.5)])
        #expect(abs(track.style.size - 96.0 / 1920) < 1e-9)
        #expect(track.style.outline == 0 && track.style.maxLines == 1 && track.style.position == .top)
        #expect(track.style.highlightColor != nil && track.style.background != nil)
        #expect(track.style.safeArea == CaptionStyle.SafeArea(top: 0.05, right: 0.05, bottom: 0.10, left: 0.05))
    }

    @Test func badCaptionKeysAreErrorsAtTheirLine() throws {
        let dir = try TemporaryDirectory()
        _ = dir.write("talk.srt", Self.srt)
        #expect(problems("version: 1\ncaptions: { source: talk.txt }\n", in: dir).contains { $0.hasPrefix("2:") && $0.contains("must be an .srt or .vtt file") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { max_lines: 9 } }\n", in: dir).contains { $0.contains("captions.style.max_lines") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { safe_area: [\"50%\", 0, 0, 0] } }\n", in: dir).contains { $0.contains("0% to 45%") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { max_width: 10% } }\n", in: dir).contains { $0.contains("20% to 100%") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { postion: top } }\n", in: dir).contains { $0.contains("postion") })
        #expect(problems("version: 1\ncaptions: { source: missing.srt }\n", in: dir).contains { $0.contains("missing.srt") && $0.contains("not found") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { language: \"chinese please\" } }\n", in: dir).contains { $0.contains("BCP 47") })
        #expect(problems("version: 1\ncaptions: { source: talk.srt, style: { language: zh-Hant-TW } }\n", in: dir) == ["(valid)"])
        let recipe = try loadRecipe("version: 1\ncaptions: { source: talk.srt, style: { language: zh-Hant } }\n", in: dir).get()
        #expect(recipe.captions?.style(outputHeight: 1080).language == "zh-Hant")
    }
}
