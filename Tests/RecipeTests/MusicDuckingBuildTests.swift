import Foundation
import Testing
@testable import DropcutRecipe
import DropcutTimeline

/// The builder ducks the music in the same call that builds the composition: a library
/// user cannot get an unducked mix by forgetting a step. The clips' sound is handed in
/// through `SoundLevelMeasuring`, so this is exact model arithmetic.
@Suite struct MusicDuckingBuildTests {
    static let probe = TableProbe(table: [
        "clip.mov": TableProbe.clip("clip.mov", seconds: 8),
        "bed.wav": TableProbe.music("bed.wav", seconds: 10),
    ])

    static func recipe(duck: Recipe.Duck?) -> Recipe {
        var recipe = Recipe(name: "duck")
        recipe.music = Recipe.Music(source: "bed.wav", gain: Gain(decibels: -6), duck: duck,
                                    location: SourceLocation(file: "duck.yaml", line: 2, column: 1))
        return recipe
    }

    @Test func buildMeasuresTheClipsOnceAndDucksTheMusic() throws {
        let levels = FixedLevels(level: -10, during: [(1, 3), (5, 7)], seconds: 8)
        let built = try CompositionBuilder(recipe: Self.recipe(duck: Recipe.Duck()), probe: Self.probe, levels: levels)
            .build(input: "clip.mov")
        #expect(levels.calls == 1)
        let music = try #require(built.music)
        #expect(music.duckedRanges == [TimeRange(start: 1, duration: 2), TimeRange(start: 5, duration: 2)])
        #expect(built.clipLevels == levels.levels)
        // The bed's volume in the mix: −6 dB in the pauses, −6 −12 = −18 dB under the sound,
        // down over the attack (0.2 s) ending at each onset.
        func volume(at seconds: Double) -> Double {
            built.audioMix.volume(of: music.trackIDs[0], at: MediaTime(seconds: seconds, preferredTimescale: 1000))
        }
        let gain = pow(10, -6.0 / 20), depth = pow(10, -12.0 / 20)
        #expect(abs(volume(at: 0.5) - gain) < 1e-9)
        #expect(abs(volume(at: 2) - gain * depth) < 1e-9)
        #expect(abs(volume(at: 0.9) - gain * (1 + (depth - 1) / 2)) < 1e-9)
        #expect(abs(volume(at: 4.2) - gain) < 1e-9)
        #expect(abs(volume(at: 6) - gain * depth) < 1e-9)
    }

    @Test func manualWindowsAndUnduckedMusicMeasureNothing() throws {
        var manual = Recipe.Duck()
        manual.windows = [Recipe.ClosedTimeRange(start: .seconds(2), end: .seconds(4), location: SourceLocation(file: "duck.yaml", line: 3, column: 1))]
        let levels = FixedLevels()
        let ducked = try CompositionBuilder(recipe: Self.recipe(duck: manual), probe: Self.probe, levels: levels).build(input: "clip.mov")
        #expect(ducked.music?.duckedRanges == [TimeRange(start: 2, duration: 2)])
        let plain = try CompositionBuilder(recipe: Self.recipe(duck: nil), probe: Self.probe, levels: levels).build(input: "clip.mov")
        #expect(plain.music?.ducking == nil)
        #expect(levels.calls == 0)
        #expect(ducked.clipLevels == nil)
    }

    /// The builder's whole output is described by what it probed: every source track of
    /// the composition names a file in `media`.
    @Test func builtCompositionKnowsEveryProbedFile() throws {
        let built = try CompositionBuilder(recipe: Self.recipe(duck: nil), probe: Self.probe, levels: FixedLevels()).build(input: "clip.mov")
        let assets = Set(built.composition.tracks.flatMap(\.segments).compactMap(\.source).map(\.track.asset))
        #expect(assets == ["clip.mov", "bed.wav"])
        #expect(Set(built.media.keys) == assets)
    }
}
