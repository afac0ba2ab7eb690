import Foundation
import DropcutMediaIO

/// Changes the pitch of sound by `ratio` (2 an octave up) without changing its duration:
/// the sound is first made `ratio` times longer at its pitch by a `TimeStretcher` (WSOLA),
/// then resampled back to its length, reading `ratio` stretched samples per output
/// sample, which multiplies every frequency by `ratio`. Formant-naive, as tape is: a
/// voice an octave up sounds smaller, not just higher.
///
/// The resampling is band-limited: each output sample is a windowed sinc (Hann, 16
/// zero crossings either side at the input rate) of the stretched samples around its
/// position, its cut-off lowered to the output's Nyquist when shifting up, so harmonics
/// pushed past it are filtered out instead of folding back as inharmonic whistles (plain
/// linear interpolation lets them through at −20 dB or so). The filter's taps are read
/// from a table of `phases` fractional positions, interpolated between the two nearest
/// (a sine and a cosine per tap per sample cost 20× more; the table is within −90 dB of
/// the exact kernel).
///
/// Streaming like the stretcher: output in blocks of at most `maximumBlock`, the source
/// read forward only; nothing is allocated after `init`.
public final class PitchShifter: AudioStretching {
    public let channels: Int
    /// Output frequency over input frequency.
    public let ratio: Double
    /// Source samples per output sample (1: the length kept); may change between blocks.
    public var speed: Double {
        didSet { stretcher.speed = speed / ratio }
    }

    private let stretcher: TimeStretcher
    private let maximumBlock: Int
    /// Half the filter's length, in stretched samples.
    private let halfWidth: Int
    /// The filter's cut-off, as a fraction of the stretched signal's Nyquist frequency.
    private let cutoff: Double
    // Stretched samples `[bufferStart, bufferStart + bufferCount)`, `capacity` per channel.
    private var buffer: [Float]
    private let capacity: Int
    private var bufferStart: Int64, bufferCount: Int
    /// Output samples produced so far: output sample n reads the stretch at n × ratio,
    /// computed from n each time (a running sum would depend on the block sizes).
    private var produced: Int64 = 0
    private var weights: [Float]
    private var output: [Float]
    /// Taps for fractional positions k / `phases`, k = 0...phases, `2 × halfWidth` each.
    private let table: [Float]
    private static let phases = 256

    /// `read` delivers source samples as `TimeStretcher`'s does; `origin` is the source
    /// position output sample 0 stands for; `speed` source samples per output sample.
    public init(channels: Int, sampleRate: Int, ratio: Double, speed: Double, origin: Int64, maximumBlock: Int,
         read: @escaping TimeStretcher.Read) {
        precondition(ratio > 0 && ratio.isFinite, "pitch ratio \(ratio)")
        self.channels = channels
        self.ratio = ratio
        self.speed = speed
        self.maximumBlock = maximumBlock
        stretcher = TimeStretcher(channels: channels, sampleRate: sampleRate, speed: speed / ratio, origin: origin, read: read)
        cutoff = min(1, 1 / ratio)
        // 16 zero crossings of the (lowered) sinc either side.
        halfWidth = Int((16 / cutoff).rounded(.up))
        capacity = Int((Double(maximumBlock) * ratio).rounded(.up)) + 4 * halfWidth + 8
        buffer = [Float](repeating: 0, count: capacity * channels)
        // Before the stretch's first sample: silence (the filter's left half at the start).
        bufferStart = -Int64(halfWidth)
        bufferCount = halfWidth
        weights = [Float](repeating: 0, count: 2 * halfWidth)
        output = [Float](repeating: 0, count: maximumBlock * channels)
        let taps = 2 * halfWidth, h = halfWidth, cutoff = self.cutoff
        table = (0...Self.phases).flatMap { k in
            // Output at stretched position i + φ reads samples i − h + 1 ... i + h, at
            // distances φ + h − 1 − j.
            let phase = Double(k) / Double(Self.phases)
            return (0..<taps).map { j in Float(Self.kernel(phase + Double(h - 1 - j), cutoff: cutoff, halfWidth: Double(h))) }
        }
    }

