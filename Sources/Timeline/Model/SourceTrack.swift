/// A track of a media file that a composition takes content from: which asset, which
/// track of it, the time range the track covers (to check source ranges against) and, for
/// interlaced video, its field order (how a renderer reads its frames).
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
    /// Video: the field shown first when the track's frames are interlaced, as the probe
    /// found (`ProbedMedia.Video.fieldOrder`); nil for progressive video. A renderer that
    /// deinterlaces does so to exactly these tracks, so the frames come at the field rate
    /// the composition was planned with.
    public var fieldOrder: FieldOrder?
    /// True when the asset is a still picture (a PNG or JPEG file), not a movie: its one
    /// picture is the whole track (`timeRange` is empty, at 0), segments of it are stills,
    /// and a renderer decodes it once as a picture rather than reading it as a stream.
    public var isStillImage: Bool

    public init(asset: String, trackID: TrackID, mediaType: MediaType, timeRange: TimeRange, fieldOrder: FieldOrder? = nil,
                isStillImage: Bool = false) {
        self.asset = asset
        self.trackID = trackID
        self.mediaType = mediaType
        self.timeRange = timeRange
        self.fieldOrder = fieldOrder
        self.isStillImage = isStillImage
    }

    /// A track covering `[0, duration)`.
    public init(asset: String, trackID: TrackID, mediaType: MediaType, duration: MediaTime, fieldOrder: FieldOrder? = nil) {
        self.init(asset: asset, trackID: trackID, mediaType: mediaType,
                  timeRange: TimeRange(start: .zero, duration: duration), fieldOrder: fieldOrder)
    }
}
