/// One track of a composition: a contiguous list of segments starting at zero, edited with
/// the operations of AVMutableCompositionTrack.
///
/// Every edit keeps the track contiguous: inserting pushes later content back, removing
/// pulls it forward, scaling stretches the range and moves what follows. An edit that is
/// refused throws and leaves the track as it was.
public struct CompositionTrack: Sendable, Hashable {
    public let trackID: TrackID
    public let mediaType: MediaType
    public private(set) var segments: [TrackSegment] = []

    public init(trackID: TrackID, mediaType: MediaType) {
        self.trackID = trackID
        self.mediaType = mediaType
    }

    /// Where the track's content ends (zero for an empty track).
    public var end: MediaTime { segments.last?.target.end ?? .zero }

    /// `[0, end)`.
    public var timeRange: TimeRange { TimeRange(start: .zero, end: end) }

    /// The segment covering composition time `time`, if any.
    public func segment(at time: MediaTime) -> TrackSegment? {
        segmentIndex(at: time).map { segments[$0] }
    }

    /// The index of the segment covering `time`, found by binary search.
    public func segmentIndex(at time: MediaTime) -> Int? {
        var low = 0, high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].target.end <= time { low = mid + 1 } else { high = mid }
        }
        return low < segments.count && segments[low].target.contains(time) ? low : nil
    }

    // MARK: Editing

    /// Inserts `sourceRange` of `source` at `time`, pushing later content back by the
    /// range's duration (insertTimeRange(_:of:at:)). Inserting past the end first fills
    /// the gap with an empty segment.
    public mutating func insert(_ sourceRange: TimeRange, of source: SourceTrack, at time: MediaTime) throws(CompositionEditError) {
        guard sourceRange.isValid, sourceRange.duration > .zero else { throw .invalidTimeRange(sourceRange) }
        try checkSource(sourceRange, of: source)
        try insertSegment(TrackSegment(track: source, sourceRange: sourceRange,
                                       target: TimeRange(start: time, duration: sourceRange.duration)))
    }

    /// Holds the frame at `sourceTime` of `source` for `duration` starting at `time`:
    /// a segment whose source range has zero duration (a still).
    public mutating func insertHold(at sourceTime: MediaTime, of source: SourceTrack,
                                    at time: MediaTime, duration: MediaTime) throws(CompositionEditError) {
        let sourceRange = TimeRange(start: sourceTime, duration: .zero)
        guard sourceTime.isNumeric else { throw .invalidTime(sourceTime) }
        let target = TimeRange(start: time, duration: duration)
        guard target.isValid, duration > .zero else { throw .invalidTimeRange(target) }
        try checkSource(sourceRange, of: source)
        try insertSegment(TrackSegment(track: source, sourceRange: sourceRange, target: target))
    }

    /// Inserts an empty segment over `range`, pushing later content back
    /// (insertEmptyTimeRange(_:)).
    public mutating func insertEmpty(_ range: TimeRange) throws(CompositionEditError) {
        guard range.isValid, range.duration > .zero else { throw .invalidTimeRange(range) }
        try insertSegment(TrackSegment(emptyTarget: range))
    }

    /// Removes `range` from the track, pulling later content forward
    /// (removeTimeRange(_:)). The part of `range` past the end is ignored.
    public mutating func remove(_ range: TimeRange) throws(CompositionEditError) {
        guard range.isValid, range.start >= .zero else { throw .invalidTimeRange(range) }
        let end = MediaTime.min(range.end, self.end)
        guard range.start < end else { return }
        let first = split(at: range.start), last = split(at: end)
        segments.removeSubrange(first..<last)
        shiftSegments(from: first, by: range.start - end)
        restoreExactBoundaries()
    }

    /// Changes the duration of `range` to `duration`, so every segment in it plays at a
    /// new speed, and moves later content by the difference (scaleTimeRange(_:toDuration:)).
    /// Segments are split at the range's edges; each boundary inside moves proportionally.
    public mutating func scale(_ range: TimeRange, toDuration duration: MediaTime) throws(CompositionEditError) {
        guard range.isValid, range.start >= .zero, range.duration > .zero else { throw .invalidTimeRange(range) }
        guard duration.isNumeric, duration > .zero else { throw .invalidTime(duration) }
        let end = MediaTime.min(range.end, self.end)
        guard range.start < end else { return }
        let first = split(at: range.start), last = split(at: end)
        // Every boundary maps through the same function, so neighbours stay contiguous
        // even when a mapped time has to be rounded.
        func map(_ t: MediaTime) -> MediaTime {
            range.start + (t - range.start).multiplied(by: (duration, range.duration))
        }
        for i in first..<last {
            let s = map(segments[i].target.start), e = map(segments[i].target.end)
            segments[i].target = TimeRange(start: s, end: e)
        }
        shiftSegments(from: last, by: map(end) - end)
        restoreExactBoundaries()
    }

    /// Replaces all segments after checking them with `validateSegments`
    /// (AVMutableCompositionTrack's `segments` setter).
    public mutating func setSegments(_ newSegments: [TrackSegment]) throws(CompositionEditError) {
        let problems = Self.validateSegments(newSegments, trackID: trackID)
        guard problems.isEmpty else { throw .invalidSegments(problems) }
        for segment in newSegments {
            if let source = segment.source, source.track.mediaType != mediaType {
                throw .mediaTypeMismatch(track: mediaType, source: source.track.mediaType)
            }
        }
        segments = newSegments
    }

    // MARK: Validation

    /// Everything wrong with this track's segments; empty when it is valid.
    public func validate() -> [CompositionValidationError] {
        Self.validateSegments(segments, trackID: trackID)
    }

    /// Checks `segments` as a track's content: the first starts at zero, each starts
    /// where the previous ends, target durations are positive, times are numeric, and
    /// source ranges lie inside their source tracks. A zero source duration is valid.
    public static func validateSegments(_ segments: [TrackSegment], trackID: TrackID) -> [CompositionValidationError] {
        var problems: [CompositionValidationError] = []
        var previousEnd: MediaTime?
        for (i, segment) in segments.enumerated() {
            let target = segment.target
            guard target.start.isNumeric, target.duration.isNumeric else {
                problems.append(.invalidTimeRange(track: trackID, segment: i, range: target))
                previousEnd = nil
                continue
            }
            if let previousEnd {
                if target.start != previousEnd {
                    problems.append(.notContiguous(track: trackID, segment: i, previousEnd: previousEnd, start: target.start))
                }
            } else if i == 0, target.start != .zero {
                problems.append(.doesNotStartAtZero(track: trackID, start: target.start))
            }
            if target.duration <= .zero {
                problems.append(.nonPositiveDuration(track: trackID, segment: i, target: target))
            }
            if let source = segment.source {
                if !source.timeRange.isValid {
                    problems.append(.invalidTimeRange(track: trackID, segment: i, range: source.timeRange))
                } else if !source.track.timeRange.contains(source.timeRange) {
                    problems.append(.sourceOutsideAsset(track: trackID, segment: i, source: source.timeRange,
                                                        available: source.track.timeRange))
                }
            }
            previousEnd = target.end
        }
        return problems
    }

    // MARK: Internals

    private func checkSource(_ sourceRange: TimeRange, of source: SourceTrack) throws(CompositionEditError) {
        guard source.mediaType == mediaType else { throw .mediaTypeMismatch(track: mediaType, source: source.mediaType) }
        guard source.timeRange.contains(sourceRange) else {
            throw .sourceOutsideAsset(source: sourceRange, available: source.timeRange, asset: source.asset)
        }
    }

    /// Inserts `segment` at its target start, filling any gap before it with an empty
    /// segment and pushing later segments back by its duration.
    private mutating func insertSegment(_ segment: TrackSegment) throws(CompositionEditError) {
        let time = segment.target.start
        guard time.isNumeric, time >= .zero else { throw .invalidTime(time) }
        if time > end {
            segments.append(TrackSegment(emptyTarget: TimeRange(start: end, end: time)))
        }
        let index = split(at: time)
        shiftSegments(from: index, by: segment.target.duration)
        segments.insert(segment, at: index)
        restoreExactBoundaries()
    }

    /// Splits the segment strictly containing `time` in two and returns the index of the
    /// first segment that starts at or after `time`.
    private mutating func split(at time: MediaTime) -> Int {
        guard let i = segmentIndex(at: time) else {
            return segments.firstIndex { $0.target.start >= time } ?? segments.count
        }
        let segment = segments[i]
        guard segment.target.start < time else { return i }
        var head = segment, tail = segment
        head.target = TimeRange(start: segment.target.start, end: time)
        tail.target = TimeRange(start: time, end: segment.target.end)
        if let source = segment.source, let cut = segment.sourceTime(forTargetTime: time) {
            head.source?.timeRange = Self.span(from: source.timeRange.start, to: cut)
            tail.source?.timeRange = Self.span(from: cut, to: source.timeRange.end)
        }
        segments[i] = head
        segments.insert(tail, at: i + 1)
        return i + 1
    }

    /// The timescale that times fall back to when exact arithmetic would need a timescale
    /// past Int32 (after many scales by unrelated ratios): nanoseconds.
    static let fallbackTimescale: Int32 = 1_000_000_000

    /// The range from `start` to `end` whose end is `end` to the letter: when the
    /// difference had to be rounded, both points move to the fallback timescale, where the
    /// difference is exact.
    static func span(from start: MediaTime, to end: MediaTime) -> TimeRange {
        let range = TimeRange(start: start, end: end)
        if range.end == end { return range }
        return TimeRange(start: start.convertScale(fallbackTimescale), end: end.convertScale(fallbackTimescale))
    }

    /// Keeps the track contiguous to the letter. Edits compute each boundary once, but a
    /// boundary that had to be rounded can make `start + duration` miss the next start by
    /// a fraction of a tick; then every boundary moves to the fallback timescale, where all
    /// sums and differences are exact, and any segment shorter than one tick is dropped.
    private mutating func restoreExactBoundaries() {
        guard let first = segments.first else { return }
        var exact = first.target.start == .zero
        for (a, b) in zip(segments, segments.dropFirst()) where a.target.end != b.target.start {
            exact = false
            break
        }
        guard !exact else { return }
        let scale = Self.fallbackTimescale
        var start = MediaTime.zero.convertScale(scale)
        var snapped: [TrackSegment] = []
        for (i, segment) in segments.enumerated() {
            let end = (i + 1 < segments.count ? segments[i + 1].target.start : segment.target.end).convertScale(scale)
            guard end > start else { continue }
            var moved = segment
            moved.target = TimeRange(start: start, duration: end - start)
            snapped.append(moved)
            start = end
        }
        segments = snapped
    }

    private mutating func shiftSegments(from index: Int, by offset: MediaTime) {
        guard offset != .zero else { return }
        for i in index..<segments.count {
            segments[i].target = segments[i].target.shifted(by: offset)
        }
    }
}
