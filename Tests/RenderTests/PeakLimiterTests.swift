import Foundation
import Testing
@testable import DropcutRender

/// The final-mix limiter: bit-transparent below the ceiling, never above it, a smooth
/// gain that is down in time for a peak, and a release that gives the level back.
@Suite struct PeakLimiterTests {
    static let rate = 48_000
    /// −1 dBFS.
    static let ceiling = Float(pow(10, -1.0 / 20))

    /// `input` (planar) through a fresh limiter in blocks cycling through `blocks`, plus
    /// `delay` zeros to drain it; returns the output (planar, `delay` samples longer)
    /// and the delay.
    static func limit(_ input: [[Float]], blocks: [Int] = [1, 17, 1024, 333],
                      release: Double = 0.1) -> (output: [[Float]], delay: Int) {
        let maximumBlock = blocks.max()!
        let limiter = PeakLimiter(channels: input.count, sampleRate: rate, ceiling: ceiling,
                                  release: release, maximumBlock: maximumBlock)
        let delay = limiter.delay
        let total = input[0].count + delay
        let buffers = input.map { channel in
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: total)
            buffer.initialize(repeating: 0, count: total)
            buffer.update(from: channel, count: channel.count)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        var done = 0, b = 0
        while done < total {
            let n = min(blocks[b % blocks.count], total - done)
            limiter.process(count: n) { buffers[$0] + done }
            done += n
            b += 1
        }
        return (buffers.map { Array(UnsafeBufferPointer(start: $0, count: total)) }, delay)
    }

