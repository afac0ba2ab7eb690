import Foundation
import MediaIO
import Timeline

/// One mix of a composition's audio for several outputs that encode the same sound
/// (`MultiExportSession`): the sources are decoded, mixed, gained and limited once, in
/// blocks of the encoder's frame size exactly as `AudioStage` makes them, and each
/// output's encoder thread copies the blocks out as its picture reaches their time.
///
/// The outputs' encoders run side by side, a few frames apart at most (each has a
/// couple of canvases; the compositing stage serves them frame by frame), so the blocks
/// between the slowest and the fastest live in a ring sized for that gap, allocated once:
/// memory does not grow with the clip. The ring is sized with room to spare; should an
/// output ever run further ahead, the export fails rather than waits (a wait could close
/// a cycle with the compositing stage).
// @unchecked: the mixer and ring are touched only under `lock`.
final class SharedAudioMix: @unchecked Sendable {
    let sampleRate: Int
    let channels: Int
    /// Samples per block: the AAC encoder's frame.
    let blockSize: Int
    let totalSamples: Int64
    private let lock = NSLock()
    private let mixer: AudioMixer
    private let limiter: PeakLimiter
    private let gain: Float
    private var primed = false
    /// The block being mixed (limited in place).
    private let block: AudioFrame
    /// `slots` blocks of `channels × blockSize` samples, block `n` in slot `n % slots`.
    private let ring: UnsafeMutablePointer<Float>
    private let slots: Int
    /// Blocks mixed so far.
    private var mixed = 0
    /// The next block each output will read (`Int.max` once it has finished).
    private var cursors: [Int]

    /// A mix for `consumers` outputs whose pictures may lie up to `lead` apart.
    init(mixer: AudioMixer, blockSize: Int, totalSamples: Int64, gain: Float, consumers: Int, lead: MediaTime) throws {
        self.mixer = mixer
        sampleRate = mixer.sampleRate
        channels = mixer.channels
        self.blockSize = blockSize
        self.totalSamples = totalSamples
        self.gain = gain
        block = try AudioFrame(channels: channels, sampleRate: sampleRate, capacity: blockSize)
        limiter = PeakLimiter(channels: channels, sampleRate: sampleRate, ceiling: AudioStage.ceiling, maximumBlock: blockSize)
        precondition(limiter.delay <= blockSize, "limiter lookahead longer than a block")
        let leadSamples = Int((lead.seconds * Double(sampleRate)).rounded(.up))
        // Twice the gap, plus the blocks a frame boundary and the limiter's delay straddle.
        slots = 2 * ((leadSamples + blockSize - 1) / blockSize) + 8
        ring = .allocate(capacity: slots * channels * blockSize)
        cursors = Array(repeating: 0, count: consumers)
    }

    deinit {
        ring.deallocate()
    }

    /// Samples in block `index`.
    func count(ofBlock index: Int) -> Int {
        Int(min(Int64(blockSize), totalSamples - Int64(index) * Int64(blockSize)))
    }

    /// Copies block `index` into `frame` (its first `count(ofBlock:)` samples) for output
    /// `consumer`, mixing it first if no output has asked for it yet. Each output reads
    /// the blocks in order.
    func copy(block index: Int, for consumer: Int, into frame: AudioFrame) throws {
        lock.lock()
        defer { lock.unlock() }
        while mixed <= index {
            let oldest = cursors.min() ?? 0
            guard mixed - oldest < slots else {
                throw ExportError.invalidComposition(["an output's sound ran \(mixed - oldest) blocks ahead of another's (at most \(slots))"])
            }
            try mixNext()
        }
        let count = count(ofBlock: index)
        let base = ring + (index % slots) * channels * blockSize
        for channel in 0..<channels {
            frame.withChannel(channel) { samples in
                samples.baseAddress!.update(from: base + channel * blockSize, count: count)
            }
        }
        cursors[consumer] = index + 1
    }

    /// Output `consumer` reads nothing more: it no longer holds blocks in the ring.
    func finish(consumer: Int) {
        lock.lock()
        cursors[consumer] = .max
        lock.unlock()
    }

    /// Mixes block `mixed` into its slot: the mixer asked for the samples `delay` later,
    /// which the limiter hands back `delay` late (as `AudioStage` does).
    private func mixNext() throws {
        let start = Int64(mixed) * Int64(blockSize)
        let count = count(ofBlock: mixed)
        try block.makeWritable()
        if !primed {
            block.sampleCount = limiter.delay
            try mixer.mix(into: block, at: 0)
            limit(count: limiter.delay)   // fills the lookahead; its output is the leading silence
            primed = true
        }
        block.sampleCount = count
        try mixer.mix(into: block, at: start + Int64(limiter.delay))
        limit(count: count)
        let base = ring + (mixed % slots) * channels * blockSize
        for channel in 0..<channels {
            block.withChannel(channel) { samples in
                (base + channel * blockSize).update(from: samples.baseAddress!, count: count)
            }
        }
        mixed += 1
    }

    private func limit(count: Int) {
        if gain != 1 {
            for channel in 0..<channels {
                block.withChannel(channel) { samples in for i in 0..<count { samples[i] *= gain } }
            }
        }
        block.withPlanes { limiter.process(count: count, channel: $0) }
    }
}
