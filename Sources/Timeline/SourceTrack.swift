/// A track of a media file that a composition takes content from: which asset, which
/// track of it, and the time range the track covers (to check source ranges against).
///
/// The Timeline model stores no file handles: `asset` is the name or path the caller uses
/// (it appears in descriptions), and probing the file is MediaIO's job.
public struct SourceTrack: Sendable, Hashable {
    /// The asset's name or path, as it should appear in descriptions.
    public var asset: String
    /// The track's id inside its asset (the stream index + 1 for files read with FFmpeg).
    public var trackID: TrackID
    public var mediaType: MediaType
    /// The time the track covers in its asset.
    public var timeRange: TimeRange

    public init(asset: String, trackID: TrackID, mediaType: MediaType, timeRange: TimeRange) {
        self.asset = asset
        self.trackID = trackID
        self.mediaType = mediaType
        self.timeRange = timeRange
    }

    /// A track covering `[0, duration)`.
    public init(asset: String, trackID: TrackID, mediaType: MediaType, duration: MediaTime) {
        self.init(asset: asset, trackID: trackID, mediaType: mediaType,
                  timeRange: TimeRange(start: .zero, duration: duration))
    }
}
