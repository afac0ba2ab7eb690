/// A half-open range of media time `[start, start + duration)`, like CMTimeRange.
///
/// A zero-duration range is a point: it contains nothing, but it is valid (a segment whose
/// source range has zero duration holds one frame).
public struct TimeRange: Sendable, Hashable {
    public var start: MediaTime
    public var duration: MediaTime

    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to (not including) `end`.
    public init(start: MediaTime, end: MediaTime) {
        self.init(start: start, duration: end - start)
    }

    public static let zero = TimeRange(start: .zero, duration: .zero)
    public static let invalid = TimeRange(start: .invalid, duration: .invalid)

    public var end: MediaTime { start + duration }

    /// Both times numeric and the duration not negative (CMTIMERANGE_IS_VALID).
    public var isValid: Bool { start.isNumeric && duration.isNumeric && duration >= .zero }

    public var isEmpty: Bool { isValid && duration == .zero }

    /// True when `time` lies in `[start, end)`.
    public func contains(_ time: MediaTime) -> Bool {
        isValid && time.isNumeric && start <= time && time < end
    }

    /// True when `other` lies wholly inside this range (an empty `other` at `end` counts).
    public func contains(_ other: TimeRange) -> Bool {
        isValid && other.isValid && start <= other.start && other.end <= end
    }

    /// The common part of two ranges, or nil when they do not overlap.
    public func intersection(_ other: TimeRange) -> TimeRange? {
        guard isValid, other.isValid else { return nil }
        let s = MediaTime.max(start, other.start), e = MediaTime.min(end, other.end)
        return s < e ? TimeRange(start: s, end: e) : nil
    }

    /// The smallest range covering both (CMTimeRangeGetUnion: the span, gaps included).
    public func union(_ other: TimeRange) -> TimeRange {
        guard isValid, other.isValid else { return .invalid }
        return TimeRange(start: MediaTime.min(start, other.start), end: MediaTime.max(end, other.end))
    }

    /// True when the two ranges share some time.
    public func overlaps(_ other: TimeRange) -> Bool { intersection(other) != nil }

    /// This range moved by `offset`.
    public func shifted(by offset: MediaTime) -> TimeRange {
        TimeRange(start: start + offset, duration: duration)
    }
}

extension TimeRange: CustomStringConvertible {
    /// `[start,+duration]` in seconds with three decimals, as AVFoundation prints ranges.
    public var description: String { "[\(start),+\(duration)]" }
}
