/// One piece of a composition track: a `target` range of composition time, filled from a
/// `source` range of an asset track, or empty.
///
/// Speed is `source.duration / target.duration` (AVCompositionTrackSegment's time mapping):
/// 2.0 plays twice as fast, 0.25 is 4× slow motion, and a zero source duration holds one
/// frame (a still) for the whole target duration.
public struct TrackSegment: Sendable, Hashable {
    /// Where the content comes from.
    public struct Source: Sendable, Hashable {
        public var track: SourceTrack
        public var timeRange: TimeRange
        public init(track: SourceTrack, timeRange: TimeRange) {
            self.track = track
            self.timeRange = timeRange
        }
    }

    /// Where the segment sits in composition time.
    public var target: TimeRange
    /// Nil for an empty segment.
    public var source: Source?

    /// A segment that plays `sourceRange` of `track` over `target`.
    public init(track: SourceTrack, sourceRange: TimeRange, target: TimeRange) {
        self.target = target
        self.source = Source(track: track, timeRange: sourceRange)
    }

    /// An empty segment over `target` (AVCompositionTrackSegment(timeRange:)).
    public init(emptyTarget target: TimeRange) {
        self.target = target
        self.source = nil
    }

    public var isEmpty: Bool { source == nil }

    /// True when the segment shows one source frame for its whole target range.
    public var isStill: Bool { source.map { $0.timeRange.duration == .zero } ?? false }

    /// The exact speed `source.duration / target.duration`, nil for empty segments or a
    /// non-positive target duration.
    public var speedRatio: (numerator: Int128, denominator: Int128)? {
        guard let source else { return nil }
        return source.timeRange.duration.ratio(to: target.duration)
    }

    /// Speed as a number, for display and for rate-dependent processing (1.0 when empty).
    public var speed: Double {
        guard let r = speedRatio else { return 1 }
        return Double(r.numerator) / Double(r.denominator)
    }

    /// The source time shown at composition time `time` (which should lie in `target`):
    /// `source.start + (time - target.start) × speed`, exact where representable.
    public func sourceTime(forTargetTime time: MediaTime,
                           rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> MediaTime? {
        guard let source, target.duration > .zero else { return nil }
        let offset = (time - target.start).multiplied(by: (source.timeRange.duration, target.duration), rounding: rule)
        return source.timeRange.start + offset
    }

    /// The composition time at which source time `time` is shown (the inverse mapping).
    /// Nil for empty or still segments.
    public func targetTime(forSourceTime time: MediaTime) -> MediaTime? {
        guard let source, source.timeRange.duration > .zero else { return nil }
        return target.start + (time - source.timeRange.start).multiplied(by: (target.duration, source.timeRange.duration))
    }
}

extension TrackSegment: CustomStringConvertible {
    /// AVFoundation's segment description, plus the speed:
    /// `timeRange [2.000,+6.000] from trackID 1 of asset music.mp3 sourceTimeRange [0.000,+6.000] speed 1.00`
    /// or `timeRange [0.000,+2.000] is empty`; a still picture's (`SourceTrack.isStillImage`)
    /// `timeRange [0.000,+2.000] from trackID 1 of asset photo.jpg still image`.
    public var description: String {
        guard let source else { return "timeRange \(target) is empty" }
        if source.track.isStillImage {
            return "timeRange \(target) from trackID \(source.track.trackID) of asset \(source.track.asset) still image"
        }
        return "timeRange \(target) from trackID \(source.track.trackID) of asset \(source.track.asset) "
            + "sourceTimeRange \(source.timeRange) speed \(formatFixed(speed, decimals: 2))"
    }
}

/// `value` with exactly `decimals` places, rounded half away from zero; deterministic
/// across platforms (no locale, no `String(format:)`).
func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return String(value) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    let whole = Int64(scaled / scale)
    let frac = Int64(scaled - Double(whole) * scale)
    var text = (value < 0 && scaled != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let digits = String(frac)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}
