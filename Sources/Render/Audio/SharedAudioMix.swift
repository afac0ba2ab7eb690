import Foundation
import DropcutMediaIO
import DropcutTimeline

/// One mix of a composition's audio for the outputs of a render that encode the same
/// sound (`RenderSound`; one output or several): the sources are decoded, mixed, gained
/// and limited once, in blocks of the encoder's frame size, and each output's encoder
/// thread copies the blocks out as its picture reaches their time (`SharedAudioStage`).
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
    private let mix: LimitedMix
    /// `slots` blocks of `channels × blockSize` samples, block `n` in slot `n % slots`.
    private let ring: UnsafeMutablePointer<Float>
    private let slots: Int
    /// Blocks mixed so far.
    private var mixed = 0
    /// The next block each output will read (`Int.max` once it has finished).
    private var cursors: [Int]

    /// A mix for `consumers` outputs whose pictures may lie up to `lead` apart.
    init(mixer: AudioMixer, blockSize: Int, totalSamples: Int64, gain: Float, consumers: Int, lead: MediaTime) throws {
        sampleRate = mixer.sampleRate
        channels = mixer.channels
        self.blockSize = blockSize
        self.totalSamples = totalSamples
        mix = try LimitedMix(mixer: mixer, maximumBlock: blockSize, gain: gain)
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

    /// Mixes block `mixed` into its slot .
    private func mixNext() throws {
        let count = count(ofBlock: mixed)
        try mix.mix(at: Int64(mixed) * Int64(blockSize), count: count)
        let base = ring + (mixed % slots) * channels * blockSize
        for channel in 0..<channels {
            mix.block.withChannel(channel) { samples in
                (base + channel * blockSize).update(from: samples.baseAddress!, count: count)
            }
        }
        mixed += 1
    }
}
