import Foundation
import Testing
@testable import DropcutRecipe
import TestSupport
import DropcutTimeline

/// `audio:` items: what the decoder refuses, at which line and column, and what the
/// builder makes of them — tracks, ranges, volume ramps, pitch, the clips' sound removed
/// and an empty range inserted over replace items, the music ducked under voice-overs.
@Suite struct AudioItemRecipeTests {
    /// A folder holding the (empty) files the recipes name: the decoder only resolves them.
    static func folder() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        for name in ["voice.wav", "fx.wav", "bed.wav", "long.wav"] { _ = dir.write(name, "") }
        return dir
    }

    // MARK: Validation

    @Test func everyNewKeyIsCheckedAtItsPosition() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        #expect(problems("""
        version: 1
        audio:
          - source: missing.wav
            at: -1
            volume: 30dB
          - source: voice.wav
            mod: replace
            pitch: 13
            fade: { in: 1, out: 1, over: 2 }
          - source: fx.wav
            mode: swap
            duck_music: perhaps
            trim: [2, 1]
          - at: 1
          - source: "{input}"
            volume: loud
            pitch: NaN
        """, in: dir) == [
            "3:13: audio[0].source 'missing.wav' not found (looked in \(AssetResolver.realPath(dir.path)!))",
            "4:9: audio[0].at must not be negative (got -1)",
            "5:13: audio[0].volume must be between -60 and 20 dB (got 30dB)",
            "7:5: unknown key 'mod' in audio[1]; did you mean 'mode'?",
            "8:12: audio[1].pitch (semitones) must be between -12 and 12 (got 13)",
            "9:28: unknown key 'over' in audio[1].fade; expected one of: in, out",
            "11:11: audio[2].mode must be one of mix | replace (got 'swap')",
            "12:17: audio[2].duck_music must be true or false, got 'perhaps'",
            "13:15: audio[2].trim must end after it starts (got [2.000, 1.000])",
            "14:5: audio[3] needs a source: the sound file",
            "15:13: audio[4].source must be a file path (got \"{input}\")",
            "16:13: audio[4].volume must be a level in dB, like \"-12dB\"; got 'loud'",
            "17:12: audio[4].pitch (semitones) must be a number, got 'NaN'",
        ])
    }

    @Test func listShapeAndAbsurdTimesAndCountsAreRefused() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        #expect(problems("version: 1\naudio: { source: voice.wav }\n", in: dir) == ["2:8: audio must be a list, got a mapping"])
        #expect(problems("version: 1\naudio: [ { source: voice.wav, at: 1e19 } ]\n", in: dir)
                == ["2:35: audio[0].at must be at most 24 hours (86400 s) (got 1e19)"])
        let many = (0...RecipeLimits.maximumAudioItems).map { _ in "  - { source: fx.wav }" }.joined(separator: "\n")
        #expect(problems("version: 1\naudio:\n\(many)\n", in: dir) == ["3:3: audio must have at most 100 items (got 101)"])
    }

    /// Replace items whose lengths the trims give are checked for overlaps by `validate`;
    /// fades longer than such an item too. Mix items may overlap anything.
    @Test func overlappingReplaceItemsAndLongFadesAreRefusedWhenTheRecipeSaysTheirLengths() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        #expect(problems("""
        version: 1
        audio:
          - { source: voice.wav, at: 2, trim: [0, 3], mode: replace }
          - { source: voice.wav, at: 4.5, trim: [0, 1], mode: replace }
          - { source: fx.wav, at: 3, trim: [0, 1], mode: mix }
          - { source: fx.wav, at: 5, trim: [0, 1], mode: replace, fade: { in: 0.6, out: 0.6 } }
        """, in: dir) == [
            "4:30: audio items replacing the clips' sound overlap: the one at 4.500s starts before the one at 2.000s (line 3) ends at 5.000s",
            "6:27: audio items replacing the clips' sound overlap: the one at 5.000s starts before the one at 4.500s (line 4) ends at 5.500s",
            "6:65: audio[3] fades (0.600s in + 0.600s out) are longer than the item (1.000s)",
        ])
        #expect(problems("""
        version: 1
        audio:
          - { source: voice.wav, at: 2, trim: [0, 3], mode: replace }
          - { source: voice.wav, at: 5, trim: [0, 1], mode: replace }
          - { source: fx.wav, at: 2.5, trim: [0, 1] }
        """, in: dir) == ["(valid)"])
    }

    /// Merged recipes (the daemon's folder default, inbox recipe, sidecar): a later
    /// file's `audio` list replaces the earlier one whole, and its errors point into it.
    @Test func laterFilesReplaceTheItemListWhole() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let base = dir.write("folder.yaml", "version: 1\naudio:\n  - { source: bed.wav, at: 0 }\n  - { source: fx.wav, at: 1 }\n")
        let sidecar = dir.write("IMG_1.yaml", "version: 1\naudio:\n  - { source: voice.wav, at: 2, mode: replace }\n")
        let recipe = try RecipeLoader().load([base, sidecar])
        #expect(recipe.audio.map { ($0.source as NSString).lastPathComponent } == ["voice.wav"])
        #expect(recipe.audio.first?.mode == .replace && recipe.audio.first?.at == MediaTime(seconds: 2))
        let bad = dir.write("IMG_2.yaml", "version: 1\naudio:\n  - { source: voice.wav, pitch: 20 }\n")
        #expect(throws: RecipeError("audio[0].pitch (semitones) must be between -12 and 12 (got 20)",
                                    at: SourceLocation(file: bad, line: 3, column: 33))) {
            try RecipeLoader().load([base, bad])
        }
    }

    // MARK: Building

    static let probe = TableProbe(table: [
        "clip.mov": TableProbe.clip("clip.mov", seconds: 6),
        "voice.wav": TableProbe.music("voice.wav", seconds: 2),
        "fx.wav": TableProbe.music("fx.wav", seconds: 1),
        "bed.wav": TableProbe.music("bed.wav", seconds: 10),
        "long.wav": TableProbe.music("long.wav", seconds: 30),
    ])

    static func build(_ yaml: String, in dir: TemporaryDirectory, levels: FixedLevels = FixedLevels()) throws -> BuiltComposition {
        let recipe = try loadRecipe(yaml, in: dir).get()
        return try CompositionBuilder(recipe: recipe, probe: probe, levels: levels).build(input: "clip.mov")
    }

    /// Seed 001's composition: the voice-over replaces the clip's sound (its range removed
    /// from the clip's audio track, an empty range inserted), the effect mixes on top;
    /// each item a track of its own at its time with its volume and pitch.
    @Test func replaceEmptiesTheClipsAudioAndMixLeavesItAlone() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let built = try Self.build("""
        version: 1
        audio:
          - { source: voice.wav, at: 2, mode: replace, volume: -6dB, pitch: 12 }
          - { source: fx.wav, at: 4.5, trim: [0.25, end] }
        """, in: dir)
        let text = TimelineDescription.text(composition: built.composition, audioMix: built.audioMix)
            .replacingOccurrences(of: AssetResolver.realPath(dir.path)! + "/", with: "")
        #expect(text == """
        composition duration 6.000
        track 1 video
          0: timeRange [0.000,+6.000] from trackID 1 of asset clip.mov sourceTimeRange [0.000,+6.000] speed 1.00
        track 2 audio
          0: timeRange [0.000,+2.000] from trackID 2 of asset clip.mov sourceTimeRange [0.000,+2.000] speed 1.00
          1: timeRange [2.000,+2.000] is empty
          2: timeRange [4.000,+2.000] from trackID 2 of asset clip.mov sourceTimeRange [4.000,+2.000] speed 1.00
        track 3 audio
          0: timeRange [0.000,+2.000] is empty
          1: timeRange [2.000,+2.000] from trackID 1 of asset voice.wav sourceTimeRange [0.000,+2.000] speed 1.00
        track 4 audio
          0: timeRange [0.000,+4.500] is empty
          1: timeRange [4.500,+0.750] from trackID 1 of asset fx.wav sourceTimeRange [0.250,+0.750] speed 1.00
        audio mix
          trackID 2 volume 1.00 (default)
          trackID 3 volume 0.50 at 2.000; pitch +12 semitones
          trackID 4 volume 1.00 (default)

        """)
        #expect(built.composition.validate().isEmpty)
        #expect(built.audioMix.invalidTrackIDs(for: built.composition).isEmpty)
        #expect(built.audioItems.map(\.trackID) == [3, 4])
        #expect(built.audioItems.map(\.range) == [TimeRange(start: 2, duration: 2), TimeRange(start: MediaTime(value: 9, timescale: 2), duration: MediaTime(value: 3, timescale: 4))])
        #expect(built.audioItems.map(\.ducksMusic) == [true, false])
        #expect(built.audioMix.parameters(for: 3)?.pitchRatio == 2)
    }

    /// An item running past the output stops with it (and the clips' track is not
    /// lengthened by the empty range); one starting at the end is an error at its `at`.
    @Test func itemsAreCutAtTheOutputsEndAndMayNotStartAfterIt() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let built = try Self.build("version: 1\naudio:\n  - { source: long.wav, at: 4, mode: replace }\n", in: dir)
        #expect(built.composition.duration == MediaTime(seconds: 6))
        #expect(built.audioItems.first?.range == TimeRange(start: 4, duration: 2))
        let clipTrack = try #require(built.composition.track(2))
        #expect(clipTrack.end == MediaTime(seconds: 6) && clipTrack.segments.last?.isEmpty == true)

        #expect(throws: CompositionBuildError.recipe(RecipeError("audio item at 6.000s starts at or after the end of the output (6.000s)",
                                                                 at: SourceLocation(file: dir.file("test.yaml"), line: 3, column: 38)))) {
            try Self.build("version: 1\naudio:\n  - { source: fx.wav, mode: mix, at: 6 }\n", in: dir)
        }
    }

    /// What only the files can tell: replace items overlapping by their probed lengths, a
    /// trim past the file's end, fades longer than the item as placed.
    @Test func errorsOnlyTheFilesRevealPointIntoTheRecipe() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let file = dir.file("test.yaml")
        #expect(throws: CompositionBuildError.recipe(RecipeError(
            "audio items replacing the clips' sound overlap: the one at 2.500s starts before the one at 1.000s (line 3) ends at 3.000s",
            at: SourceLocation(file: file, line: 4, column: 27)))) {
            try Self.build("""
            version: 1
            audio:
              - { source: voice.wav, at: 1, mode: replace }
              - { source: fx.wav, at: 2.5, mode: replace }
            """, in: dir)
        }
        #expect(throws: CompositionBuildError.recipe(RecipeError("trim [0.500s, 3.000s] is outside fx.wav, whose audio lasts 1.000s",
                                                                 at: SourceLocation(file: file, line: 3, column: 29)))) {
            try Self.build("version: 1\naudio:\n  - { source: fx.wav, trim: [0.5, 3] }\n", in: dir)
        }
        #expect(throws: CompositionBuildError.recipe(RecipeError("audio item fades (1.000s in + 1.000s out) are longer than the item as placed (1.000s)",
                                                                 at: SourceLocation(file: file, line: 3, column: 5)))) {
            try Self.build("version: 1\naudio:\n  - { source: long.wav, at: 5, fade: { in: 1, out: 1 } }\n", in: dir)
        }
    }

    /// The music bed ducks under replace items (their default) and under items that ask,
    /// even without `duck:` — by the default depth — and not under plain mix items; with
    /// `duck:` it ducks under both the items and the clips' measured sound.
    @Test func musicDucksUnderVoiceOverItems() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let items = """
        audio:
          - { source: voice.wav, at: 1, mode: replace }
          - { source: fx.wav, at: 4, duck_music: true }
          - { source: fx.wav, at: 5 }
        """
        let built = try Self.build("version: 1\nmusic: { source: bed.wav }\n" + items, in: dir)
        let music = try #require(built.music)
        #expect(music.duckedRanges == [TimeRange(start: 1, duration: 2), TimeRange(start: 4, duration: 1)])
        func volume(_ seconds: Double) -> Double {
            built.audioMix.volume(of: music.trackIDs[0], at: MediaTime(seconds: seconds, preferredTimescale: 1000))
        }
        let depth = pow(10, -12.0 / 20)
        #expect(abs(volume(0.5) - 1) < 1e-9 && abs(volume(2) - depth) < 1e-9 && abs(volume(4.5) - depth) < 1e-9)
        #expect(abs(volume(0.9) - (1 + (depth - 1) / 2)) < 1e-9, "down over the 0.2 s attack ending at the item")
        #expect(built.clipLevels == nil, "nothing measured without duck:")

        let levels = FixedLevels(level: -10, during: [(5.5, 6)], seconds: 6)
        let measured = try Self.build("version: 1\nmusic: { source: bed.wav, duck: { depth: -20dB } }\n" + items, in: dir, levels: levels)
        #expect(levels.calls == 1)
        #expect(measured.music?.duckedRanges == [TimeRange(start: 1, duration: 2), TimeRange(start: 4, duration: 2)])
        let unducked = try Self.build("version: 1\nmusic: { source: bed.wav }\naudio: [ { source: voice.wav, at: 1, mode: replace, duck_music: false } ]\n", in: dir)
        #expect(unducked.music?.ducking == nil)
    }

    /// A replace item over a clip with speed changes and a second clip: the range is taken
    /// out of every clip's audio track in output time, and the tracks stay valid.
    @Test func replaceAcrossClipsAndSpeedsKeepsTracksValid() throws {
        let dir = try Self.folder()
        defer { withExtendedLifetime(dir) {} }
        let built = try Self.build("""
        version: 1
        clips:
          - { source: "{input}", trim: [0, 3], speed: [ { range: [1, 2], rate: 0.5 } ] }
          - { source: "{input}", trim: [0, 2] }
        audio:
          - { source: voice.wav, at: 3, mode: replace }
        """, in: dir)
        #expect(built.composition.duration == MediaTime(seconds: 6))
        #expect(built.composition.validate().isEmpty)
        for trackID in built.clipAudioTrackIDs {
            let track = try #require(built.composition.track(trackID))
            // Silent over [3, 5): no segment with a source overlaps it.
            let sounding = track.segments.filter { !$0.isEmpty && $0.target.overlaps(TimeRange(start: 3, duration: 2)) }
            #expect(sounding.isEmpty, "track \(trackID): \(track.segments)")
        }
        // The first clip's slowed second still plays before the item, the second clip after it.
        let first = try #require(built.composition.track(built.clipAudioTrackIDs[0]))
        #expect(first.segments.contains { $0.speed == 0.5 && $0.target == TimeRange(start: 1, duration: 2) })
        let second = try #require(built.composition.track(built.clipAudioTrackIDs[1]))
        #expect(second.segments.last.map { !$0.isEmpty && $0.target == TimeRange(start: 5, duration: 1) } == true)
    }
}
