internal import CDropcutFFmpeg
import DropcutTimeline

/// Reads the frames of one video track, by source time: `frame(at:)` returns the frame
/// whose presentation interval `[pts, next pts)` covers the time — decided exactly from
/// timestamps in the stream's time base, never by counting frames; in a constant-rate
/// stream a frame stamped at most an eighth of a frame after its place on the grid
/// (`FrameGrid.stampTolerance`: a phone's clock rounding the stamp to its ticks) counts
/// from its place.
///
/// It decodes forward and keeps the two frames around the request, so a composition
/// asking for steadily increasing times (any speed, held frames, repeats) decodes each
/// frame once; it seeks only when asked to go back, or further ahead than `seekAhead`
/// while frames remain.
/// Two frames are reused throughout: no allocation per frame.
///
/// Source time 0 is the stream's first presented frame (its start time), as in
/// `AssetProbe`.
package final class VideoTrackReader {
    package let path: String
    package let streamIndex: Int
    /// The shape of the stream's stored pixels (as `AssetProbe` reports it): frames are
    /// shown at their size widened by it.
    package let pixelAspectRatio: PixelAspectRatio
    /// A request this far past the frame in hand seeks instead of decoding through.
    package var seekAhead = MediaTime(seconds: 2)

    private let source: StreamDecoder
    private let timeBase: MediaTime
    private let startTime: MediaTime
    /// The frame covering the last request, and the one after it (nil past the end).
    private var current: VideoFrame
    private var next: VideoFrame
    private var hasCurrent = false, hasNext = false
    /// What the decoded frames pass through before they are shown (a deinterlacer), the
    /// frame it is handed them in, and whether the end of the stream has been handed on.
    private let filter: (any VideoFrameFilter)?
    private let decoded: VideoFrame
    private var decoderEnded = false
    /// The stream's frame grid (its nominal rate): a frame stamped a little after its
    /// place on it is shown from its place.
    private let grid: FrameGrid?

    /// Opens track `trackID` (stream index + 1) of the file at `path`; its frames pass
    /// through the filter `filter` makes for the stream, when it makes one (a deinterlacer
    /// for an interlaced stream).
    package init(path: String, trackID: TrackID,
                filter makeFilter: (StreamInfo) throws(FFmpegError) -> (any VideoFrameFilter)? = { _ in nil }) throws(FFmpegError) {
        self.path = path
        source = try StreamDecoder(path: path, trackID: trackID, kind: .video)
        streamIndex = source.streamIndex
        timeBase = source.stream.timeBase
        startTime = source.demuxer.origin(of: source.stream)
        pixelAspectRatio = source.stream.pixelAspectRatio ?? .square
        current = try VideoFrame()
        next = try VideoFrame()
        decoded = try VideoFrame()
        filter = try makeFilter(source.stream)
        // A phone's clock rounds each frame's time to its ticks: a frame stamped a fraction
        // of a tick after its place on the grid is still the frame of that place, or a
        // composition asking for the place would show the frame before it twice.
        let origin = startTime, stream = source.stream
        // A variable rate's nominal one (`r_frame_rate`) is its finest grid, so a frame is
        // moved to its place by an eighth of a finer frame than its own at most; a nominal
        // rate below the average is no grid.
        grid = stream.frameDuration.flatMap { nominal in
            if stream.isVariableFrameRate, let average = stream.averageFrameDuration, nominal > average { return nil }
            return FrameGrid(origin: origin, frameDuration: nominal)
        }
    }

    /// The stream as the demuxer describes it (field order, pixel aspect...).
    package var stream: StreamInfo { source.stream }

    /// How many packets the reader has read from its file: what its requests have cost.
    var packetsRead: Int { source.demuxer.packetsRead }

    /// How many frames the reader has decoded (before any filter): what shows whether
    /// several outputs drawing the same source frame decoded it once.
    package private(set) var framesDecoded = 0

    /// The frame shown at `sourceTime`, or nil when the track has no frames. Before the
    /// first frame it is the first frame; past the last, the last. The frame belongs to
    /// the reader and stays valid until the next call.
    package func frame(at sourceTime: MediaTime) throws(FFmpegError) -> VideoFrame? {
        let target = sourceTime + startTime
        // Past the last frame (no next one: the stream has ended) the last frame holds
        // without seeking: a composition longer than its video would otherwise seek and
        // decode the last GOP again for every frame it holds.
        if hasCurrent, target < time(of: current) || (hasNext && target > time(of: current) + seekAhead) {
            try seek(to: target)
        } else if !hasCurrent, !decoderEnded, framesDecoded == 0, target > startTime + seekAhead {
            // A first request far into the clip (a render of a piece of the timeline): seek
            // rather than decode everything before it.
            try seek(to: target)
        }
        if !hasCurrent {
            hasCurrent = try decodeNext(into: current)
            if !hasCurrent { return nil }
            hasNext = try decodeNext(into: next)
        }
        // Step forward while the following frame starts at or before the target.
        while hasNext, shownFrom(next) <= target {
            swap(&current, &next)
            hasNext = try decodeNext(into: next)
        }
        return current
    }

    /// The frame shown at `sourceTime` and the one after it, with how far the time lies
    /// from the first towards the second (0 ≤ weight < 1) — what frame blending mixes.
    /// `next` is nil at the last frame (weight 0). Both frames belong to the reader and
    /// stay valid until the next call.
    package func frames(around sourceTime: MediaTime) throws(FFmpegError) -> (frame: VideoFrame, next: VideoFrame?, weight: Double)? {
        guard let frame = try frame(at: sourceTime) else { return nil }
        guard hasNext else { return (frame, nil, 0) }
        let start = time(of: current), gap = time(of: next) - start
        let offset = sourceTime + startTime - start
        guard gap > .zero, offset > .zero else { return (frame, next, 0) }
        return (frame, next, min(offset.seconds / gap.seconds, 1))
    }

    /// When a frame starts to be shown: its stamp, or in a constant-rate stream its place
    /// on the grid when it is stamped after that place by at most `FrameGrid.stampTolerance`
    /// (a phone's clock rounding to its ticks; a stamp on the grid is its place).
    private func shownFrom(_ frame: VideoFrame) -> MediaTime {
        let stamp = time(of: frame)
        guard let grid, let place = grid.frame(stampedAt: stamp) else { return stamp }
        return min(stamp, grid.start(ofFrame: place))
    }

    /// A frame's presentation time in the stream (best-effort timestamp: FFmpeg's guess
    /// when packets lack PTS).
    private func time(of frame: VideoFrame) -> MediaTime {
        timeBase.multiplied(by: frame.pts ?? 0, dividedBy: filter?.timestampMultiplier ?? 1)
    }

    private func seek(to target: MediaTime) throws(FFmpegError) {
        try source.seek(to: target)
        hasCurrent = false
        hasNext = false
        filter?.reset()
        decoderEnded = false
    }

    /// The next frame to show, into `frame`: decoded, and passed through the filter when
    /// there is one. False at the end.
    private func decodeNext(into frame: VideoFrame) throws(FFmpegError) -> Bool {
        guard let filter else { return try decodeFrame(into: frame) }
        do {
            while true {
                if try filter.pull(into: frame) { return true }
                if decoderEnded { return false }
                if try decodeFrame(into: decoded) {
                    try filter.push(decoded)
                } else {
                    decoderEnded = true
                    try filter.push(nil)
                }
            }
        } catch let error as FFmpegError {
            throw error
        } catch {
            throw FFmpegError(code: cff_averror(EINVAL), function: "video filter", path: path, streamIndex: streamIndex,
                              note: "\(error)")
        }
    }

    /// Decodes the next frame of the stream into `frame`; false at the end.
    private func decodeFrame(into frame: VideoFrame) throws(FFmpegError) -> Bool {
        guard try source.decodeNext(into: frame.frame) else { return false }
        framesDecoded += 1
        let best = frame.frame.pointee.best_effort_timestamp
        frame.pts = best == cff_nopts_value() ? nil : best
        return true
    }
}
