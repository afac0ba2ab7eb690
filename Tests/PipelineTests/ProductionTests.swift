import Foundation
import Logging
import Testing
@testable import DropcutPipeline
@testable import DropcutRecipe
import DropcutRender
import TestSupport
import DropcutTimeline

/// A `Production` made from real files (probed and measured with FFmpeg) is complete:
/// the music is ducked, the export settings carry what the probe found, and it renders.
@Suite struct ProductionTests {
    /// A 320x240 clip with a 1 kHz "voice" in [1, 2.5] s over silence, and a 200 Hz bed.
    static func media(_ dir: TemporaryDirectory, seconds: Double = 4, sampleRate: Int = 44_100) throws -> (clip: String, bed: String) {
        let clip = try Fixtures.makeGenerated(
            in: dir.path, name: "clip.mp4", seconds: seconds,
            video: "testsrc2=size=320x240:rate=30",
            audio: "aevalsrc=if(between(t\\,1\\,2.5)\\,0.5*sin(2*PI*1000*t)\\,0):s=\(sampleRate)")
        let bed = try Fixtures.makeGenerated(in: dir.path, name: "bed.wav", seconds: seconds + 2,
                                             audio: "sine=frequency=200:sample_rate=48000")
        return (clip, bed)
    }

    static func duckingRecipe(music: String) -> Recipe {
        var recipe = Recipe(name: "duck")
        recipe.music = Recipe.Music(source: music, gain: Gain(decibels: -6), duck: Recipe.Duck(),
                                    location: SourceLocation(file: "duck.yaml", line: 2, column: 1))
        return recipe
    }

    /// The library path a user takes — `prepare`, then `export` — ducks the music with no
    /// extra call (before the pipeline existed, `CompositionBuilder.build` left it flat).
    @Test func preparedProductionFromAMusicRecipeIsDucked() async throws {
        let dir = try TemporaryDirectory()
        let (clip, bed) = try Self.media(dir)
        let production = try await Production.prepare(recipe: Self.duckingRecipe(music: bed), input: clip)
        let music = try #require(production.music)
        // The tone's measured stretch, to within a 20 ms window and AAC's priming.
        let ducked = try #require(music.duckedRanges.first)
        #expect(music.duckedRanges.count == 1)
        #expect(abs(ducked.start.seconds - 1) < 0.05 && abs(ducked.end.seconds - 2.5) < 0.05, "\(music.duckedRanges)")
        let levels = try #require(production.clipLevels)
        #expect(levels.decibels.count == 200)   // 4 s in 20 ms windows
        let gain = pow(10, -6.0 / 20), depth = pow(10, -12.0 / 20)
        let during = production.audioMix.volume(of: music.trackIDs[0], at: MediaTime(seconds: 1.8, preferredTimescale: 1000))
        let pause = production.audioMix.volume(of: music.trackIDs[0], at: MediaTime(seconds: 3.9, preferredTimescale: 1000))
        #expect(abs(during - gain * depth) < 1e-9 && abs(pause - gain) < 1e-9, "during \(during), pause \(pause)")

        let output = dir.file("out.mp4")
        var logger = Logger(label: "test")
        logger.logLevel = .error
        try await production.export(to: output, logger: logger)
        let streams = try FFprobe.streams(of: output)
        #expect(streams.map(\.codecName) == ["h264", "aac"])
        #expect(streams.first?.width == 320 && streams.first?.height == 240)
    }

    /// The probe's facts reach the export settings, so the export does not reopen the
    /// sources for them: the first clip's sample rate (AAC has 44.1 kHz), channel count
    /// and creation time, and the recipe's codec knobs.
    @Test func exportSettingsComeFromTheRecipeAndTheProbe() async throws {
        let dir = try TemporaryDirectory()
        let clip = dir.file("dated.mp4")
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30",
                                          "-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast",
                                          "-c:a", "aac", "-metadata", "creation_time=2024-05-06T07:08:09.000000Z", clip])
        var recipe = Recipe(name: "hevc")
        recipe.output.video.codec = .hevc
        recipe.output.video.crf = 28
        recipe.output.audio.bitrate = 96_000
        let production = try await Production.prepare(recipe: recipe, input: clip)
        #expect(production.settings.videoCodec == .hevc && production.settings.crf == 28 && production.settings.audioBitrate == 96_000)
        #expect(production.settings.audioSampleRate == 44_100 && production.settings.audioChannels == 1)
        #expect(production.settings.creationTime?.hasPrefix("2024-05-06T07:08:09") == true, "\(String(describing: production.settings.creationTime))")
        #expect(production.outputFilename == "dated.dropcut.mp4")
    }

    /// A cancelled job stops its sound analysis: it runs on a plain thread, where the old
    /// `Task.isCancelled` check could never see the cancellation.
    @Test func cancellingPrepareStopsTheSoundAnalysis() async throws {
        let dir = try TemporaryDirectory()
        let (clip, bed) = try Self.media(dir)
        let recipe = Self.duckingRecipe(music: bed)
        let task = Task { () async throws -> Production in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Production.prepare(recipe: recipe, input: clip)
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    /// Missing media is an error naming the file, from the same one call.
    @Test func missingMusicNamesTheFile() async throws {
        let dir = try TemporaryDirectory()
        let (clip, _) = try Self.media(dir, seconds: 1)
        let missing = dir.file("gone.wav")
        do {
            _ = try await Production.prepare(recipe: Self.duckingRecipe(music: missing), input: clip)
            Issue.record("prepared with a missing music file")
        } catch {
            // The recipe names the music: its error, at that line, naming the file.
            #expect("\(error)".contains("music.source gone.wav: the file does not exist"), "\(error)")
        }
    }
}
