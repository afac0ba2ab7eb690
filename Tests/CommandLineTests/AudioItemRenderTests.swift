import Foundation
import Testing
import TestSupport

/// Audio items rendered by `dropcut render` and measured in the output's decoded samples
/// (Goertzel levels, zero crossings): a voice-over replacing the clip's sound over its
/// range, a sound effect mixed on top, a pitch shift of an octave.
@Suite(.tags(.slow)) struct AudioItemRenderTests {
    /// A 6 s 320x240 clip with a 1 kHz tone (−18 dBFS, ffmpeg's `sine`).
    static func makeToneClip(_ dir: TemporaryDirectory, seconds: Int = 6) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: "clip.mp4", seconds: Double(seconds),
                                   video: "testsrc2=size=320x240:rate=30:duration=\(seconds)",
                                   audio: "sine=frequency=1000:sample_rate=48000:duration=\(seconds)")
    }

    /// A tone of `frequency` Hz lasting `seconds`, as a WAV (PCM, exact length).
    @discardableResult
    static func makeTone(_ dir: TemporaryDirectory, _ name: String, frequency: Int, seconds: Double) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: name, seconds: seconds,
                                   audio: "sine=frequency=\(frequency):sample_rate=48000:duration=\(seconds)")
    }

    static func render(_ dir: TemporaryDirectory, recipe yaml: String, clip: String) async throws -> [Float] {
        let recipe = try Fixtures.makeFile(in: dir.path, name: "items.yaml", contents: yaml)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let audio = try #require(try FFprobe.stream("audio", of: output))
        #expect(abs((audio.duration ?? 0) - 6) <= 0.05, "the items do not lengthen the output: \(audio.duration ?? 0) s")
        return try DecodedMedia.monoSamples(of: output)
    }

    /// The issue's check: a 440 Hz voice-over in `replace` mode at [2, 4] s over a clip's
    /// 1 kHz tone. Inside [2, 4] no 1 kHz (more than 60 dB below its level outside), the
    /// 440 Hz voice present; outside, the 1 kHz tone as before and no 440 Hz.
    @Test func replaceItemSilencesTheClipsSoundOverItsRange() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeToneClip(dir)
        try Self.makeTone(dir, "voice.wav", frequency: 440, seconds: 2)
        let samples = try await Self.render(dir, recipe: """
            version: 1
            audio:
              - source: voice.wav
                at: 2
                mode: replace
            """, clip: clip)
        // A few AAC frames (21 ms each) of margin at the edges.
        let before = ToneMeasure.level(samples, frequency: 1000, from: 0.2, to: 1.9)
        let inside = ToneMeasure.level(samples, frequency: 1000, from: 2.1, to: 3.9)
        let after = ToneMeasure.level(samples, frequency: 1000, from: 4.1, to: 5.8)
        let voice = ToneMeasure.level(samples, frequency: 440, from: 2.1, to: 3.9)
        let voiceOutside = ToneMeasure.level(samples, frequency: 440, from: 4.1, to: 5.8)
        print("replace: 1 kHz before \(before) dB, inside \(inside) dB, after \(after) dB; 440 Hz inside \(voice) dB, after \(voiceOutside) dB")
        #expect(abs(before - -21) < 1.5 && abs(after - -21) < 1.5, "the clip's tone outside the item: \(before), \(after) dB")
        #expect(inside < before - 60, "1 kHz inside the replace item: \(inside) dB against \(before) dB outside")
        #expect(abs(voice - -21) < 1.5, "the voice-over at its level: \(voice) dB")
        #expect(voiceOutside < voice - 60, "no voice after the item: \(voiceOutside) dB")
    }

    /// A sound effect in `mix` mode at 5 s adds without removing: both tones in its range.
    @Test func mixItemAddsWithoutRemoving() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeToneClip(dir)
        try Self.makeTone(dir, "effect.wav", frequency: 440, seconds: 0.8)
        let samples = try await Self.render(dir, recipe: """
            version: 1
            audio:
              - { source: effect.wav, at: 5, mode: mix }
            """, clip: clip)
        let clipTone = ToneMeasure.level(samples, frequency: 1000, from: 5.1, to: 5.7)
        let effect = ToneMeasure.level(samples, frequency: 440, from: 5.1, to: 5.7)
        let effectBefore = ToneMeasure.level(samples, frequency: 440, from: 3.0, to: 4.8)
        print("mix: in [5, 5.8] 1 kHz \(clipTone) dB, 440 Hz \(effect) dB; 440 Hz before \(effectBefore) dB")
        #expect(abs(clipTone - -21) < 1.5, "the clip's tone stays under the effect: \(clipTone) dB")
        #expect(abs(effect - -21) < 1.5, "the effect: \(effect) dB")
        #expect(effectBefore < effect - 60, "the effect only at its time: \(effectBefore) dB before it")
    }

    /// `pitch: +12` doubles the frequency of a 440 Hz item (880 Hz ± 1 %) and keeps its
    /// length (2 s ± 1 %); `-12` halves it. The clip is muted so the item sounds alone.
    @Test(arguments: [12.0, -12.0, 7.0])
    func pitchShiftChangesTheFrequencyNotTheLength(semitones: Double) async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeToneClip(dir)
        try Self.makeTone(dir, "voice.wav", frequency: 440, seconds: 2)
        let samples = try await Self.render(dir, recipe: """
            version: 1
            original_audio: mute
            audio:
              - { source: voice.wav, at: 1.5, pitch: \(semitones) }
            """, clip: clip)
        let expected = 440 * pow(2, semitones / 12)
        let frequency = ToneMeasure.frequency(samples, from: 1.7, to: 3.3)
        let span = try #require(ToneMeasure.span(samples, above: -40))
        print("pitch \(semitones): \(frequency) Hz (expected \(expected)), sounding \(span.start)–\(span.end) s")
        #expect(abs(frequency - expected) <= expected / 100, "\(frequency) Hz, expected \(expected)")
        #expect(abs((span.end - span.start) - 2) <= 0.02, "lasts \(span.end - span.start) s")
        #expect(abs(span.start - 1.5) <= 0.02, "starts at \(span.start) s")
        // Its level is kept (within 1.5 dB of the unshifted tone's −21 dBFS).
        #expect(abs(ToneMeasure.level(samples, frequency: expected, from: 1.7, to: 3.3) - -21) < 1.5)
    }

    /// `plan` lists the items and the ducking they cause, and draws their tracks; the
    /// render ducks the music bed (200 Hz, no `duck:`) by the default 12 dB under a
    /// voice-over (replace item, ducking by default), while the clip's 1 kHz is silent there.
    @Test func musicDucksUnderAVoiceOverAndPlanShowsIt() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeToneClip(dir)
        try Self.makeTone(dir, "voice.wav", frequency: 440, seconds: 2)
        try Self.makeTone(dir, "bed.wav", frequency: 200, seconds: 8)
        let yaml = """
            version: 1
            music: { source: bed.wav, gain: -6dB }
            audio:
              - { source: voice.wav, at: 2, mode: replace }
            """
        let recipe = try Fixtures.makeFile(in: dir.path, name: "items.yaml", contents: yaml)
        let svg = dir.file("plan.svg")
        let plan = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", svg, clip])
        try #require(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("audio item track 3 voice.wav [2.000,+2.000] replace (the clips' sound silent), the music ducks under it"), "\(plan.stdout)")
        #expect(plan.stdout.contains("ducking: track 4 down -12 dB under the audio items"), "\(plan.stdout)")
        #expect(plan.stdout.contains("1 stretch [2.000,+2.000]"), "\(plan.stdout)")
        #expect(plan.stdout.contains("1: timeRange [2.000,+2.000] is empty"), "the clip's audio track is emptied: \(plan.stdout)")
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.contains(#"<polyline class="volume" data-track-id="4""#), "the music's ducked volume is drawn")
        // With `duck:` the music ducks under the clips' sound and the items both.
        let both = try Fixtures.makeFile(in: dir.path, name: "both.yaml", contents: yaml.replacingOccurrences(of: "gain: -6dB", with: "gain: -6dB, duck: {}"))
        let bothPlan = try await DropcutProcess.run(["plan", "--recipe", both, clip])
        #expect(bothPlan.stdout.contains("under the clips' sound above -30 dBFS and the audio items"), "\(bothPlan.stdout) \(bothPlan.stderr)")

        let samples = try await Self.render(dir, recipe: yaml, clip: clip)
        let bedOpen = ToneMeasure.level(samples, frequency: 200, from: 0.2, to: 1.7)
        let bedDucked = ToneMeasure.level(samples, frequency: 200, from: 2.1, to: 3.9)
        let bedAfter = ToneMeasure.level(samples, frequency: 200, from: 5.0, to: 5.9)
        let clipInside = ToneMeasure.level(samples, frequency: 1000, from: 2.1, to: 3.9)
        print("ducking under a voice-over: bed \(bedOpen) dB open, \(bedDucked) dB under the item, \(bedAfter) dB after; 1 kHz inside \(clipInside) dB")
        #expect(abs(bedOpen - (-21 - 6)) < 1.5, "the bed at its gain: \(bedOpen) dB")
        #expect(abs((bedOpen - bedDucked) - 12) < 1, "ducked by 12 dB: \(bedOpen - bedDucked) dB")
        #expect(abs(bedAfter - bedOpen) < 1, "back up after the release: \(bedAfter) dB")
        #expect(clipInside < -80)
    }

    /// `output.audio.loudness` measures the whole mix, items included: with the clip muted,
    /// the only sound is an item, and it is brought to the target.
    @Test func loudnessNormalisationHearsTheItems() async throws {
        let dir = try TemporaryDirectory(prefix: "dropcut-items")
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeToneClip(dir)
        try Self.makeTone(dir, "voice.wav", frequency: 440, seconds: 4)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "loud.yaml", contents: """
            version: 1
            original_audio: mute
            output: { audio: { loudness: -16LUFS } }
            audio:
              - { source: voice.wav, at: 1, volume: -10dB }
            """)
        let output = dir.file("loud.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let loudness = try await LoudnessTargetTests.integratedLoudness(output)
        print("loudness of a lone item brought to -16 LUFS: \(loudness) LUFS")
        #expect(abs(loudness - -16) < 0.5, "\(loudness) LUFS")
    }
}
