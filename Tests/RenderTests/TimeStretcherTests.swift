import Foundation
import Testing
@testable import DropcutRender

/// WSOLA on a pure tone: the pitch stays, the level stays, and the joins do not click,
/// at speeds from a quarter to double.
@Suite struct TimeStretcherTests {
    static let rate = 48_000

    /// `count` output samples of a 440 Hz tone (amplitude 0.5) stretched at `speed`,
    /// produced in uneven blocks as the mixer asks for them.
    static func stretchedTone(speed: Double, count: Int) throws -> [Float] {
        let stretcher = TimeStretcher(channels: 2, sampleRate: rate, speed: speed, origin: 1000) { position, length, deliver in
            var samples = [Float](repeating: 0, count: length)
            for i in 0..<length { samples[i] = 0.5 * Float(sin(2 * Double.pi * 440 * Double(position + Int64(i)) / Double(rate))) }
            samples.withUnsafeBufferPointer { buffer in
                for channel in 0..<2 { deliver(channel, 0, buffer.baseAddress!, length) }
            }
        }
        var output = [Float](repeating: 0, count: count)
        var done = 0, block = 700
        while done < count {
            let n = min(block, count - done)
            try stretcher.produce(n) { channel, offset, samples, length in
                guard channel == 0 else { return }
                for i in 0..<length { output[done + offset + i] = samples[i] }
            }
            done += n
            block = block == 700 ? 1024 : 700
        }
        #expect(stretcher.produced == Int64(count))
        return output
    }

    @Test(arguments: [0.25, 0.5, 0.8, 2.0])
    func pitchAndLevelStayAndJoinsAreSmooth(speed: Double) throws {
        let output = try Self.stretchedTone(speed: speed, count: Self.rate * 6 / 5)
        // From the very first sample: frame -1 is overlapped in, so there is no fade-in.
        let steady = output
        let opening = (output[0..<960].reduce(0.0) { $0 + Double($1 * $1) } / 960).squareRoot()
        #expect(abs(20 * log10(opening / (0.5 / 2.0.squareRoot()))) < 1.5, "speed \(speed): first 20 ms at \(20 * log10(opening / (0.5 / 2.0.squareRoot()))) dB")
        var crossings = 0
        for i in 1..<steady.count where steady[i - 1] < 0 && steady[i] >= 0 { crossings += 1 }
        let frequency = Double(crossings) / (Double(steady.count) / Double(Self.rate))
        #expect(abs(frequency - 440) < 3, "speed \(speed): \(frequency) Hz")
        let rms = (steady.reduce(0.0) { $0 + Double($1 * $1) } / Double(steady.count)).squareRoot()
        let sourceRMS = 0.5 / 2.0.squareRoot()
        #expect(abs(20 * log10(rms / sourceRMS)) < 1, "speed \(speed): level \(20 * log10(rms / sourceRMS)) dB")
        // A click is a jump far steeper than the tone ever moves (0.5 · 2π · 440 / 48000 per sample).
        let steepest = zip(steady, steady.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        #expect(steepest < 2 * 0.5 * Float(2 * Double.pi * 440 / Double(Self.rate)), "speed \(speed): jump \(steepest)")
    }
}
