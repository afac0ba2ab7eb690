import DropcutMediaIO
import DropcutTimeline

/// Mixes a composition's audio tracks into blocks of output samples: for each track,
/// the segments covering the block are read from their source (through one
/// `AudioTrackReader` per track, reopened when the track moves to another file),
/// multiplied by the track's volume curve sample by sample, and summed in float. Where
/// no segment has a source the track adds silence.
///
/// Segments played at speed 1 are copied sample-exactly. Scaled segments keep their
/// pitch through a `TimeStretcher` (WSOLA) carried from block to block, or — when the
/// track's time-pitch algorithm is varispeed — are resampled by linear interpolation
/// (pitch follows speed, like tape). Either way a segment yields exactly as many samples
/// as its time range holds, so sound and picture never drift apart. A track whose mix
/// parameters shift its pitch plays every piece through a `PitchShifter` (its scaled
/// pieces then keep their — shifted — pitch, whatever the time-pitch algorithm).
final class AudioMixer {
    let sampleRate: Int
    let channels: Int
    /// The largest block `mix` takes.
    let maximumBlock: Int

    private struct Piece {
        /// Output samples covered, `[start, end)`.
        var start: Int64, end: Int64
        var source: SourceTrack?
        /// The source sample shown at `start`, and source samples per output sample.
        var sourceStart: Int64
        var speed: Double
    }

    private struct Track {
        var trackID: TrackID
        var pieces: [Piece]
        var volume: VolumeCurve
        var reader: AudioTrackReader?
        var readerSource: SourceTrack?
        var algorithm: TimePitchAlgorithm
        /// Output frequency over source frequency (`AudioMixInputParameters.pitchRatio`).
        var pitchRatio: Double
        /// The time-stretch (or pitch shift) being played: the piece it is in, and the
        /// output sample it continues at.
        var stretcher: (piece: Int, stretcher: any AudioStretching, next: Int64)?
        /// Index of the first piece that may still overlap a later block.
        var cursor = 0
    }

    private var tracks: [Track]
    private let gains: UnsafeMutablePointer<Float>
    /// Source samples one interpolated block may span at the fastest speed dropcut allows.
    private static let maximumSpeed = 16.0

    init(composition: Composition, audioMix: AudioMix, sampleRate: Int, channels: Int, maximumBlock: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.maximumBlock = maximumBlock
        let rate = Int32(sampleRate)
        tracks = composition.tracks(of: .audio).map { track in
            let pieces = track.segments.map { segment -> Piece in
                let start = segment.target.start.ticks(in: rate) ?? 0, end = segment.target.end.ticks(in: rate) ?? 0
                guard let source = segment.source, !segment.isStill else {
                    return Piece(start: start, end: end, source: nil, sourceStart: 0, speed: 1)
                }
                return Piece(start: start, end: end, source: source.track,
                             sourceStart: source.timeRange.start.ticks(in: rate) ?? 0, speed: segment.speed)
            }
            let parameters = audioMix.parameters(for: track.trackID)
            let volume = VolumeCurve(parameters?.volume ?? Ramp(defaultValue: 1), until: composition.duration, sampleRate: sampleRate)
            return Track(trackID: track.trackID, pieces: pieces, volume: volume,
                         algorithm: parameters?.timePitchAlgorithm ?? .preservePitch, pitchRatio: parameters?.pitchRatio ?? 1)
        }
        gains = .allocate(capacity: maximumBlock)
    }

    deinit {
        gains.deallocate()
    }

    /// Mixes output samples `[start, start + block.sampleCount)` into `block` (planar
    /// float, `channels` channels), replacing what it held.
    func mix(into block: AudioFrame, at start: Int64) throws(FFmpegError) {
        let count = block.sampleCount
        precondition(count <= maximumBlock, "block of \(count) samples, at most \(maximumBlock)")
        for channel in 0..<channels {
            block.withChannel(channel) { $0.baseAddress!.update(repeating: 0, count: count) }
        }
        let end = start + Int64(count)
        for t in tracks.indices {
            // Pieces are in time order: skip those that ended before this block.
            while tracks[t].cursor < tracks[t].pieces.count, tracks[t].pieces[tracks[t].cursor].end <= start {
                tracks[t].cursor += 1
            }
            var gainsReady = false
            var p = tracks[t].cursor
            while p < tracks[t].pieces.count, tracks[t].pieces[p].start < end {
                let piece = tracks[t].pieces[p]
                p += 1
                guard let source = piece.source else { continue }
                let from = max(start, piece.start), to = min(end, piece.end)
                guard from < to else { continue }
                if !gainsReady {
                    tracks[t].volume.fill(gains, from: start, count: count)
                    gainsReady = true
                }
                let reader = try reader(for: t, source: source)
                if tracks[t].pitchRatio != 1
                    || (tracks[t].algorithm == .preservePitch && (piece.speed != 1 || continuesStretch(track: t, piece: p - 1, at: from))) {
                    try stretch(track: t, piece: p - 1, reader: reader, from: from, to: to, blockStart: start, into: block)
                } else {
                    try add(piece, reader: reader, from: from, to: to, blockStart: start, into: block)
                }
            }
        }
    }

