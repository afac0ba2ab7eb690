import Foundation
import DropcutMediaIO

/// Changes the duration of sound without changing its pitch, by WSOLA (waveform-
/// similarity overlap-add): the output is built from Hann-windowed frames taken from the
/// source at the rate the speed asks for, each one nudged (within a tolerance) to where
/// it best continues the previous frame's waveform, then overlap-added at half-frame
/// hops. Periodic sounds stay in phase, so a slowed voice keeps its pitch and timbre
/// without clicks.
///
/// Onsets (a clap, a beep, a consonant) keep their time: plain WSOLA lets a frame carry
/// an onset from the far end of its window to the near end, so in slow motion it sounds
/// up to (1/speed − 1) × 20 ms early, and the picture would show the clap after it is
/// heard. At speed ≤ 1 the stretcher looks for onsets ahead: frames that would play one
/// early are cut just before it, and the frame whose second half is due to play it is
/// placed so it lands exactly on time, then continued unchanged for one hop — so the
/// onset itself is a plain copy of the source, on time to the sample.
///
/// Streaming: output comes out in any block sizes; the source is read forward only,
/// through `read`, and a few frames of it are kept. Nothing is allocated after `init`.
public final class TimeStretcher {
    /// Delivers `count` source samples per channel from `position`, planar, in pieces:
    /// `deliver(channel, offset, samples, length)` for samples `offset ..< offset + length`.
    public typealias Read = (_ position: Int64, _ count: Int,
                      _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError) -> Void

    public let channels: Int
    /// Source samples per output sample (0.5: half speed, twice as long). It may change
    /// between blocks: a speed ramp's steps go on in one stretch, without a seam.
    public var speed: Double
    /// The source position output sample 0 stands for.
    public let origin: Int64
    /// Output samples produced so far.
    public private(set) var produced: Int64 = 0

    private let frameLength: Int, hop: Int, tolerance: Int
    private let window: [Float]
    private let read: Read
    // Source history: `sourceCount` samples per channel from `sourceStart`.
    private var source: [Float]
    /// The same history with the channels summed: what the waveform search compares.
    private var mono: [Float]
    private let sourceCapacity: Int
    private var sourceStart: Int64 = 0, sourceCount = 0
    /// Where `sourceStart` sits in the buffers (the history slides along them).
    private var head = 0
    /// History kept before a frame's search range: an onset-aligned frame may start up to
    /// a frame before its ideal position, and the onset detector looks back 20 ms.
    private let lookBack: Int
    // The overlap-add accumulator (one frame per channel) and the finished samples.
    private var accumulator: [Float]
    private var ready: [Float]
    private var readyCount = 0, readyOffset = 0
    /// A frame a hop before `origin` is placed first and its output thrown away, so output
    /// sample 0 is already a full overlap of two frames (no fade-in at a section's start).
    private var previous: Int64?
    private var framesPlaced = 0
    /// Where the next frame ideally starts in the source (advancing a hop × speed a frame).
    private var nextIdeal: Double
    /// Onset detection: block length (5 ms), and the last onset already placed on time.
    private let onsetBlock: Int
    private var placedOnset: Int64 = .min
    /// The frame after an onset-aligned one continues it exactly (no search).
    private var continueExactly = false

