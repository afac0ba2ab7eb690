import Foundation
import Testing
import TestSupport

/// A clip slowed to half speed over one second: the picture and the sound both last
/// a second longer, and the sound keeps its pitch — or, with `audio: varispeed`, drops
/// an octave like tape.
@Suite(.tags(.slow)) struct SlowedAudioTests {
    @Test(arguments: ["preserve-pitch", "varispeed"])
    func slowedSectionKeepsItsPitchUnlessVarispeed(mode: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 2)   // 440 Hz tone, 48 kHz
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        clips:
          - speed: [{ range: [0.5, 1.5], rate: 0.5 }]
            audio: \(mode)
        """)
        let output = dir.file("slow.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let streams = try FFprobe.facts(of: output)
        #expect(streams.count == 2)
        for stream in streams {
            let seconds = stream.duration ?? 0
            #expect(abs(seconds - 3) < 1.0 / 30, "\(stream.codecType ?? "?") lasts \(seconds) s")
        }
        let samples = try DecodedMedia.monoSamples(of: output)
        func frequency(_ from: Double, _ to: Double) -> Double {
            let part = samples[Int(from * 48000)..<Int(to * 48000)]
            let crossings = zip(part, part.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            return Double(crossings) / (to - from)
        }
        let before = frequency(0.1, 0.45), slowed = frequency(0.7, 2.3), after = frequency(2.6, 2.95)
        #expect(abs(before - 440) < 6 && abs(after - 440) < 6, "\(before) Hz before, \(after) Hz after")
        let expected = mode == "varispeed" ? 220.0 : 440.0
        #expect(abs(slowed - expected) < 6, "\(mode): \(slowed) Hz in the slowed second")
        let levelBefore = DecodedMedia.rmsDecibels(samples, 4800..<21600)
        let levelSlowed = DecodedMedia.rmsDecibels(samples, 33600..<110400)
        #expect(abs(levelBefore - levelSlowed) < 1, "\(mode): \(levelBefore) dB before, \(levelSlowed) dB slowed")
    }

    /// A speed ramp down to a quarter and back: twenty 50 ms steps each way, played as one
    /// stretch, so the sound has no seam anywhere — no jump steeper than the tone itself.
    @Test func speedRampPlaysWithoutClicks() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 3)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "ramp.yaml", contents: """
        version: 1
        clips:
          - ramp: [ {at: 0.5, rate: 1}, {at: 1.0, rate: 0.25}, {at: 1.5, rate: 0.25}, {at: 2.0, rate: 1} ]
        """)
        let output = dir.file("ramp.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let streams = try FFprobe.facts(of: output)
        let video = streams.first { $0.codecType == "video" }?.duration ?? 0, audio = streams.first { $0.codecType == "audio" }?.duration ?? 0
        #expect(abs(video - audio) <= 1.0 / 30, "video \(video) s, audio \(audio) s")
        // 0.5 s + ramp (0.5 s ÷ ≈0.54 average rate) + 0.5 s at a quarter + ramp + 1 s ≈ 5.35 s.
        #expect(audio > 5.25 && audio < 5.45, "3 s with a slowed middle: \(audio) s")
        let samples = try DecodedMedia.monoSamples(of: output)
        let body = samples[2400..<(samples.count - 2400)]
        let peak = body.map(abs).max() ?? 0
        let steepest = zip(body, body.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        // A 440 Hz tone of amplitude `peak` moves at most peak · 2π · 440 / 48000 per sample.
        let toneSlope = peak * Float(2 * Double.pi * 440 / 48000)
        #expect(steepest < 1.5 * toneSlope, "steepest jump \(steepest), the tone's own \(toneSlope)")
    }

    /// The issue's pitch check: a second of 440 Hz slowed 4× lasts 4 s (to one AAC frame)
    /// and measures 440 Hz ± 1 % with the pitch kept, 110 Hz ± 1 % with varispeed.
    @Test(arguments: ["preserve-pitch", "varispeed"])
    func fourTimesSlowerToneKeepsOrDropsItsPitch(mode: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await Fixtures.makeClip(in: dir.path, seconds: 1)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        clips:
          - speed: [{ range: [0, end], rate: 0.25 }]
            audio: \(mode)
        """)
        let output = dir.file("slow.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try DecodedMedia.monoSamples(of: output)
        #expect(abs(samples.count - 4 * 48_000) <= 1024, "\(samples.count) samples, 4 s is 192000")
        // Zero crossings over [0.2, 3.8] s (away from the fades of the source's ends).
        let part = samples[9_600..<182_400]
        let frequency = Double(zip(part, part.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count) / 3.6
        let expected = mode == "varispeed" ? 110.0 : 440.0
        #expect(abs(frequency - expected) <= expected / 100, "\(mode): \(frequency) Hz")
        print("\(mode) 4x slower: \(frequency) Hz, \(samples.count) samples")
    }
}
