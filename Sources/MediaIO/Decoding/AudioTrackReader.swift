internal import CDropcutFFmpeg
import DropcutTimeline

/// Reads the samples of one audio track by position: `withSamples(at:count:)` gives
/// samples `[position, position + count)` of the track resampled to one rate and channel
/// count (planar float), where sample 0 is the stream's first presented sample, as in
/// `AssetProbe`. Outside the track the samples are silence.
///
/// It decodes forward, keeping a window of converted samples, so steadily advancing
/// reads decode each packet once; it seeks only to go back, or further ahead than
/// `seekAhead` before the end. Buffers are allocated once: reading allocates nothing.
package final class AudioTrackReader {
    package let path: String
    package let sampleRate: Int
    package let channels: Int
    /// The most samples one `withSamples` call may ask for.
    package let maximumRead: Int
    /// A request this many samples past the window seeks instead of decoding through.
    package var seekAhead: Int64

    private var source: StreamDecoder
    private let trackID: TrackID
    /// Source time 0 in the stream's time: the file's shared origin (`Demuxer.origin(of:)`).
    private let origin: MediaTime
    private let timeBase: MediaTime
    private let resampler: Resampler
    private let decoded: AudioFrame
    /// Converted samples: `bufferCount` of them, the first at `bufferStart`.
    private let buffer: UnsafeMutablePointer<Float>
    private let capacity: Int
    private var bufferStart: Int64 = 0
    private var bufferCount = 0
    /// False until the first frame after opening or seeking says where the window is.
    private var positioned = false
    private var ended = false
    /// What `withSamples` hands out at the track's edges: the request, silence-padded.
    private let window: UnsafeMutablePointer<Float>
    private let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>

    /// Opens track `trackID` (stream index + 1) of `path`, converting to `sampleRate` and
    /// `channels` (down- or up-mixed with libswresample's default matrix).
    package init(path: String, trackID: TrackID, sampleRate: Int, channels: Int,
                maximumRead: Int = 16384) throws(FFmpegError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.maximumRead = maximumRead
        seekAhead = Int64(sampleRate) * 2
        self.trackID = trackID
        source = try StreamDecoder(path: path, trackID: trackID, kind: .audio)
        origin = source.demuxer.origin(of: source.stream)
        timeBase = source.stream.timeBase
        resampler = Resampler(sampleRate: sampleRate, channels: channels, path: path, streamIndex: source.streamIndex)
        decoded = try AudioFrame(decoderOutput: ())
        // Room for a full request plus the largest decoded frame after resampling.
        capacity = maximumRead + 65536
        buffer = .allocate(capacity: capacity * channels)
        window = .allocate(capacity: maximumRead * channels)
        outputPointers = .allocate(capacity: channels)
    }

    deinit {
        buffer.deallocate()
        window.deallocate()
        outputPointers.deallocate()
    }

    /// How many packets the reader has read from its file: what its requests have cost.
    var packetsRead: Int { source.demuxer.packetsRead }

    /// Runs `body` with `count` samples from `position` on, one pointer per channel
    /// (valid only inside `body`). `count` must not exceed `maximumRead`.
    package func withSamples(at position: Int64, count: Int,
                            _ body: (_ channel: Int, UnsafePointer<Float>) -> Void) throws(FFmpegError) {
        precondition(count >= 0 && count <= maximumRead, "read of \(count) samples, at most \(maximumRead)")
        try fill(position: position, count: count)
        // Inside the decoded samples (nearly always): hand them out as they are.
        if position >= bufferStart, position + Int64(count) <= bufferStart + Int64(bufferCount) {
            for channel in 0..<channels { body(channel, buffer + channel * capacity + Int(position - bufferStart)) }
            return
        }
        // At the track's edges: copy the overlap into the window, silence elsewhere.
        let overlapStart = max(position, bufferStart), overlapEnd = min(position + Int64(count), bufferStart + Int64(bufferCount))
        for channel in 0..<channels {
            let out = window + channel * maximumRead
            out.update(repeating: 0, count: count)
            if overlapStart < overlapEnd {
                let from = buffer + channel * capacity + Int(overlapStart - bufferStart)
                (out + Int(overlapStart - position)).update(from: from, count: Int(overlapEnd - overlapStart))
            }
        }
        for channel in 0..<channels { body(channel, window + channel * maximumRead) }
    }

    /// Decodes until the window covers `[position, position + count)` or the track ends.
    private func fill(position: Int64, count: Int) throws(FFmpegError) {
        let end = position + Int64(count)
        // Once the stream has ended, what lies ahead is silence: no seek (a composition
        // longer than its audio would otherwise seek and decode the tail again per read).
        if positioned, position < bufferStart || (!ended && position > bufferStart + Int64(bufferCount) + seekAhead) {
            try seek(to: position)
        }
        if positioned { drop(before: position) }
        while !ended, !positioned || bufferStart + Int64(bufferCount) < end {
            guard try source.decodeNext(into: decoded.frame) else { ended = true; break }
            if !positioned {
                bufferStart = samplePosition(of: decoded.frame)
                bufferCount = 0
                positioned = true
            }
            try append(decoded.frame)
            drop(before: position)
        }
    }

    /// Where a decoded frame's first sample lies, in output samples from the origin.
    private func samplePosition(of frame: UnsafeMutablePointer<AVFrame>) -> Int64 {
        let pts = frame.pointee.best_effort_timestamp
        guard pts != cff_nopts_value() else { return 0 }
        let time = timeBase.multiplied(by: pts, dividedBy: 1) - origin
        return time.ticks(in: Int32(sampleRate)) ?? 0
    }

    private func append(_ frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        let room = capacity - bufferCount
        for channel in 0..<channels {
            outputPointers[channel] = UnsafeMutableRawPointer(buffer + channel * capacity + bufferCount)
                .assumingMemoryBound(to: UInt8.self)
        }
        let written = try resampler.convert(frame, into: outputPointers, capacity: room)
        bufferCount += written
    }

    /// Forgets samples before `position`, sliding the rest to the front.
    private func drop(before position: Int64) {
        guard position > bufferStart else { return }
        let gone = Int(min(position - bufferStart, Int64(bufferCount)))
        if gone == 0 { return }
        let kept = bufferCount - gone
        for channel in 0..<channels where kept > 0 {
            let base = buffer + channel * capacity
            base.update(from: base + gone, count: kept)
        }
        bufferStart += Int64(gone)
        bufferCount = kept
    }

    private func seek(to position: Int64) throws(FFmpegError) {
        // Land a little early: codecs with overlapping transforms (AAC, Opus) decode their
        // first frame after a seek wrong; those samples fall before `position` and are dropped.
        let preRoll = Int64(sampleRate) / 5
        let target = position - preRoll
        if target <= 0 {
            // Back to the start (a music bed looping): the file opened again stands exactly
            // at its first packet, which no demuxer's seek promises — an MP3 with cover
            // pictures refuses to seek at all ("Operation not permitted").
            try reopen()
        } else {
            do {
                try source.seek(to: MediaTime(value: target, timescale: Int32(sampleRate)) + origin)
            } catch where !error.isSystemFailure {
                // A demuxer that cannot seek here: decode forward from the start instead
                // (the window's drop skips what lies before `position`).
                try reopen()
            }
        }
        resampler.reset()
        positioned = false
        ended = false
        bufferCount = 0
    }

    /// Opens the file again, at its first packet.
    private func reopen() throws(FFmpegError) {
        source = try StreamDecoder(path: path, trackID: trackID, kind: .audio)
    }
}
