import Foundation

/// An integrated-loudness meter after ITU-R BS.1770-4 and EBU R128: K-weighting, 400 ms
/// gating blocks with 75 % overlap, an absolute gate at −70 LUFS and a relative gate
/// 10 LU below the loudness of the blocks passing the absolute gate.
///
/// Feed planar float samples in blocks of any size with `add(count:channel:)`, in order,
/// then read `integratedLoudness`. The result does not depend on how the samples were cut
/// into blocks.
///
/// **Channels.** Every channel has weight 1.0 (L, R and C in BS.1770), except for six
/// channels, taken as FFmpeg's 5.1 order (L, R, C, LFE, Ls, Rs): the LFE is left out
/// (weight 0) and the surrounds weigh 1.41 (+1.5 dB), as in libebur128 and FFmpeg.
///
/// **Timing.** A gating step is `(sampleRate + 5) / 10` samples (100 ms, rounded as
/// libebur128 does) and a gating block four steps. The first block ends after the fourth
/// step; a trailing partial step shorter than 100 ms never completes a block, so input
/// shorter than 400 ms measures nothing.
///
/// **Memory.** The filters and the per-channel running sums are allocated by `init`. Each
/// completed 400 ms block keeps one `Double` (its channel-weighted mean square), so a
/// measurement costs 80 bytes per second of audio (≈ 290 KB per hour), in an array sized
/// for ten minutes up front that grows geometrically beyond that. Keeping the exact block
/// powers, rather than a histogram of block loudness (libebur128's histogram mode: 0.1 LU
/// bins; FFmpeg's ebur128: 0.01 LU), makes both gates and the mean exact.
///
/// Not thread-safe: use one meter from one task at a time.
public final class LoudnessMeter {
    /// The number of channels `add` reads.
    public let channels: Int
    /// The sample rate the K-weighting filters were designed for, in Hz.
    public let sampleRate: Int

    /// Samples per 100 ms gating step.
    let stepLength: Int
    /// The K-weighting stages: the high-shelf pre-filter, then the RLB high-pass.
    let shelf: Biquad
    let highPass: Biquad
    /// The BS.1770 weight G_i of each channel.
    let weights: [Double]

    /// Per channel: the two filter states (four doubles) and the sum of squared K-weighted
    /// samples in the current step.
    private var states: [FilterState]
    private var stepSums: [Double]
    /// Samples of the current step seen so far, `0 ..< stepLength`.
    private var stepFill = 0
    /// The channel-weighted square sums Σ G_i Σ y² of the last three completed steps
    /// (oldest first), and how many steps have completed in all.
    private var recentSteps: (Double, Double, Double) = (0, 0, 0)
    private var completedSteps = 0
    /// The weighted mean square Σ G_i z_i of every completed 400 ms block, in order.
    private var blockPowers: [Double] = []

    /// A meter for `channels` planar channels at `sampleRate` Hz (8 kHz or more; the filters
    /// are designed for the rate from the analog prototypes, as libebur128 does).
    public init(channels: Int, sampleRate: Int) {
        precondition(channels > 0, "LoudnessMeter needs at least one channel")
        precondition(sampleRate >= 8000, "LoudnessMeter needs a sample rate of at least 8 kHz")
        self.channels = channels
        self.sampleRate = sampleRate
        stepLength = (sampleRate + 5) / 10
        (shelf, highPass) = Self.kWeighting(sampleRate: Double(sampleRate))
        weights = Self.channelWeights(channels)
        states = Array(repeating: FilterState(), count: channels)
        stepSums = Array(repeating: 0, count: channels)
        blockPowers.reserveCapacity(10 * 60 * 10)
    }

