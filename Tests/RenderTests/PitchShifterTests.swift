import Foundation
import Testing
@testable import DropcutRender

/// The pitch shift on tones: the frequency moves by the ratio, the level and the length
/// stay, a harmonic pushed past Nyquist is filtered rather than folded back, and blocks of
/// any size give the same samples.
@Suite struct PitchShifterTests {
    static let rate = 48_000

    /// `count` samples of tones (`frequencies`, amplitude 0.4 each) shifted by `semitones`,
    /// produced in blocks cycling through `blocks`.
    static func shifted(_ frequencies: [Double], semitones: Double, count: Int, blocks: [Int] = [700, 1024, 33]) throws -> [Float] {
        let shifter = PitchShifter(channels: 2, sampleRate: rate, ratio: pow(2, semitones / 12), speed: 1, origin: 0,
                                   maximumBlock: 1024) { position, length, deliver in
            var samples = [Float](repeating: 0, count: length)
            for i in 0..<length {
                let t = Double(position + Int64(i)) / Double(rate)
                samples[i] = Float(frequencies.reduce(0.0) { $0 + 0.4 * sin(2 * Double.pi * $1 * t) })
            }
            samples.withUnsafeBufferPointer { buffer in
                for channel in 0..<2 { deliver(channel, 0, buffer.baseAddress!, length) }
            }
        }
        var output = [Float](repeating: .nan, count: count)
        var done = 0, k = 0
        while done < count {
            let n = min(blocks[k % blocks.count], count - done)
            var delivered = 0
            try shifter.produce(n) { channel, offset, samples, length in
                if channel == 1 { return }
                for i in 0..<length { output[done + offset + i] = samples[i] }
                delivered += length
            }
            #expect(delivered == n, "a block of \(n) gives \(n) samples")
            done += n
            k += 1
        }
        return output
    }

    static func level(_ samples: [Float], _ frequency: Double, from: Int, to: Int) -> Double {
        var re = 0.0, im = 0.0, weights = 0.0
        for i in from..<to {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i - from) / Double(to - from - 1))
            let phase = 2 * Double.pi * frequency * Double(i) / Double(rate)
            re += Double(samples[i]) * w * cos(phase)
            im += Double(samples[i]) * w * sin(phase)
            weights += w
        }
        return 20 * log10(max(2 * (re * re + im * im).squareRoot() / weights, 1e-12))
    }

    @Test(arguments: [12.0, -12.0, 7.0, -5.0, 1.0, 0.5])
    func frequencyMovesByTheRatioLevelAndLengthStay(semitones: Double) throws {
        let output = try Self.shifted([440], semitones: semitones, count: Self.rate)
        #expect(output.allSatisfy { $0.isFinite }, "every sample written")
        let expected = 440 * pow(2, semitones / 12)
        // A second of output, measured past the start-up of the filter and the stretch.
        let shiftedLevel = Self.level(output, expected, from: 4_800, to: 48_000)
        let originalLevel = Self.level(output, 440, from: 4_800, to: 48_000)
        #expect(abs(shiftedLevel - 20 * log10(0.4)) < 1, "\(semitones): \(shiftedLevel) dB at \(expected) Hz")
        #expect(originalLevel < shiftedLevel - 30, "\(semitones): 440 Hz left at \(originalLevel) dB")
        // The frequency by zero crossings, within 0.5 %.
        var crossings: [Double] = []
        for i in 4_800..<47_999 where output[i] < 0 && output[i + 1] >= 0 {
            crossings.append(Double(i) + Double(output[i] / (output[i] - output[i + 1])))
        }
        let measured = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(Self.rate))
        print("pitch \(semitones): \(measured) Hz (expected \(expected)), \(shiftedLevel) dB, 440 Hz left \(originalLevel) dB")
        #expect(abs(measured - expected) < expected / 200, "\(semitones): \(measured) Hz, expected \(expected)")
    }

    /// An octave up, a 15 kHz harmonic would land at 30 kHz, past the 24 kHz Nyquist:
    /// filtered, it does not fold back to 18 kHz.
    @Test func harmonicsPastNyquistAreFilteredNotFolded() throws {
        let output = try Self.shifted([1000, 15_000], semitones: 12, count: Self.rate / 2)
        let fundamental = Self.level(output, 2000, from: 4_800, to: 24_000)
        let folded = Self.level(output, 18_000, from: 4_800, to: 24_000)
        #expect(abs(fundamental - 20 * log10(0.4)) < 1, "\(fundamental) dB at 2 kHz")
        print("octave up of 1 kHz + 15 kHz: 2 kHz at \(fundamental) dB, 18 kHz alias at \(folded) dB")
        #expect(folded < fundamental - 40, "alias at 18 kHz: \(folded) dB")
    }

    @Test func blockSizesDoNotChangeTheSamples() throws {
        let a = try Self.shifted([440, 1230], semitones: 5, count: 20_000, blocks: [1024])
        let b = try Self.shifted([440, 1230], semitones: 5, count: 20_000, blocks: [1, 17, 1000, 333])
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(a.count == b.count && differing == 0, "\(differing) samples differ")
    }
}
