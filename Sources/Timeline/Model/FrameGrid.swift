/// The frames of a constant-rate video as times: frame `k` starts at
/// `origin + k × frameDuration`. It says what a recipe's time means in frames.
///
/// **The rule.** A time means the first frame that starts at it or after it: a cut at `t`
/// keeps the frames whose timestamps are ≥ `t`, and a range `[a, b)` holds the frames that
/// start in it — ffmpeg's `-ss`/`-to` and its `trim` filter count the same way, and a
/// range's `contains` (start included, end not) is the same test for an output's frames
/// (an overlay's `during:`, a caption's cue). A time on a frame's start is that frame; a
/// time between two frames is the later one, never a frame shown in part.
///
/// Cuts snapped to the frames they mean are what lets a 29.97 fps (1001-based) clip be
/// cut at 2.5 s by copying: 2.5 s is no frame's time there (frame 74 starts at 2.4691 s,
/// frame 75 at 2.5025 s), so an output cut there would show each source frame 1/30 s off
/// its own time, and no frame could be copied.
package struct FrameGrid: Sendable, Hashable {
    /// When frame 0 starts.
    package var origin: MediaTime
    /// How long each frame is shown (more than zero).
    package var frameDuration: MediaTime

    /// Nil for a duration of zero or less, or a time that is not a number.
    package init?(origin: MediaTime, frameDuration: MediaTime) {
        guard origin.isNumeric, frameDuration.isNumeric, frameDuration > .zero else { return nil }
        self.origin = origin
        self.frameDuration = frameDuration
    }

    /// The index of the first frame starting at `time` or after it (frames before the
    /// origin count as negative); nil for a time that is not a number or out of range.
    package func frame(atOrAfter time: MediaTime) -> Int64? {
        guard let ratio = (time - origin).ratio(to: frameDuration) else { return nil }
        // ceil(n / d) for d > 0.
        let (quotient, remainder) = ratio.numerator.quotientAndRemainder(dividingBy: ratio.denominator)
        let frame = remainder > 0 ? quotient + 1 : quotient
        return Int64(exactly: frame)
    }

    /// How far from its frame's start a picture's stamp may stray and still be that
    /// frame, in frames: an eighth (4.2 ms at 29.97 fps). A phone's clock rounds each
    /// picture's time to its own ticks — 29.97 fps on a 600 Hz clock is 20 ticks apart,
    /// now and then 21, up to half a tick (0.8 ms) off — so its pictures stray from the
    /// grid by a fraction of a tick and are still one picture per frame; a clock running
    /// at another rate drifts past it within seconds.
    package static let stampTolerance = 8

    /// The frame a picture stamped at `time` is: the one whose start is nearest, when the
    /// stamp is within `stampTolerance` of it; nil when it is not (the picture is off the
    /// grid) or out of range.
    package func frame(stampedAt time: MediaTime) -> Int64? {
        guard let ratio = (time - origin).ratio(to: frameDuration) else { return nil }
        let (n, m) = ratio
        // round(n / m) for m > 0: floor((2n + m) / 2m).
        let (q, r) = (2 * n + m).quotientAndRemainder(dividingBy: 2 * m)
        let frame = r < 0 ? q - 1 : q
        let off = n - frame * m
        guard Int128(Self.stampTolerance) * Int128(off.magnitude) <= m else { return nil }
        return Int64(exactly: frame)
    }

    /// When frame `index` starts.
    package func start(ofFrame index: Int64) -> MediaTime {
        origin + frameDuration.multiplied(by: index, dividedBy: 1)
    }

    /// `time` moved to the start of the frame it means (itself when on a frame's start).
    package func snapped(_ time: MediaTime) -> MediaTime {
        guard let frame = frame(atOrAfter: time) else { return time }
        return start(ofFrame: frame)
    }

    /// The frames starting in `range`, as the range from the first one's start to the
    /// start of the first one after them; nil when none starts in it (a range shorter
    /// than a frame, between two frames' starts).
    package func snapped(_ range: TimeRange) -> TimeRange? {
        let start = snapped(range.start), end = snapped(range.end)
        return start < end ? TimeRange(start: start, end: end) : nil
    }
}