    /// Produces the next `count` (at most `maximumBlock`) output samples, handing each
    /// channel's block to `deliver` (channel, offset into the request, samples, length).
    public func produce(_ count: Int, _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError) {
        precondition(count <= maximumBlock, "block of \(count) samples, at most \(maximumBlock)")
        guard count > 0 else { return }
        let ratio = self.ratio, produced = self.produced
        func position(_ n: Int) -> Double { Double(produced + Int64(n)) * ratio }
        discardBefore(Int64(position(0).rounded(.down)) - Int64(halfWidth))
        let last = Int64(position(count - 1).rounded(.down)) + Int64(halfWidth)
        try fill(through: last)
        let h = halfWidth
        let phases = Self.phases, taps = 2 * h
        buffer.withUnsafeBufferPointer { input in
            table.withUnsafeBufferPointer { table in
            weights.withUnsafeMutableBufferPointer { w in
                output.withUnsafeMutableBufferPointer { out in
                    for n in 0..<count {
                        let p = position(n)
                        let i = Int64(p.rounded(.down))
                        let first = i - Int64(h) + 1
                        // The taps at this fraction, between the table's two nearest rows.
                        let scaled = (p - Double(i)) * Double(phases)
                        let k = min(Int(scaled), phases - 1), t = Float(scaled - Double(k))
                        let below = table.baseAddress! + k * taps, above = below + taps
                        var sum: Float = 0
                        for j in 0..<taps {
                            let value = below[j] + (above[j] - below[j]) * t
                            w[j] = value
                            sum += value
                        }
                        // Normalised, so a constant stays constant whatever the phase.
                        let scale = sum != 0 ? 1 / sum : 0
                        let base = Int(first - bufferStart)
                        for channel in 0..<channels {
                            let row = input.baseAddress! + channel * capacity + base
                            var acc: Float = 0
                            for j in 0..<(2 * h) { acc += row[j] * w[j] }
                            out[channel * maximumBlock + n] = acc * scale
                        }
                    }
                }
            }
            }
        }
        self.produced += Int64(count)
        output.withUnsafeBufferPointer { out in
            for channel in 0..<channels { deliver(channel, 0, out.baseAddress! + channel * maximumBlock, count) }
        }
    }

    /// The windowed sinc at distance `d` (stretched samples) for a cut-off of `cutoff`
    /// times Nyquist; zero from `halfWidth` on.
    static func kernel(_ d: Double, cutoff: Double, halfWidth: Double) -> Double {
        guard abs(d) < halfWidth else { return 0 }
        let x = Double.pi * cutoff * d
        let sinc = abs(x) < 1e-9 ? 1 : sin(x) / x
        return cutoff * sinc * (0.5 + 0.5 * cos(Double.pi * d / halfWidth))
    }

    /// Stretched samples through index `last` into the buffer.
    private func fill(through last: Int64) throws(FFmpegError) {
        let end = bufferStart + Int64(bufferCount)
        guard last >= end else { return }
        let n = Int(last - end + 1)
        precondition(bufferCount + n <= capacity, "pitch shifter buffer of \(capacity) samples, needs \(bufferCount + n)")
        let at = bufferCount, capacity = self.capacity
        try buffer.withUnsafeMutableBufferPointer { store throws(FFmpegError) in
            try stretcher.produce(n) { channel, offset, samples, length in
                (store.baseAddress! + channel * capacity + at + offset).update(from: samples, count: length)
            }
        }
        bufferCount += n
    }

    /// Drops stretched samples before `index` (no longer under the filter).
    private func discardBefore(_ index: Int64) {
        let drop = Int(min(Int64(bufferCount), max(0, index - bufferStart)))
        guard drop > 0 else { return }
        let keep = bufferCount - drop, capacity = self.capacity
        buffer.withUnsafeMutableBufferPointer { store in
            for channel in 0..<channels {
                let row = store.baseAddress! + channel * capacity
                // The kept samples overlap where they move to: memmove.
                memmove(row, row + drop, keep * MemoryLayout<Float>.stride)
            }
        }
        bufferStart += Int64(drop)
        bufferCount = keep
    }
}