    /// Measures the next `count` samples of every channel: `channel(c)` returns the start of
    /// channel `c`'s `count` samples (planar float, nominally −1 … 1), asked once per channel
    /// and call. Allocates nothing, except when the block list outgrows its capacity.
    public func add(count: Int, channel: (Int) -> UnsafePointer<Float>) {
        guard count > 0 else { return }
        // The channel pointers, asked once; a temporary allocation lives on the stack.
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: channels) { bases in
            for c in 0..<channels { bases.initializeElement(at: c, to: channel(c)) }
            process(count: count) { bases[$0] }
        }
    }

    /// The integrated loudness in LUFS of everything added so far: −0.691 + 10 log10 of the
    /// mean power of the blocks passing both gates. Nil when no block passes (silence, or
    /// less than 400 ms of input). Costs one pass over the block list.
    public var integratedLoudness: Double? {
        let absoluteGate = Self.power(ofLoudness: -70)
        var sum = 0.0, count = 0
        for power in blockPowers where power > absoluteGate {
            sum += power
            count += 1
        }
        guard count > 0 else { return nil }
        let relativeGate = max(absoluteGate, Self.power(ofLoudness: Self.loudness(ofPower: sum / Double(count)) - 10))
        sum = 0
        count = 0
        for power in blockPowers where power > relativeGate {
            sum += power
            count += 1
        }
        guard count > 0 else { return nil }
        return Self.loudness(ofPower: sum / Double(count))
    }

    /// The linear gain that moves audio measured at `measured` LUFS to `target` LUFS
    /// (loudness scales with the square of the amplitude: +6.02 LU per doubling).
    public static func gain(toReach target: Double, from measured: Double) -> Double {
        pow(10, (target - measured) / 20)
    }

    // MARK: - Filtering and gating

    /// Filters `count` samples of every channel (`base(c)` is channel `c`'s first one),
    /// a step at a time.
    private func process(count: Int, base: (Int) -> UnsafePointer<Float>) {
        var done = 0
        while done < count {
            let chunk = min(count - done, stepLength - stepFill)
            for c in 0..<channels {
                var state = states[c]
                stepSums[c] += Self.filterSquares(base(c) + done, count: chunk, shelf: shelf, highPass: highPass, state: &state)
                state.flushTiny()
                states[c] = state
            }
            done += chunk
            stepFill += chunk
            if stepFill == stepLength { completeStep() }
        }
    }

    /// Runs `count` samples through the two biquads (transposed direct form II, in double)
    /// and returns the sum of the squared outputs.
    @inline(__always)
    private static func filterSquares(_ input: UnsafePointer<Float>, count: Int, shelf: Biquad, highPass: Biquad,
                                      state: inout FilterState) -> Double {
        var s1 = state.shelf1, s2 = state.shelf2, h1 = state.highPass1, h2 = state.highPass2
        var sum = 0.0
        for i in 0..<count {
            let x = Double(input[i])
            let y = shelf.b0 * x + s1
            s1 = shelf.b1 * x - shelf.a1 * y + s2
            s2 = shelf.b2 * x - shelf.a2 * y
            let z = highPass.b0 * y + h1
            h1 = highPass.b1 * y - highPass.a1 * z + h2
            h2 = highPass.b2 * y - highPass.a2 * z
            sum += z * z
        }
        state.shelf1 = s1
        state.shelf2 = s2
        state.highPass1 = h1
        state.highPass2 = h2
        return sum
    }

    /// Closes the current 100 ms step and, from the fourth step on, records the 400 ms block
    /// ending with it.
    private func completeStep() {
        var weighted = 0.0
        for c in 0..<channels {
            weighted += weights[c] * stepSums[c]
            stepSums[c] = 0
        }
        stepFill = 0
        completedSteps += 1
        if completedSteps >= 4 {
            let total = recentSteps.0 + recentSteps.1 + recentSteps.2 + weighted
            blockPowers.append(total / Double(4 * stepLength))
        }
        recentSteps = (recentSteps.1, recentSteps.2, weighted)
    }

    /// BS.1770 loudness of a weighted mean square.
    static func loudness(ofPower power: Double) -> Double {
        -0.691 + 10 * log10(power)
    }

    /// The weighted mean square with loudness `lufs`.
    static func power(ofLoudness lufs: Double) -> Double {
        pow(10, (lufs + 0.691) / 10)
    }

    // MARK: - Design

    /// One second-order section, normalized so a0 = 1.
    struct Biquad: Sendable, Equatable {
        var b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    }

    /// The delay-line state of one channel's two sections.
    private struct FilterState {
        var shelf1 = 0.0, shelf2 = 0.0, highPass1 = 0.0, highPass2 = 0.0

        /// Zeroes states decayed below −400 dB, so long silences never run on denormals.
        mutating func flushTiny() {
            let tiny = 1e-20
            if abs(shelf1) < tiny { shelf1 = 0 }
            if abs(shelf2) < tiny { shelf2 = 0 }
            if abs(highPass1) < tiny { highPass1 = 0 }
            if abs(highPass2) < tiny { highPass2 = 0 }
        }
    }

    /// The K-weighting sections at `sampleRate`, from the analog prototypes behind the
    /// BS.1770 48 kHz table (the constants libebur128 and FFmpeg use), bilinear-transformed
    /// with the corner frequency pre-warped:
    /// - pre-filter: a high shelf, f0 ≈ 1681.97 Hz, Q ≈ 0.7072, +4.0 dB;
    /// - RLB: a high-pass, f0 ≈ 38.135 Hz, Q ≈ 0.5003, numerator 1, −2, 1 as in the table.
    ///
    /// Like libebur128 and FFmpeg, the RLB numerator is not scaled by the rate's a0, so the
    /// section's pass-band gain is 1 + K/Q + K² (K = tan(π f0 / rate)): +0.043 dB at 48 kHz
    /// (which the −0.691 constant absorbs), +0.047 dB at 44.1 kHz, +0.022 dB at 96 kHz,
    /// +0.26 dB at 8 kHz. Readings of one signal at 44.1–96 kHz therefore differ from the
    /// 48 kHz one by at most ≈ 0.02 LU, exactly as theirs do.
    static func kWeighting(sampleRate: Double) -> (shelf: Biquad, highPass: Biquad) {
        var f0 = 1681.974450955533
        let gainDB = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / sampleRate)
        let vh = pow(10, gainDB / 20)
        let vb = pow(vh, 0.4996667741545416)
        var a0 = 1 + k / q + k * k
        let shelf = Biquad(b0: (vh + vb * k / q + k * k) / a0,
                           b1: 2 * (k * k - vh) / a0,
                           b2: (vh - vb * k / q + k * k) / a0,
                           a1: 2 * (k * k - 1) / a0,
                           a2: (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / sampleRate)
        a0 = 1 + k / q + k * k
        let highPass = Biquad(b0: 1, b1: -2, b2: 1,
                              a1: 2 * (k * k - 1) / a0,
                              a2: (1 - k / q + k * k) / a0)
        return (shelf, highPass)
    }

    /// The BS.1770 channel weights for `channels` channels (see the type's documentation).
    static func channelWeights(_ channels: Int) -> [Double] {
        guard channels == 6 else { return Array(repeating: 1, count: channels) }
        return [1, 1, 1, 0, 1.41, 1.41]
    }
}
