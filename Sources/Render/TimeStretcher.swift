import Foundation
import MediaIO

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
final class TimeStretcher {
    /// Delivers `count` source samples per channel from `position`, planar, in pieces:
    /// `deliver(channel, offset, samples, length)` for samples `offset ..< offset + length`.
    typealias Read = (_ position: Int64, _ count: Int,
                      _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError) -> Void

    let channels: Int
    /// Source samples per output sample (0.5: half speed, twice as long). It may change
    /// between blocks: a speed ramp's steps go on in one stretch, without a seam.
    var speed: Double
    /// The source position output sample 0 stands for.
    let origin: Int64
    /// Output samples produced so far.
    private(set) var produced: Int64 = 0

    private let frameLength: Int, hop: Int, tolerance: Int
    private let window: [Float]
    private let read: Read
    // Source history: `sourceCount` samples per channel from `sourceStart`.
    private var source: [Float]
    private let sourceCapacity: Int
    private var sourceStart: Int64 = 0, sourceCount = 0
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
    init(channels: Int, sampleRate: Int, speed: Double, origin: Int64, read: @escaping Read) {
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
        // History: the farthest back a frame may start to the farthest ahead it may end.
        onsetBlock = max(16, sampleRate / 200)
        // Plus a frame further back: an onset-aligned frame may start up to a frame before
        // its ideal position (and the onset detector looks back 20 ms).
        sourceCapacity = Int((Double(hop) * max(1, speed)).rounded(.up)) + 3 * frameLength + 2 * tolerance + 4 * onsetBlock + 8
        source = [Float](repeating: 0, count: sourceCapacity * channels)
        accumulator = [Float](repeating: 0, count: frameLength * channels)
        ready = [Float](repeating: 0, count: hop * channels)
        nextIdeal = Double(origin - Int64(hop))
    }

    /// Produces the next `count` output samples, handing each channel's block to `deliver`
    /// in pieces (offset into the request, samples, length).
    func produce(_ count: Int, _ deliver: (_ channel: Int, _ offset: Int, UnsafePointer<Float>, _ length: Int) -> Void) throws(FFmpegError) {
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
            let lookBack = Int64(frameLength + 4 * onsetBlock)
            try ensure(from: min(continuation, ideal - Int64(tolerance)) - lookBack,
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
                    if due >= hop && due < frameLength {
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
        // Overlap-add the windowed frame (cut short before an onset it must not play
        // early, with a 1 ms fade); the first hop of the accumulator is then final.
        let offset = Int(chosen - sourceStart)
        let fade = max(1, onsetBlock / 5)
        for channel in 0..<channels {
            let s = channel * sourceCapacity + offset, a = channel * frameLength
            if let cut {
                for i in 0..<max(0, cut) {
                    let taper = i >= cut - fade ? Float(cut - i) / Float(fade + 1) : 1
                    accumulator[a + i] += source[s + i] * window[i] * taper
                }
            } else {
                for i in 0..<frameLength { accumulator[a + i] += source[s + i] * window[i] }
            }
            for i in 0..<hop { ready[channel * hop + i] = accumulator[a + i] }
            for i in 0..<hop { accumulator[a + i] = accumulator[a + hop + i] }
            for i in hop..<frameLength { accumulator[a + i] = 0 }
        }
        readyCount = hop
        readyOffset = 0
    }

    /// The start within ±tolerance of `ideal` whose first half-frame correlates best with
    /// the half-frame at `continuation` (channels summed).
    private func bestMatch(around ideal: Int64, continuation: Int64) -> Int64 {
        var best = ideal, bestScore = -Float.infinity
        let reference = Int(continuation - sourceStart)
        for delta in stride(from: -tolerance, through: tolerance, by: 1) {
            let candidate = Int(ideal - sourceStart) + delta
            var score: Float = 0
            for channel in 0..<channels {
                let base = channel * sourceCapacity
                var i = 0
                while i < hop {   // every other sample: half the work, the same peak
                    score += source[base + candidate + i] * source[base + reference + i]
                    i += 2
                }
            }
            if score > bestScore {
                bestScore = score
                best = ideal + Int64(delta)
            }
        }
        return best
    }

    /// The first onset in source `[from, to)`: the first loud sample of a 5 ms block (on a
    /// grid of absolute positions, so every frame finds the same onset) whose energy is
    /// over 8× the mean of the 20 ms before it and above -50 dBFS. Nil when none.
    private func firstOnset(from: Int64, to: Int64) -> Int64? {
        let block = Int64(onsetBlock)
        let end = sourceStart + Int64(sourceCount)
        var start = max(from, sourceStart + 4 * block)
        start = (start + block - 1) / block * block
        func energy(_ at: Int64) -> Float {
            var sum: Float = 0
            for channel in 0..<channels {
                let base = channel * sourceCapacity + Int(at - sourceStart)
                for i in 0..<onsetBlock { sum += source[base + i] * source[base + i] }
            }
            return sum / Float(onsetBlock * channels)
        }
        var blockStart = start
        while blockStart < min(to, end - block) {
            let e = energy(blockStart)
            if e > 1e-5 {
                let before = (energy(blockStart - block) + energy(blockStart - 2 * block)
                              + energy(blockStart - 3 * block) + energy(blockStart - 4 * block)) / 4
                if e > 8 * before {
                    // The onset proper: the first sample reaching a third of the block's
                    // peak, looking from the previous block on (it may start there).
                    var peak: Float = 0
                    for channel in 0..<channels {
                        let base = channel * sourceCapacity + Int(blockStart - sourceStart)
                        for i in 0..<onsetBlock { peak = max(peak, abs(source[base + i])) }
                    }
                    for at in (blockStart - block)..<(blockStart + block) {
                        for channel in 0..<channels where abs(source[channel * sourceCapacity + Int(at - sourceStart)]) >= peak / 3 {
                            return at >= from ? at : nil
                        }
                    }
                }
            }
            blockStart += block
        }
        return nil
    }

    /// Keeps source samples `[from, to)` in the history, reading forward as needed.
    private func ensure(from: Int64, to: Int64) throws(FFmpegError) {
        // Drop what lies before `from` (all of it, and skip ahead, if `from` is past the end).
        if sourceCount == 0 {
            sourceStart = from
        } else if from > sourceStart {
            let gone = Int(min(Int64(sourceCount), from - sourceStart))
            for channel in 0..<channels where gone > 0 {
                let base = channel * sourceCapacity
                for i in 0..<(sourceCount - gone) { source[base + i] = source[base + gone + i] }
            }
            sourceCount -= gone
            sourceStart = sourceCount == 0 ? from : sourceStart + Int64(gone)
        }
        let have = sourceStart + Int64(sourceCount)
        guard to > have else { return }
        let count = Int(to - have)
        precondition(sourceCount + count <= sourceCapacity, "time-stretch history overflow")
        let at = sourceCount
        try read(have, count) { channel, offset, samples, length in
            let base = channel * sourceCapacity + at + offset
            for i in 0..<length { source[base + i] = samples[i] }
        }
        sourceCount += count
    }
}
