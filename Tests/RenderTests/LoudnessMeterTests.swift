import Foundation
import Testing
import TestSupport
@testable import DropcutRender

/// The BS.1770 / R128 integrated loudness meter against the ITU coefficient table, the EBU
/// Tech 3341 sine cases, and the `ffmpeg` CLI's own `ebur128` filter as the oracle.
@Suite struct LoudnessMeterTests {
    // MARK: - Helpers

    /// Feeds planar `samples` to a fresh meter in blocks of `block` samples (the last one
    /// shorter) and returns its integrated loudness.
    static func measure(_ samples: [[Float]], sampleRate: Int, block: Int = 4096) -> Double? {
        measure(samples, sampleRate: sampleRate, blocks: [block])
    }

    /// Like `measure(_:sampleRate:block:)`, cycling through the block sizes `blocks`.
    static func measure(_ samples: [[Float]], sampleRate: Int, blocks: [Int]) -> Double? {
        let meter = LoudnessMeter(channels: samples.count, sampleRate: sampleRate)
        let length = samples[0].count
        var done = 0, turn = 0
        while done < length {
            let n = min(blocks[turn % blocks.count], length - done)
            withPlanarPointers(samples, offset: done) { pointers in
                meter.add(count: n) { pointers[$0] }
            }
            done += n
            turn += 1
        }
        return meter.integratedLoudness
    }

    /// Calls `body` with a pointer to sample `offset` of every channel.
    static func withPlanarPointers<R>(_ samples: [[Float]], offset: Int, _ body: ([UnsafePointer<Float>]) -> R) -> R {
        func nest(_ c: Int, _ collected: [UnsafePointer<Float>]) -> R {
            guard c < samples.count else { return body(collected) }
            return samples[c].withUnsafeBufferPointer { nest(c + 1, collected + [$0.baseAddress! + offset]) }
        }
        return nest(0, [])
    }

    /// `seconds` of a sine at `frequency` Hz with peak `amplitude`, in every one of `channels`.
    static func sine(frequency: Double, amplitude: Double, seconds: Double, sampleRate: Int, channels: Int = 2) -> [[Float]] {
        let count = Int(seconds * Double(sampleRate))
        let wave = (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
        return Array(repeating: wave, count: channels)
    }

    /// Renders the lavfi source graph `source` with the `ffmpeg` CLI to a float WAV in `dir`.
    static func render(_ source: String, named name: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("\(name).wav")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", source, "-c:a", "pcm_f32le", path])
        return path
    }

    /// `path`'s audio decoded by `ffmpeg` to interleaved f32le, split into planar channels.
    static func planarSamples(of path: String, channels: Int, in dir: TemporaryDirectory) throws -> [[Float]] {
        let raw = dir.file(UUID().uuidString + ".raw")
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", path,
                                          "-map", "0:a:0", "-c:a", "pcm_f32le", "-f", "f32le", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let interleaved: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let frames = interleaved.count / channels
        return (0..<channels).map { c in (0..<frames).map { interleaved[$0 * channels + c] } }
    }

    /// FFmpeg's integrated loudness of `path` (`ebur128` filter, "I: -xx.x LUFS" in the
    /// summary it logs at the end; frame lines go to the verbose level, which is not shown).
    static func oracle(_ path: String) throws -> Double {
        let arguments = ["-hide_banner", "-nostdin", "-nostats", "-i", path, "-af", "ebur128=framelog=verbose", "-f", "null", "-"]
        let result = try Command.run("ffmpeg", arguments)
        guard result.status == 0 else {
            throw CommandError(command: ["ffmpeg"] + arguments, status: result.status, stderr: result.stderr)
        }
        let summary = result.stderr.components(separatedBy: "Integrated loudness:").last ?? ""
        let value = summary.split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("I:") }
            .flatMap { Double($0.dropFirst(2).replacingOccurrences(of: "LUFS", with: "").trimmingCharacters(in: .whitespaces)) }
        guard let value else {
            throw CommandError(command: ["ffmpeg"] + arguments, status: result.status, stderr: "no integrated loudness in:\n" + result.stderr)
        }
        return value
    }

    // MARK: - Filter design

    /// At 48 kHz the designed sections reproduce the BS.1770-4 coefficient table.
    @Test func kWeightingMatchesTheITUTableAt48kHz() {
        let (shelf, highPass) = LoudnessMeter.kWeighting(sampleRate: 48_000)
        let table: [(Double, Double)] = [
            (shelf.b0, 1.53512485958697), (shelf.b1, -2.69169618940638), (shelf.b2, 1.19839281085285),
            (shelf.a1, -1.69065929318241), (shelf.a2, 0.73248077421585),
            (highPass.b0, 1), (highPass.b1, -2), (highPass.b2, 1),
            (highPass.a1, -1.99004745483398), (highPass.a2, 0.99007225036621),
        ]
        for (designed, tabulated) in table {
            #expect(abs(designed - tabulated) < 1e-8, "designed \(designed), table \(tabulated)")
        }
    }

