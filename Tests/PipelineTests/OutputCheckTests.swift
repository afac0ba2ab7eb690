import Foundation
import Testing
import DropcutPipeline
import DropcutRecipe
import DropcutRender
import TestSupport
import DropcutTimeline

/// Issue 18: an output is read back before a render counts as done — a file without the
/// composition's streams or duration is a failure, never a success.
@Suite struct OutputCheckTests {
    /// The composition the identity recipe builds for `clip` (its probe, nothing rendered).
    static func production(_ clip: String) async throws -> Production {
        try await Production.prepare(recipe: Recipe(name: "identity"), input: clip)
    }

    @Test func aFileMatchingItsCompositionPasses() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let production = try await Self.production(clip)
        try OutputCheck.verify(clip, composition: production.composition, frameDuration: production.videoComposition.frameDuration)
    }

    @Test func aShortOrStreamlessOutputFailsNamingWhatIsMissing() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeClip(in: dir.path, name: "clip.mp4", seconds: 2)
        let production = try await Self.production(clip)
        let frame = production.videoComposition.frameDuration
        func failure(_ path: String) -> String {
            do {
                try OutputCheck.verify(path, composition: production.composition, frameDuration: frame)
                return ""
            } catch { return "\(error)" }
        }
        let short = try await Fixtures.makeClip(in: dir.path, name: "short.mp4", seconds: 1)
        #expect(failure(short).contains("\(short): the rendered output is not complete: its video lasts 1.0"), "\(failure(short))")
        let silent = try await Fixtures.makeClip(in: dir.path, name: "silent.mp4", seconds: 2, audio: false)
        #expect(failure(silent).contains("it has no audio stream although the composition has audio"), "\(failure(silent))")
        let audioOnly = try await Fixtures.makeGenerated(in: dir.path, name: "tone.m4a", seconds: 2, audio: "sine=frequency=440")
        #expect(failure(audioOnly).contains("it has no video stream"), "\(failure(audioOnly))")
    }
}