    /// Mixes the first `total` samples block by block into `block` (a block of its
    /// capacity at a time), calling `body` with each block's sample count: the passes
    /// that listen to a mix before the export (ducking analysis, loudness).
    func mixAll(samples total: Int64, into block: AudioFrame, _ body: (Int) throws -> Void) throws {
        var position: Int64 = 0
        while position < total {
            block.sampleCount = Int(min(Int64(block.capacity), total - position))
            try mix(into: block, at: position)
            try body(block.sampleCount)
            position += Int64(block.sampleCount)
        }
    }

    /// Opens each track's first reader (without decoding).
    func openFirstSources() throws(FFmpegError) {
        for t in tracks.indices {
            if let source = tracks[t].pieces.lazy.compactMap(\.source).first { _ = try reader(for: t, source: source) }
        }
    }

    /// A scaled piece with its pitch kept: output from the piece's time-stretch, which
    /// carries its state from block to block (a new one starts if the piece is entered
    /// anywhere but where the last block left off).
    private func stretch(track t: Int, piece index: Int, reader: AudioTrackReader, from: Int64, to: Int64, blockStart: Int64,
                         into block: AudioFrame) throws(FFmpegError) {
        let piece = tracks[t].pieces[index]
        let stretcher: any AudioStretching
        if continuesStretch(track: t, piece: index, at: from), let current = tracks[t].stretcher {
            stretcher = current.stretcher
            stretcher.speed = piece.speed
        } else {
            let origin = piece.sourceStart + Int64((Double(from - piece.start) * piece.speed).rounded())
            let read: TimeStretcher.Read = { (position, count, deliver) throws(FFmpegError) in
                // Forward-only reads in blocks the reader can take.
                var done = 0
                while done < count {
                    let n = min(reader.maximumRead, count - done)
                    try reader.withSamples(at: position + Int64(done), count: n) { channel, samples in deliver(channel, done, samples, n) }
                    done += n
                }
            }
            if tracks[t].pitchRatio != 1 {
                stretcher = PitchShifter(channels: channels, sampleRate: sampleRate, ratio: tracks[t].pitchRatio, speed: piece.speed,
                                         origin: origin, maximumBlock: maximumBlock, read: read)
            } else {
                stretcher = TimeStretcher(channels: channels, sampleRate: sampleRate, speed: piece.speed, origin: origin, read: read)
            }
        }
        tracks[t].stretcher = (index, stretcher, to)
        let offset = Int(from - blockStart), gains = self.gains
        try stretcher.produce(Int(to - from)) { channel, at, samples, length in
            block.withChannel(channel) { out in
                for n in 0..<length { out[offset + at + n] += samples[n] * gains[offset + at + n] }
            }
        }
    }

    /// True when the track's running stretch reaches `from` in piece `index` seamlessly:
    /// the same piece, or the next one carrying on in the same source where the last ended
    /// (a speed ramp's steps, or the normal speed after a slowed part).
    private func continuesStretch(track t: Int, piece index: Int, at from: Int64) -> Bool {
        guard let current = tracks[t].stretcher, current.next == from else { return false }
        if current.piece == index { return true }
        guard current.piece == index - 1 else { return false }
        let before = tracks[t].pieces[index - 1], piece = tracks[t].pieces[index]
        guard let a = before.source, let b = piece.source, a.asset == b.asset, a.trackID == b.trackID else { return false }
        let sourceEnd = before.sourceStart + Int64((Double(before.end - before.start) * before.speed).rounded())
        return abs(sourceEnd - piece.sourceStart) <= 2
    }

    private func add(_ piece: Piece, reader: AudioTrackReader, from: Int64, to: Int64, blockStart: Int64,
                     into block: AudioFrame) throws(FFmpegError) {
        let offset = Int(from - blockStart), length = Int(to - from)
        let gains = self.gains
        if piece.speed == 1 {
            try reader.withSamples(at: piece.sourceStart + (from - piece.start), count: length) { channel, samples in
                block.withChannel(channel) { out in
                    for n in 0..<length { out[offset + n] += samples[n] * gains[offset + n] }
                }
            }
            return
        }
        // Varispeed: output sample n plays source position sourceStart + n × speed.
        let first = Double(from - piece.start) * piece.speed
        let base = piece.sourceStart + Int64(first.rounded(.down))
        let span = min(reader.maximumRead, Int((Double(length) * piece.speed).rounded(.up)) + 2)
        let phase = first - first.rounded(.down), speed = piece.speed
        try reader.withSamples(at: base, count: span) { channel, samples in
            block.withChannel(channel) { out in
                for n in 0..<length {
                    let position = phase + Double(n) * speed
                    let i = min(Int(position), span - 2), fraction = Float(position - Double(i))
                    let value = samples[i] + (samples[i + 1] - samples[i]) * fraction
                    out[offset + n] += value * gains[offset + n]
                }
            }
        }
    }

    /// The reader for track `t`'s current source, opened on first use and reopened when
    /// the track moves on to another file (so finished clips release their decoders).
    private func reader(for t: Int, source: SourceTrack) throws(FFmpegError) -> AudioTrackReader {
        if let reader = tracks[t].reader, let current = tracks[t].readerSource,
           current.asset == source.asset, current.trackID == source.trackID {
            return reader
        }
        tracks[t].reader = nil
        let reader = try AudioTrackReader(path: source.asset, trackID: source.trackID, sampleRate: sampleRate, channels: channels,
                                          maximumRead: Int(Double(maximumBlock) * Self.maximumSpeed) + 2)
        tracks[t].reader = reader
        tracks[t].readerSource = source
        return reader
    }
}