    /// `sampleRate` sets the frame (about 40 ms) and the search tolerance (about 10 ms).
    public init(channels: Int, sampleRate: Int, speed: Double, origin: Int64, read: @escaping Read) {
        self.channels = channels
        self.speed = speed
        self.origin = origin
        self.read = read
        hop = max(64, sampleRate / 50)            // 20 ms
        frameLength = 2 * hop
        tolerance = max(16, sampleRate / 100)     // 10 ms
        let length = frameLength
        window = (0..<length).map { i -> Float in
            // Periodic Hann: frames overlapping by half sum to exactly one.
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(length)))
        }
        onsetBlock = max(16, sampleRate / 200)
        lookBack = frameLength + 4 * onsetBlock
        // History: the farthest back a frame may start to the farthest ahead it may end,
        // twice over, so it slides along the buffers and is moved back only now and then.
        // Sized for the fastest speed a recipe allows (16), as `speed` may rise mid-stretch.
        let span = Int((Double(hop) * max(16, speed)).rounded(.up)) + 2 * frameLength + 2 * tolerance + lookBack + 8
        sourceCapacity = 2 * span
        source = [Float](repeating: 0, count: sourceCapacity * channels)
        mono = [Float](repeating: 0, count: sourceCapacity)
        accumulator = [Float](repeating: 0, count: frameLength * channels)
        ready = [Float](repeating: 0, count: hop * channels)
        nextIdeal = Double(origin - Int64(hop))
    }

    /// Produces the next `count` output samples, handing each channel's block to `deliver`
    /// in pieces (offset into the request, samples, length).
    public func produce(_ count: Int, _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError) {
        if previous == nil {
            try nextFrame()
            readyCount = 0
        }
        var done = 0
        while done < count {
            if readyCount == 0 { try nextFrame() }
            let n = min(readyCount, count - done)
            ready.withUnsafeBufferPointer { buffer in
                for channel in 0..<channels {
                    deliver(channel, done, buffer.baseAddress! + channel * hop + readyOffset, n)
                }
            }
            readyOffset += n
            readyCount -= n
            done += n
        }
        produced += Int64(count)
    }

    /// Places the next frame: at its ideal source position, moved by up to the tolerance
    /// to where it best matches the natural continuation of the previous frame.
    private func nextFrame() throws(FFmpegError) {
        let ideal = Int64(nextIdeal.rounded())
        var chosen = ideal
        var cut: Int?
        if framesPlaced < 2 {
            // The priming frame (a hop before `origin`) and the first frame (at `origin`)
            // sit exactly where speed 1 would put them: their overlap reproduces the
            // source itself, so entering a scaled section from normal speed has no seam.
            nextIdeal += Double(hop) * (framesPlaced == 0 ? 1 : speed)
            try ensure(from: ideal - Int64(tolerance), to: ideal + Int64(frameLength) + Int64(tolerance))
        } else if let previous {
            let frameSpeed = speed
            nextIdeal += Double(hop) * frameSpeed
            let continuation = previous + Int64(hop)
            try ensure(from: min(continuation, ideal - Int64(tolerance)) - Int64(lookBack),
                       to: max(continuation, ideal + Int64(tolerance)) + Int64(frameLength))
            if continueExactly {
                chosen = continuation
                continueExactly = false
            } else {
                chosen = bestMatch(around: ideal, continuation: continuation)
                if frameSpeed <= 1, let onset = firstOnset(from: max(min(ideal, chosen), placedOnset + 1),
                                                           to: max(ideal, chosen) + Int64(frameLength)) {
                    // Where the onset is due in this frame's output: its distance from the
                    // ideal start, stretched.
                    let due = Int((Double(onset - ideal) / frameSpeed).rounded())
                    if due >= hop && due < frameLength && onset - Int64(due) >= sourceStart {
                        chosen = onset - Int64(due)
                        placedOnset = onset
                        continueExactly = true
                    } else if due >= frameLength, onset < chosen + Int64(frameLength) {
                        cut = Int(onset - chosen)
                    }
                }
            }
        }
        previous = chosen
        framesPlaced += 1
        overlapAdd(at: index(chosen), cut: cut)
        readyCount = hop
        readyOffset = 0
    }

    /// Adds the frame starting at history index `start`, Hann-windowed — cut short before
    /// `cut` with a 1 ms fade, if given — to the accumulator, whose first hop is then
    /// final and moves to `ready`.
    private func overlapAdd(at start: Int, cut: Int?) {
        let fade = max(1, onsetBlock / 5)
        let frameLength = frameLength, hop = hop, capacity = sourceCapacity
        source.withUnsafeBufferPointer { source in
            window.withUnsafeBufferPointer { window in
                accumulator.withUnsafeMutableBufferPointer { accumulator in
                    ready.withUnsafeMutableBufferPointer { ready in
                        for channel in 0..<channels {
                            let s = source.baseAddress! + channel * capacity + start
                            let a = accumulator.baseAddress! + channel * frameLength
                            if let cut {
                                for i in 0..<max(0, min(cut, frameLength)) {
                                    let taper = i >= cut - fade ? Float(cut - i) / Float(fade + 1) : 1
                                    a[i] += s[i] * window[i] * taper
                                }
                            } else {
                                for i in 0..<frameLength { a[i] += s[i] * window[i] }
                            }
                            (ready.baseAddress! + channel * hop).update(from: a, count: hop)
                            a.update(from: a + hop, count: hop)
                            (a + hop).update(repeating: 0, count: hop)
                        }
                    }
                }
            }
        }
    }

    /// The start within ±tolerance of `ideal` whose first half-frame correlates best with
    /// the half-frame at `continuation` (channels summed). Searched coarse to fine — every
    /// fourth offset, then the neighbours of the best — as the correlation peak of sound
    /// worth keeping in phase is wider than four samples; a quarter of the work.
    private func bestMatch(around ideal: Int64, continuation: Int64) -> Int64 {
        let reference = index(continuation), center = index(ideal)
        let best = mono.withUnsafeBufferPointer { buffer -> Int in
            let base = buffer.baseAddress!
            var best = 0, bestScore = -Float.infinity
            func consider(_ delta: Int) {
                let score = Self.dot(base + center + delta, base + reference, count: hop)
                if score > bestScore {
                    bestScore = score
                    best = delta
                }
            }
            for delta in stride(from: -tolerance, through: tolerance, by: 4) { consider(delta) }
            let coarse = best
            for delta in max(-tolerance, coarse - 3)...min(tolerance, coarse + 3) where delta != coarse { consider(delta) }
            return best
        }
        return ideal + Int64(best)
    }

    /// `Σ a[i]·b[i]` over `count` samples, sixteen at a time.
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sum0 = SIMD8<Float>(), sum1 = SIMD8<Float>()
        let rawA = UnsafeRawPointer(a), rawB = UnsafeRawPointer(b)
        var i = 0
        while i + 16 <= count {
            sum0 += rawA.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) * rawB.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            sum1 += rawA.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self) * rawB.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
            i += 16
        }
        var sum = (sum0 + sum1).sum()
        while i < count {
            sum += a[i] * b[i]
            i += 1
        }
        return sum
    }

    /// The first onset in source `[from, to)`: the first loud sample of a 5 ms block (on a
    /// grid of absolute positions, so every frame finds the same onset) whose energy is
    /// over 8× the mean of the 20 ms before it and above -50 dBFS (channels summed). Nil
    /// when none.
    private func firstOnset(from: Int64, to: Int64) -> Int64? {
        let block = Int64(onsetBlock)
        let end = min(to, sourceStart + Int64(sourceCount) - block)
        var blockStart = max(from, sourceStart + 4 * block)
        blockStart = (blockStart + block - 1) / block * block
        guard blockStart < end else { return nil }
        return mono.withUnsafeBufferPointer { buffer -> Int64? in
            let base = buffer.baseAddress!
            let floor = 1e-5 * Float(channels * channels)
            func energy(_ at: Int64) -> Float {
                let p = base + index(at)
                return Self.dot(p, p, count: onsetBlock) / Float(onsetBlock)
            }
            // The four blocks before, slid along.
            var before = (energy(blockStart - 4 * block), energy(blockStart - 3 * block),
                          energy(blockStart - 2 * block), energy(blockStart - block))
            while blockStart < end {
                let e = energy(blockStart)
                if e > floor, e > 2 * (before.0 + before.1 + before.2 + before.3) {   // 8× their mean
                    // The onset proper: the first sample reaching a third of the block's
                    // peak, looking from the previous block on (it may start there).
                    let p = base + index(blockStart)
                    var peak: Float = 0
                    for i in 0..<onsetBlock { peak = max(peak, abs(p[i])) }
                    for i in -onsetBlock..<onsetBlock where abs(p[i]) >= peak / 3 {
                        let at = blockStart + Int64(i)
                        return at >= from ? at : nil
                    }
                }
                before = (before.1, before.2, before.3, e)
                blockStart += block
            }
            return nil
        }
    }

    /// Where source `position` sits in each channel's history buffer.
    private func index(_ position: Int64) -> Int { head + Int(position - sourceStart) }

    /// Keeps source samples `[from, to)` in the history, reading forward as needed. What
    /// lies before `from` is dropped by moving `head`; the history is moved back to the
    /// buffers' start only when the next read would not fit, so once per many frames.
    private func ensure(from: Int64, to: Int64) throws(FFmpegError) {
        // Drop what lies before `from` (all of it, and skip ahead, if `from` is past the end).
        if sourceCount == 0 {
            sourceStart = from
            head = 0
        } else if from > sourceStart {
            let gone = Int(min(Int64(sourceCount), from - sourceStart))
            head += gone
            sourceCount -= gone
            sourceStart += Int64(gone)
            if sourceCount == 0 {
                sourceStart = from
                head = 0
            }
        }
        let have = sourceStart + Int64(sourceCount)
        guard to > have else { return }
        let count = Int(to - have)
        precondition(sourceCount + count <= sourceCapacity, "time-stretch history overflow")
        if head + sourceCount + count > sourceCapacity {
            let head = head, kept = sourceCount, capacity = sourceCapacity
            source.withUnsafeMutableBufferPointer { source in
                for channel in 0..<channels {
                    let base = source.baseAddress! + channel * capacity
                    base.update(from: base + head, count: kept)
                }
            }
            mono.withUnsafeMutableBufferPointer { mono in mono.baseAddress!.update(from: mono.baseAddress! + head, count: kept) }
            self.head = 0
        }
        let at = head + sourceCount, capacity = sourceCapacity
        try source.withUnsafeMutableBufferPointer { (source) throws(FFmpegError) in
            try read(have, count) { channel, offset, samples, length in
                (source.baseAddress! + channel * capacity + at + offset).update(from: samples, count: length)
            }
        }
        source.withUnsafeBufferPointer { source in
            mono.withUnsafeMutableBufferPointer { mono in
                let m = mono.baseAddress! + at
                m.update(from: source.baseAddress! + at, count: count)
                for channel in 1..<max(1, channels) {
                    let s = source.baseAddress! + channel * capacity + at
                    for i in 0..<count { m[i] += s[i] }
                }
            }
        }
        sourceCount += count
    }
}
