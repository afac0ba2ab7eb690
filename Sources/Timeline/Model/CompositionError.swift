/// Why an edit of a composition track was refused. The track is left unchanged.
public enum CompositionEditError: Error, Hashable, Sendable {
    /// A time range that is invalid, negative or (where content is required) empty.
    case invalidTimeRange(TimeRange)
    /// A time that is not numeric or lies before zero.
    case invalidTime(MediaTime)
    /// The requested source range is not inside the time the source track covers.
    case sourceOutsideAsset(source: TimeRange, available: TimeRange, asset: String)
    /// Video content into an audio track or the reverse.
    case mediaTypeMismatch(track: MediaType, source: MediaType)
    /// No track with this id in the composition.
    case unknownTrack(TrackID)
    /// `setSegments` was given segments that do not validate.
    case invalidSegments([CompositionValidationError])
}

/// A problem `validate()` found in a composition track (AVFoundation's
/// validateSegments: errors), with the times that show it.
public enum CompositionValidationError: Error, Hashable, Sendable {
    /// The first segment does not start at time zero.
    case doesNotStartAtZero(track: TrackID, start: MediaTime)
    /// Segment `segment` does not start where the one before it ends: a gap when
    /// `start > previousEnd`, an overlap when `start < previousEnd`.
    case notContiguous(track: TrackID, segment: Int, previousEnd: MediaTime, start: MediaTime)
    /// Segment `segment` has a target duration of zero or less.
    case nonPositiveDuration(track: TrackID, segment: Int, target: TimeRange)
    /// Segment `segment` reads outside the time its source track covers.
    case sourceOutsideAsset(track: TrackID, segment: Int, source: TimeRange, available: TimeRange)
    /// Segment `segment` has a non-numeric time or a negative source duration.
    case invalidTimeRange(track: TrackID, segment: Int, range: TimeRange)

    /// For `notContiguous`: true for a gap, false for an overlap; nil for other errors.
    public var isGap: Bool? {
        if case let .notContiguous(_, _, previousEnd, start) = self { return start > previousEnd }
        return nil
    }
}

extension CompositionValidationError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .doesNotStartAtZero(track, start):
            return "track \(track): first segment starts at \(start), not at 0.000"
        case let .notContiguous(track, segment, previousEnd, start):
            let what = start > previousEnd ? "gap" : "overlap"
            return "track \(track): segments not contiguous, \(what) at segment \(segment): previous ends at \(previousEnd), next starts at \(start)"
        case let .nonPositiveDuration(track, segment, target):
            return "track \(track): segment \(segment) has non-positive duration \(target)"
        case let .sourceOutsideAsset(track, segment, source, available):
            return "track \(track): segment \(segment) source \(source) is outside the asset track's \(available)"
        case let .invalidTimeRange(track, segment, range):
            return "track \(track): segment \(segment) has an invalid time range \(range)"
        }
    }
}
