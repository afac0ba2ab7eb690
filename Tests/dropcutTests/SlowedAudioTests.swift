import Foundation
import Testing
import TestSupport

/// A clip slowed to half speed over one second: the picture and the sound both last
/// a second longer, and the sound keeps its pitch — or, with `audio: varispeed`, drops
/// an octave like tape.
@Suite struct SlowedAudioTests {
    @Test(arguments: ["preserve-pitch", "varispeed"])
    func slowedSectionKeepsItsPitchUnlessVarispeed(mode: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 2)   // 440 Hz tone, 48 kHz
        let recipe = try Fixtures.makeFile(in: dir.path, name: "slow.yaml", contents: """
        version: 1
        clips:
          - speed: [{ range: [0.5, 1.5], rate: 0.5 }]
            audio: \(mode)
        """)
        let output = dir.file("slow.mp4")
        let result = try DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
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
}
