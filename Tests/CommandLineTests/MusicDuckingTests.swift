import Foundation
import Testing
import TestSupport

/// The music bed under a clip, measured in the rendered file with the music and the
/// clip's sound told apart by frequency (a 200 Hz bed, a 1 kHz "voice"): ducking depth
/// and timing, seamless loops, fades that end with the video, and bad music files.
@Suite(.tags(.slow)) struct MusicDuckingTests {
    /// A 1 kHz tone in [1, 3] and [5, 7] s over a 200 Hz bed at −6 dB ducked by −12 dB:
    /// the bed sits at −18 dB under the tone, −6 dB in the pauses, and goes down over the
    /// attack and back up over the release.
    @Test func musicDucksUnderTheClipsSound() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, seconds: 8, audio: "if(between(t\\,1\\,3)+between(t\\,5\\,7)\\,0.5*sin(2*PI*1000*t)\\,0)")
        try Self.makeMusic(dir, "bed.wav", seconds: 10, expression: "0.5*sin(2*PI*200*t)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "duck.yaml", contents: """
        version: 1
        music:
          source: bed.wav
          gain: -6dB
          duck: { depth: -12dB, threshold: -30dBFS, attack: 0.2, release: 0.8 }
        """)
        let svg = dir.file("plan.svg")
        let plan = try await DropcutProcess.run(["plan", "--recipe", recipe, "--svg", svg, clip])
        try #require(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("ducking: track 3 down -12 dB under the clips' sound above -30 dBFS"), "\(plan.stdout)")
        #expect(plan.stdout.contains("2 stretches [1.000,+2.000], [5.000,+2.000]"), "\(plan.stdout)")
        // The music's volume lists the ramps: down to 0.5 × 0.25 before 1 s, back up after 3 s.
        #expect(plan.stdout.contains("ramp [0.800,+0.200] 0.50 -> 0.13"), "\(plan.stdout)")
        #expect(plan.stdout.contains("ramp [3.000,+0.800] 0.13 -> 0.50"), "\(plan.stdout)")
        // The drawing shows the music's volume over the clips' sound.
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.contains(#"<polygon class="level" data-track-id="3""#) && drawing.contains(#"<polyline class="volume" data-track-id="3""#))

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let bed = try Self.bandLevels(of: output, frequency: 200)
        // The bed's own level: a 0.5 sine at gain 1.
        let reference = 20 * log10(0.5 / sqrt(2.0))
        func level(_ from: Double, _ to: Double) -> Double {
            let part = bed.filter { $0.time >= from && $0.time <= to }.map(\.level)
            return part.reduce(0, +) / Double(part.count) - reference
        }
        for (from, to) in [(0.2, 0.6), (3.9, 4.6), (7.9, 7.95)] {
            #expect(abs(level(from, to) + 6) <= 1, "pause [\(from), \(to)]: \(level(from, to)) dB")
        }
        for (from, to) in [(1.05, 2.95), (5.05, 6.95)] {
            #expect(abs(level(from, to) + 18) <= 1, "speech [\(from), \(to)]: \(level(from, to)) dB")
        }
        // Transition times: from leaving −6 dB (by 0.5 dB) to arriving at −18 dB (within
        // 0.5 dB), and back — a linear gain ramp spends 90 % of its length between them.
        func crossing(after start: Double, below threshold: Double) -> Double? {
            bed.first { $0.time >= start && $0.level - reference < threshold }?.time
        }
        func crossing(after start: Double, above threshold: Double) -> Double? {
            bed.first { $0.time >= start && $0.level - reference > threshold }?.time
        }
        let attackStart = try #require(crossing(after: 0.5, below: -6.5)), attackEnd = try #require(crossing(after: 0.5, below: -17.5))
        let releaseStart = try #require(crossing(after: 3, above: -17.5)), releaseEnd = try #require(crossing(after: 3, above: -6.5))
        let attack = attackEnd - attackStart, release = releaseEnd - releaseStart
        #expect(abs(attack - 0.9 * 0.2) <= 0.2 * 0.2, "attack took \(attack) s")
        #expect(abs(release - 0.9 * 0.8) <= 0.2 * 0.8, "release took \(release) s")
        print("ducking: attack \(attack) s, release \(release) s; speech \(level(1.05, 2.95)) dB, pause \(level(3.9, 4.6)) dB")
    }

    /// A 2 s AAC music file looped under a 7 s clip plays on without a gap or a click at
    /// the loop points, and a cubed fade-out leaves it below −60 dB when the video ends.
    @Test func loopedMusicIsSeamlessAndFadesOutWithTheVideo() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, seconds: 7, audio: "0")
        try Self.makeMusic(dir, "loop.m4a", seconds: 2, expression: "0.5*sin(2*PI*200*t)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "loop.yaml", contents: """
        version: 1
        music: { source: loop.m4a, loop: true, fade: { out: 1 } }
        """)
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try DecodedMedia.monoSamples(of: output)
        #expect(abs(samples.count - 7 * 48_000) <= 1024, "\(samples.count) samples")
        // No gap: every 5 ms window before the fade holds the bed at its level (±1.5 dB).
        let window = 240
        var quiet: [Double] = []
        for start in stride(from: 4_800, to: 6 * 48_000 - window, by: window) {
            let level = DecodedMedia.rmsDecibels(samples, start..<(start + window)) - 20 * log10(0.5 / sqrt(2.0))
            if abs(level) > 1.5 { quiet.append(Double(start) / 48_000) }
        }
        #expect(quiet.isEmpty, "bed level off by > 1.5 dB at \(quiet.prefix(10)) s")
        // No click: no step steeper than the 200 Hz tone's own (amplitude 0.5), with margin.
        let body = samples[4_800..<(6 * 48_000)]
        let steepest = zip(body, body.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        let toneSlope = Float(0.5 * 2 * Double.pi * 200 / 48_000)
        #expect(steepest < 1.3 * toneSlope, "steepest step \(steepest), the tone's own \(toneSlope)")
        // Fade: the last 10 ms are below −60 dB of the bed.
        let end = DecodedMedia.rmsDecibels(samples, (samples.count - 480)..<samples.count) - 20 * log10(0.5 / sqrt(2.0))
        #expect(end <= -60, "music at the end: \(end) dB")
    }

    /// Full-scale sound under full-scale music (a peak of 2 when summed) never exceeds
    /// −1 dBFS in the decoded output: the mix is limited, not clipped; and where nothing
    /// needs limiting the level is untouched.
    @Test func loudMixIsLimitedBelowMinusOneDecibel() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, seconds: 3, audio: "if(lt(t\\,2)\\,sin(2*PI*1000*t)\\,0.25*sin(2*PI*1000*t))")
        try Self.makeMusic(dir, "loud.wav", seconds: 3, expression: "if(lt(t\\,2)\\,sin(2*PI*200*t)\\,0)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "loud.yaml", contents: "version: 1\nmusic: { source: loud.wav }\n")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try DecodedMedia.monoSamples(of: output)
        let peak = samples.map(abs).max() ?? 0
        #expect(20 * log10(Double(peak)) <= -1, "peak \(20 * log10(Double(peak))) dBFS")
        // The quiet last second (a 0.25 sine alone) comes through at its own level.
        let quiet = DecodedMedia.rmsDecibels(samples, 110_400..<139_200)
        #expect(abs(quiet - 20 * log10(0.25 / sqrt(2.0))) < 0.3, "quiet part at \(quiet) dBFS")
        print("limited mix: peak \(20 * log10(Double(peak))) dBFS, quiet part \(quiet) dBFS")
    }

    /// The plan shows what the recipe asked: the bed from its offset, a clip's own volume,
    /// and manual duck windows instead of the analysis.
    @Test func planShowsOffsetClipVolumeAndManualWindows() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, seconds: 6, audio: "0.5*sin(2*PI*1000*t)")
        try Self.makeMusic(dir, "bed.wav", seconds: 10, expression: "0.5*sin(2*PI*200*t)")
        let recipe = try Fixtures.makeFile(in: dir.path, name: "manual.yaml", contents: """
        version: 1
        clips:
          - volume: -6dB
        music:
          source: bed.wav
          offset: 2.5
          duck: { depth: -12dB, attack: 0.5, release: 0.5, windows: [[2, 4]] }
        """)
        let plan = try await DropcutProcess.run(["plan", "--recipe", recipe, clip])
        try #require(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("sourceTimeRange [2.500,+6.000]"), "\(plan.stdout)")           // the bed from 2.5 s
        #expect(plan.stdout.contains("trackID 2 volume 0.50 at 0.000"), "\(plan.stdout)")           // the clip at -6 dB
        #expect(plan.stdout.contains("under the recipe's windows"), "\(plan.stdout)")
        #expect(plan.stdout.contains("1 stretch [2.000,+2.000]"), "\(plan.stdout)")
        #expect(plan.stdout.contains("ramp [1.500,+0.500] 1.00 -> 0.25") && plan.stdout.contains("ramp [4.000,+0.500] 0.25 -> 1.00"),
                "\(plan.stdout)")
    }

    /// Music shorter than the clip without `loop` ends in silence (not an error); a
    /// missing or undecodable music file is an error naming it.
    @Test func shortMissingAndBrokenMusic() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Self.makeClip(dir, seconds: 3, audio: "0")
        try Self.makeMusic(dir, "short.wav", seconds: 1, expression: "0.5*sin(2*PI*200*t)")
        let short = try Fixtures.makeFile(in: dir.path, name: "short.yaml", contents: "version: 1\nmusic: { source: short.wav }\n")
        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", short, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
        let samples = try DecodedMedia.monoSamples(of: output)
        #expect(abs(samples.count - 3 * 48_000) <= 1024)
        #expect(DecodedMedia.rmsDecibels(samples, 9_600..<43_200) > -12, "music plays in its second")
        #expect(DecodedMedia.rmsDecibels(samples, 57_600..<139_200) < -70, "silence after the music ends")

        let missing = try Fixtures.makeFile(in: dir.path, name: "missing.yaml", contents: "version: 1\nmusic: { source: gone.mp3 }\n")
        let noFile = try await DropcutProcess.run(["render", "--recipe", missing, "--output", dir.file("x.mp4"), clip])
        #expect(noFile.status == 1 && noFile.stderr.contains("gone.mp3"), "\(noFile.stderr)")
        _ = try Fixtures.makeFile(in: dir.path, name: "broken.mp3", contents: "this is not audio")
        let brokenRecipe = try Fixtures.makeFile(in: dir.path, name: "broken.yaml", contents: "version: 1\nmusic: { source: broken.mp3 }\n")
        let bad = try await DropcutProcess.run(["render", "--recipe", brokenRecipe, "--output", dir.file("y.mp4"), clip])
        // The recipe's error, at the line naming the file as the recipe does.
        #expect(bad.status == 1 && bad.stderr.contains("broken.yaml:2:8: music.source broken.mp3: "), "\(bad.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("x.mp4") || $0.contains("y.mp4") }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    // MARK: Fixtures and measurements

    private static func makeClip(_ dir: TemporaryDirectory, seconds: Int, audio expression: String) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: "clip.mp4", seconds: Double(seconds),
                                   video: "testsrc2=size=160x120:rate=30:duration=\(seconds)",
                                   audio: "aevalsrc=\(expression):s=48000:d=\(seconds)")
    }

    @discardableResult
    private static func makeMusic(_ dir: TemporaryDirectory, _ name: String, seconds: Int, expression: String) throws -> String {
        try Fixtures.makeGenerated(in: dir.path, name: name, seconds: Double(seconds), audio: "aevalsrc=\(expression):s=48000:d=\(seconds)")
    }

    /// The level (dBFS RMS of a sine) of `frequency` in 20 ms windows every 5 ms: one DFT
    /// bin over whole periods, so a 1 kHz tone does not leak into 200 Hz.
    private static func bandLevels(of path: String, frequency: Double) throws -> [(time: Double, level: Double)] {
        let samples = try DecodedMedia.monoSamples(of: path)
        let length = 960, hop = 240
        var levels: [(time: Double, level: Double)] = []
        var start = 0
        while start + length <= samples.count {
            var re = 0.0, im = 0.0
            for i in 0..<length {
                let phase = 2 * Double.pi * frequency * Double(i) / 48_000
                re += Double(samples[start + i]) * cos(phase)
                im += Double(samples[start + i]) * sin(phase)
            }
            let amplitude = 2 * (re * re + im * im).squareRoot() / Double(length)
            levels.append((Double(start + length / 2) / 48_000, 20 * log10(max(amplitude, 1e-9) / sqrt(2.0))))
            start += hop
        }
        return levels
    }
}
