import Foundation

/// A transparent lookahead peak limiter for the final mix: it keeps every output sample
/// at or below `ceiling` (in absolute value, on every channel) by a gain shared by all
/// channels, and leaves the sound untouched where nothing needs limiting.
///
/// How the gain is found, per sample `n` (all channels at once):
/// 1. the gain sample `n` needs, `g[n] = min(1, ceiling / max over channels |x[n]|)`,
///    nudged down by an ulp where rounding would let `|x| · g` exceed the ceiling;
/// 2. the minimum of `g` over the lookahead window `n − delay ... n` (a monotonic deque,
///    O(1) amortized), so the gain already sits at a peak's need `delay` samples before it;
/// 3. an exponential release upward toward that minimum (downward moves are instant);
/// 4. a moving average over the same `delay + 1` samples, which turns step 2's sudden
///    drop into a linear fade over the lookahead and still reaches the minimum exactly
///    on the peak: every value averaged for output sample `n − delay` is at most
///    `g[n − delay]`. (It is also clamped to `g[n − delay]`, against rounding.)
///
/// So the output never exceeds the ceiling, the gain falls smoothly over the lookahead
/// before a peak and recovers after it. Where no sample within reach exceeds the ceiling
/// the gain is exactly 1.0 and the output is bit-identical to the delayed input.
///
/// Streaming: `process` works in place on planar blocks of any size up to
/// `maximumBlock`. The output is the input delayed by `delay` samples: output sample
/// `i` of the whole stream is (limited) input sample `i − delay`, the first `delay`
/// output samples being silence. A caller that wants the output aligned with its
/// timeline runs `delay` samples ahead and drops the first `delay` output samples; at
/// the end, feeding `delay` more samples of silence (zeros) drains the last real
/// samples out. Nothing is allocated after `init`.
final class PeakLimiter {
    let channels: Int
    let sampleRate: Int
    /// The largest absolute value an output sample may have (linear: −1 dBFS ≈ 0.891).
    let ceiling: Float
    /// The largest block `process` takes.
    let maximumBlock: Int
    /// Samples between input and output (the lookahead, at least 1): what goes in as
    /// sample `i` comes out as sample `i + delay`.
    let delay: Int

    /// Samples in the lookahead window and in the averaging window: `delay + 1`.
    private let window: Int
    /// Per sample, the release keeps this share of the distance to its target.
    private let releaseCoefficient: Double
    /// Samples processed so far (the deque's clock).
    private var position = 0

    // The delay line, `delay` samples per channel (channel-major), and each delayed
    // sample's own needed gain; `cursor` is where the oldest sample (the next to come
    // out) sits in both.
    private let history: UnsafeMutablePointer<Float>
    private let neededHistory: UnsafeMutablePointer<Float>
    private var cursor = 0

    // Sliding minimum of the needed gain over the last `window` samples: a ring of
    // (sample, gain) with gains increasing from front to back.
    private let dequeGains: UnsafeMutablePointer<Float>
    private let dequeSamples: UnsafeMutablePointer<Int>
    private let dequeCapacity: Int
    private var dequeFront = 0, dequeCount = 0

    /// The released gain (step 3), in double precision: a float release creeping up on 1
    /// would round back to where it was long before it got there.
    private var released: Double = 1

    // The moving average (step 4): the last `window` released gains, their sum, and how
    // many of them are below 1 (none: the gain is exactly 1, without rounding).
    private let held: UnsafeMutablePointer<Float>
    private var heldCursor = 0
    private var heldSum: Double
    private var heldReduced = 0

    /// Where `process` keeps the block's channel pointers.
    private let channelPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

    /// A limiter for `channels` channels at `sampleRate`. `ceiling` is linear (−1 dBFS:
    /// 0.891). `lookahead` (seconds) is the delay, and how long the gain takes to fall
    /// before a peak; `release` (seconds) is how long it takes to win back 90 % of a
    /// reduction once the peak has passed (an exponential, time constant
    /// `release / ln 10`: after twice `release` it is within 1 %, about 0.1 dB).
    init(channels: Int, sampleRate: Int, ceiling: Float, lookahead: Double = 0.005, release: Double = 0.1,
         maximumBlock: Int) {
        precondition(channels > 0 && sampleRate > 0 && maximumBlock > 0)
        precondition(ceiling > 0 && ceiling.isFinite, "ceiling \(ceiling) must be positive")
        self.channels = channels
        self.sampleRate = sampleRate
        self.ceiling = ceiling
        self.maximumBlock = maximumBlock
        delay = max(1, Int((max(0, lookahead) * Double(sampleRate)).rounded()))
        window = delay + 1
        releaseCoefficient = release > 0 ? exp(-log(10.0) / (release * Double(sampleRate))) : 0

        history = .allocate(capacity: channels * delay)
        history.initialize(repeating: 0, count: channels * delay)
        neededHistory = .allocate(capacity: delay)
        neededHistory.initialize(repeating: 1, count: delay)
        dequeCapacity = window + 1
        dequeGains = .allocate(capacity: dequeCapacity)
        dequeGains.initialize(repeating: 1, count: dequeCapacity)
        dequeSamples = .allocate(capacity: dequeCapacity)
        dequeSamples.initialize(repeating: 0, count: dequeCapacity)
        held = .allocate(capacity: window)
        held.initialize(repeating: 1, count: window)
        heldSum = Double(window)
        channelPointers = .allocate(capacity: channels)
        channelPointers.initialize(repeating: nil, count: channels)
    }