    /// A tone measures the same at 44.1, 48 and 96 kHz, across the high-pass, the shelf's
    /// slope and its plateau: the sections are designed for each rate, not copied.
    ///
    /// One known offset is allowed for: like libebur128 and FFmpeg, the RLB numerator stays
    /// 1, −2, 1 at every rate, so its pass-band gain (1.0050 at 48 kHz, 1.0025 at 96 kHz,
    /// 1.0054 at 44.1 kHz) moves the whole reading by up to 0.02 dB between rates.
    @Test(arguments: [25.0, 60.0, 1000.0, 1700.0, 3000.0, 8000.0])
    func weightingDoesNotDependOnTheSampleRate(frequency: Double) throws {
        func passBandGainDB(_ rate: Int) -> Double {
            let highPass = LoudnessMeter.kWeighting(sampleRate: Double(rate)).highPass
            return 20 * log10((highPass.b0 - highPass.b1 + highPass.b2) / (1 - highPass.a1 + highPass.a2))
        }
        let at48 = try #require(Self.measure(Self.sine(frequency: frequency, amplitude: 0.25, seconds: 1, sampleRate: 48_000), sampleRate: 48_000))
        for rate in [44_100, 96_000] {
            let other = try #require(Self.measure(Self.sine(frequency: frequency, amplitude: 0.25, seconds: 1, sampleRate: rate), sampleRate: rate))
            let offset = passBandGainDB(rate) - passBandGainDB(48_000)
            #expect(abs(offset) < 0.025)
            #expect(abs(other - offset - at48) < 0.01,
                    "\(frequency) Hz: \(other) LUFS at \(rate) Hz (RLB offset \(offset)), \(at48) at 48 kHz")
        }
    }

    // MARK: - Reference levels

    /// EBU Tech 3341 cases 1 and 2: a stereo 1 kHz sine with peaks at −23 / −33 dBFS reads
    /// −23.0 / −33.0 LUFS (±0.1 allowed there; well within that here), at 48 and 44.1 kHz.
    @Test(arguments: [(-23.0, 48_000), (-33.0, 48_000), (-23.0, 44_100)])
    func tech3341Sines(level: Double, sampleRate: Int) throws {
        let samples = Self.sine(frequency: 1000, amplitude: pow(10, level / 20), seconds: 5, sampleRate: sampleRate)
        let loudness = try #require(Self.measure(samples, sampleRate: sampleRate))
        #expect(abs(loudness - level) < 0.02, "\(loudness) LUFS for a \(level) dBFS stereo sine at \(sampleRate) Hz")
    }

    // MARK: - Against FFmpeg

    /// lavfi sources measured here and by FFmpeg's ebur128 filter: within ±0.1 LU (FFmpeg
    /// prints one decimal and keeps a 0.01 LU histogram).
    static let oracleCases: [(name: String, channels: Int, sampleRate: Int, source: String)] = [
        ("sine-20dBFS-stereo-48k", 2, 48_000, "aevalsrc=exprs='0.1*sin(2*PI*1000*t)|0.1*sin(2*PI*1000*t)':s=48000:d=3"),
        ("pink-mono-48k", 1, 48_000, "anoisesrc=color=pink:amplitude=0.5:r=48000:d=3:seed=7"),
        ("loud-then-quiet-stereo-48k", 2, 48_000,
         "aevalsrc=exprs='if(lt(t,2),0.5,0.02)*sin(2*PI*440*t)|if(lt(t,2),0.5,0.02)*sin(2*PI*550*t)':s=48000:d=4"),
        ("white-brown-stereo-44k1", 2, 44_100,
         "anoisesrc=color=white:amplitude=0.3:r=44100:d=3:seed=1[a];anoisesrc=color=brown:amplitude=0.5:r=44100:d=3:seed=2[b];[a][b]amerge=inputs=2[out0]"),
        ("pink-stereo-96k", 2, 96_000,
         "anoisesrc=color=pink:amplitude=0.4:r=96000:d=2:seed=3[a];anoisesrc=color=pink:amplitude=0.2:r=96000:d=2:seed=4[b];[a][b]amerge=inputs=2[out0]"),
    ]

    @Test(arguments: 0..<oracleCases.count)
    func agreesWithFFmpeg(index: Int) throws {
        let testCase = Self.oracleCases[index]
        let dir = try TemporaryDirectory(prefix: "dropcut-loudness")
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.render(testCase.source, named: testCase.name, in: dir)
        let samples = try Self.planarSamples(of: path, channels: testCase.channels, in: dir)
        #expect(samples[0].count > testCase.sampleRate)
        let measured = try #require(Self.measure(samples, sampleRate: testCase.sampleRate))
        let expected = try Self.oracle(path)
        #expect(abs(measured - expected) <= 0.1, "\(testCase.name): measured \(measured) LUFS, ffmpeg \(expected) LUFS")
    }

    // MARK: - Gating

    /// Two seconds loud, two seconds 28 dB quieter: the quiet half is below the relative gate,
    /// so the whole reads about like the loud half alone, not 3 LU below it.
    @Test func relativeGateDropsTheQuietHalf() throws {
        let rate = 48_000
        let loud = Self.sine(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: rate)
        let quiet = Self.sine(frequency: 440, amplitude: 0.02, seconds: 2, sampleRate: rate)
        let whole = zip(loud, quiet).map { $0 + $1 }
        let loudAlone = try #require(Self.measure(loud, sampleRate: rate))
        let quietAlone = try #require(Self.measure(quiet, sampleRate: rate))
        let together = try #require(Self.measure(whole, sampleRate: rate))
        #expect(abs(quietAlone - (loudAlone + 20 * log10(0.02 / 0.5))) < 0.01)
        // 17 blocks lie in the loud half; the three straddling the switch hold 3/4, 1/2 and 1/4
        // of its power and pass the gate too; the 17 quiet ones (−28 LU) are gated out.
        let expected = loudAlone + 10 * log10((17 + 0.75 + 0.5 + 0.25) / 20)
        #expect(abs(together - expected) < 0.01, "together \(together), expected \(expected)")
        // Averaging every block instead would land about 3 LU below the loud half.
        #expect(loudAlone - together < 0.5)
    }

    /// A quiet passage above the relative gate (−6 LU) counts: the result drops below the
    /// loud part's level.
    @Test func passagesAboveTheRelativeGateCount() throws {
        let rate = 48_000
        let loud = Self.sine(frequency: 440, amplitude: 0.5, seconds: 2, sampleRate: rate)
        let softer = Self.sine(frequency: 440, amplitude: 0.5 * pow(10, -6.0 / 20), seconds: 2, sampleRate: rate)
        let loudAlone = try #require(Self.measure(loud, sampleRate: rate))
        let together = try #require(Self.measure(zip(loud, softer).map { $0 + $1 }, sampleRate: rate))
        // All 37 blocks pass; with the straddling ones the mean power is exactly that of equal
        // parts at 0 and −6 dB: 10·log10((1 + 0.251) / 2) ≈ −2.04 LU.
        #expect(abs(together - (loudAlone + 10 * log10((1 + pow(10, -0.6)) / 2))) < 0.01, "together \(together), loud \(loudAlone)")
    }

    /// Digital silence, a signal under the −70 LUFS absolute gate and input shorter than one
    /// 400 ms block measure nothing.
    @Test func silenceAndTooLittleInputAreNil() {
        let rate = 48_000
        #expect(Self.measure(Array(repeating: [Float](repeating: 0, count: rate * 2), count: 2), sampleRate: rate) == nil)
        #expect(Self.measure(Self.sine(frequency: 1000, amplitude: pow(10, -80.0 / 20), seconds: 2, sampleRate: rate), sampleRate: rate) == nil)
        #expect(Self.measure(Self.sine(frequency: 1000, amplitude: 0.5, seconds: 0.39, sampleRate: rate), sampleRate: rate) == nil)
        #expect(LoudnessMeter(channels: 1, sampleRate: rate).integratedLoudness == nil)
    }

    // MARK: - Streaming

    /// Cutting the input into 1-, 7- or 4096-sample blocks, or uneven ones, gives the same
    /// loudness to 1e-6 LU.
    @Test func blockSizeDoesNotMatter() throws {
        let rate = 48_000
        let dir = try TemporaryDirectory(prefix: "dropcut-loudness")
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.render(
            "anoisesrc=color=pink:amplitude=0.4:r=48000:d=2:seed=11[a];anoisesrc=color=white:amplitude=0.1:r=48000:d=2:seed=12[b];[a][b]amerge=inputs=2[out0]",
            named: "blocks", in: dir)
        let samples = try Self.planarSamples(of: path, channels: 2, in: dir)
        let reference = try #require(Self.measure(samples, sampleRate: rate, block: 4096))
        for blocks in [[1], [7], [4800], [4799, 1, 9600, 13, 2400]] {
            let value = try #require(Self.measure(samples, sampleRate: rate, blocks: blocks))
            #expect(abs(value - reference) < 1e-6, "blocks \(blocks): \(value) vs \(reference)")
        }
    }

    // MARK: - Normalization gain

    /// The gain moves a measurement to the target: 6 LU down is half the amplitude, and the
    /// scaled signal measures at the target.
    @Test func gainReachesTheTarget() throws {
        #expect(abs(LoudnessMeter.gain(toReach: -23, from: -17) - pow(10, -6.0 / 20)) < 1e-12)
        #expect(LoudnessMeter.gain(toReach: -16, from: -16) == 1)
        let rate = 48_000
        let samples = Self.sine(frequency: 700, amplitude: 0.3, seconds: 2, sampleRate: rate)
        let measured = try #require(Self.measure(samples, sampleRate: rate))
        let gain = Float(LoudnessMeter.gain(toReach: -23, from: measured))
        let scaled = try #require(Self.measure(samples.map { $0.map { $0 * gain } }, sampleRate: rate))
        #expect(abs(scaled - -23) < 1e-3, "scaled to \(scaled) LUFS")
    }
}