    static func sine(_ frequency: Double, amplitude: Double, count: Int, phase: Double = 0) -> [Float] {
        (0..<count).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate) + phase)) }
    }

    static func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    @Test func belowTheCeilingTheOutputIsTheDelayedInputBitForBit() {
        let amplitude = pow(10, -6.0 / 20)
        let input = [Self.sine(440, amplitude: amplitude, count: 24_000),
                     Self.sine(440, amplitude: amplitude, count: 24_000, phase: 1)]
        let (output, delay) = Self.limit(input)
        #expect(delay == 240)
        for c in 0..<2 {
            #expect(output[c][0..<delay].allSatisfy { $0 == 0 })
            #expect((0..<input[c].count).allSatisfy { output[c][$0 + delay] == input[c][$0] }, "channel \(c)")
        }
    }

    @Test func twoFullScaleSinesStayUnderTheCeilingWithoutClicks() {
        let count = Self.rate  // 1 s
        let sum = zip(Self.sine(440, amplitude: 1, count: count), Self.sine(200, amplitude: 1, count: count)).map { $0 + $1 }
        let input = [sum, sum.map { -$0 }]
        let (output, delay) = Self.limit(input)
        let inputPeak = sum.map(abs).max()!
        #expect(inputPeak > 1.9)
        for c in 0..<2 { #expect(output[c].allSatisfy { abs($0) <= Self.ceiling }, "channel \(c)") }

        // Steady part (after 100 ms): every 25 ms period (the pattern repeats at 40 Hz)
        // peaks at the ceiling (within 0.01 dB): limited, not pumped down further.
        let period = Self.rate / 40
        for start in stride(from: Self.rate / 10 + delay, to: count + delay - period, by: period) {
            let peak = output[0][start..<start + period].map(abs).max()!
            #expect(Self.decibels(peak / Self.ceiling) > -0.01, "period at \(start): \(Self.decibels(peak))")
        }

        // No clicks: the output's steepest step, from the first sample on, is no steeper
        // than the input's (the gain's own movement adds only a little).
        let steepestIn = zip(sum.dropFirst(), sum).map { abs($0 - $1) }.max()!
        let steepestOut = zip(output[0].dropFirst(), output[0]).map { abs($0 - $1) }.max()!
        #expect(steepestOut <= 1.1 * steepestIn, "steepest step \(steepestOut) vs input \(steepestIn)")
    }

    @Test func aSpikeIsCaughtAndTheGainComesBack() {
        let count = Self.rate * 3 / 2  // 1.5 s
        var noise = UInt32(12345)
        var input = (0..<count).map { _ -> Float in
            noise = noise &* 1_664_525 &+ 1_013_904_223
            return 0.001 * (Float(noise >> 8) / Float(1 << 24) - 0.5)
        }
        let spike = Self.rate / 10
        input[spike] = 4
        // A steady −6 dBFS tone from 50 ms after the spike on, to measure the gain by.
        let toneStart = spike + Self.rate / 20
        let tone = Self.sine(1000, amplitude: 0.5, count: count - toneStart)
        for i in 0..<tone.count { input[toneStart + i] += tone[i] }

        let (output, delay) = Self.limit([input])
        #expect(output[0].allSatisfy { abs($0) <= Self.ceiling })
        #expect(abs(output[0][spike + delay]) <= Self.ceiling)
        #expect(output[0][spike + delay] > 0.99 * Self.ceiling)  // limited, not muted

        func gain(at sample: Int) -> Float {
            let range = sample ..< sample + Self.rate / 100  // 10 ms
            let outputEnergy = range.reduce(0) { $0 + Double(output[0][$1 + delay] * output[0][$1 + delay]) }
            let inputEnergy = range.reduce(0) { $0 + Double(input[$1] * input[$1]) }
            return Float((outputEnergy / inputEnergy).squareRoot())
        }
        // Still pulled down 50 ms after, within 0.1 dB of unity 200 ms after.
        #expect(Self.decibels(gain(at: toneStart)) < -1)
        let after200 = Self.decibels(gain(at: spike + Self.rate / 5))
        #expect(after200 > -0.1 && after200 <= 0, "gain 200 ms after the spike: \(after200) dB")
        // Once the release has run out the output is bit-exact again.
        let recovered = spike + Self.rate
        let exact = (recovered..<count).allSatisfy { output[0][$0 + delay] == input[$0] }
        #expect(exact, "output differs from the delayed input 1 s after the spike")
    }

    @Test func theGainIsDownByTheFirstLoudSampleAndFallsSmoothlyBeforeIt() {
        // A DC step from −20 dBFS to +6 dBFS: the first loud sample is already the peak.
        let step = 4800, count = 9600
        let loud = Float(pow(10, 6.0 / 20))
        let input = (0..<count).map { $0 < step ? Float(0.1) : loud }
        let (output, delay) = Self.limit([input], blocks: [64, 1, 511])
        let out = output[0]
        #expect(out.allSatisfy { $0 <= Self.ceiling })
        // The step's first sample comes out at the ceiling: the gain is at its minimum.
        #expect(out[step + delay] <= Self.ceiling)
        #expect(out[step + delay] >= Self.ceiling.nextDown.nextDown)
        // Untouched until the lookahead sees the step...
        #expect((0..<(step - delay)).allSatisfy { out[$0 + delay] == input[$0] })
        // ...then the gain falls monotonically over the lookahead, without a jump.
        let gains = (step - delay ... step).map { out[$0 + delay] / input[$0] }
        #expect(zip(gains.dropFirst(), gains).allSatisfy { $0 <= $1 })
        let largestFall = zip(gains.dropFirst(), gains).map { $1 - $0 }.max()!
        #expect(largestFall < 2 * (1 - Self.ceiling / loud) / Float(delay))
    }

    @Test func loudNoiseInUnevenBlocksNeverPassesTheCeiling() {
        // White noise under an envelope wandering between silence and +18 dBFS, the
        // channels independent, in block sizes that never line up with the lookahead.
        var state = UInt64(0x9E37_79B9_7F4A_7C15)
        func random() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        let count = Self.rate / 2
        let input = (0..<2).map { c in
            (0..<count).map { i -> Float in
                let envelope = 4 - 4 * cos(2 * Double.pi * Double(3 + c) * Double(i) / Double(Self.rate))
                return Float(envelope) * 2 * (random() - 0.5)
            }
        }
        #expect(input.joined().map(abs).max()! > 4)
        let (output, _) = Self.limit(input, blocks: [239, 241, 7, 480, 1])
        for c in 0..<2 { #expect(output[c].allSatisfy { abs($0) <= Self.ceiling }, "channel \(c)") }
    }
}