    deinit {
        history.deallocate()
        neededHistory.deallocate()
        dequeGains.deallocate()
        dequeSamples.deallocate()
        held.deallocate()
        channelPointers.deallocate()
    }

    /// Limits `count` samples per channel in place: `channel(c)` gives channel `c`'s
    /// samples (asked once per channel per call; they must stay valid during it). What
    /// is written back is the input from `delay` samples earlier, limited — see the type's
    /// notes for lining it up and for draining the end with `delay` zeros.
    func process(count: Int, channel: (Int) -> UnsafeMutablePointer<Float>) {
        precondition(count >= 0 && count <= maximumBlock, "block of \(count) samples, at most \(maximumBlock)")
        guard count > 0 else { return }
        for c in 0..<channels { channelPointers[c] = channel(c) }
        let ceiling = self.ceiling, delay = self.delay, window = self.window
        let coefficient = releaseCoefficient
        for i in 0..<count {
            // 1. The gain this sample needs.
            var peak: Float = 0
            for c in 0..<channels { peak = max(peak, abs(channelPointers[c]![i])) }
            var needed: Float = 1
            if peak > ceiling {
                needed = ceiling / peak
                while needed > 0, peak * needed > ceiling { needed = needed.nextDown }
            }

            // 2. Its minimum over the lookahead window.
            while dequeCount > 0, dequeGains[(dequeFront + dequeCount - 1) % dequeCapacity] >= needed {
                dequeCount -= 1
            }
            let back = (dequeFront + dequeCount) % dequeCapacity
            dequeGains[back] = needed
            dequeSamples[back] = position
            dequeCount += 1
            while dequeSamples[dequeFront] <= position - window {
                dequeFront = (dequeFront + 1) % dequeCapacity
                dequeCount -= 1
            }
            let minimum = Double(dequeGains[dequeFront])

            // 3. Instant attack, exponential release (never above the minimum, so the
            // float below is at most `minimum` too).
            if minimum <= released {
                released = minimum
            } else {
                released = minimum - (minimum - released) * coefficient
                // Within a millionth: land on the target (exactly 1 where nothing is limited).
                if minimum - released < 1.0 / 1_048_576 { released = minimum }
            }
            let releasedGain = Float(released)

            // 4. Moving average over the window, clamped to the delayed sample's need.
            let old = held[heldCursor]
            if old < 1 { heldReduced -= 1 }
            if releasedGain < 1 { heldReduced += 1 }
            held[heldCursor] = releasedGain
            heldCursor = heldCursor + 1 == window ? 0 : heldCursor + 1
            let gain: Float
            if heldReduced == 0 {
                heldSum = Double(window)
                gain = 1
            } else {
                heldSum += Double(releasedGain) - Double(old)
                gain = min(Float(heldSum / Double(window)), neededHistory[cursor], 1)
            }

            // Out goes the sample from `delay` ago, in goes this one.
            if gain == 1 {
                for c in 0..<channels {
                    let samples = channelPointers[c]!, slot = history + c * delay + cursor
                    let delayed = slot.pointee
                    slot.pointee = samples[i]
                    samples[i] = delayed
                }
            } else {
                for c in 0..<channels {
                    let samples = channelPointers[c]!, slot = history + c * delay + cursor
                    let delayed = slot.pointee
                    slot.pointee = samples[i]
                    samples[i] = delayed * gain
                }
            }
            neededHistory[cursor] = needed
            cursor = cursor + 1 == delay ? 0 : cursor + 1
            position += 1
        }
    }

    /// Forgets everything: the delay line is silent again and the gain back at 1.
    func reset() {
        history.update(repeating: 0, count: channels * delay)
        neededHistory.update(repeating: 1, count: delay)
        held.update(repeating: 1, count: window)
        heldSum = Double(window)
        heldReduced = 0
        heldCursor = 0
        cursor = 0
        dequeFront = 0
        dequeCount = 0
        released = 1
        position = 0
    }
}
