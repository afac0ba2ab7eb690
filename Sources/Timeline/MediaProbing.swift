/// What an editor needs to know about a media file (AVAssetTrack's naturalSize,
/// preferredTransform, nominalFrameRate, timeRange). MediaIO's `Asset`
/// provides it for real files; tests provide it directly, without media.
public struct ProbedMedia: Sendable, Hashable {
    public struct Video: Sendable, Hashable {
        public var trackID: TrackID
        public var timeRange: TimeRange
        /// The stored frame size, before the display matrix.
        public var naturalSize: PixelSize
        /// The display matrix as an AVFoundation preferredTransform (rotation + the
        /// translation that keeps the frame at the origin).
        public var preferredTransform: AffineTransform
        /// Nominal time per frame (1/30 for 30 fps).
        public var frameDuration: MediaTime

        public init(trackID: TrackID, timeRange: TimeRange, naturalSize: PixelSize,
                    preferredTransform: AffineTransform = .identity, frameDuration: MediaTime) {
            self.trackID = trackID
            self.timeRange = timeRange
            self.naturalSize = naturalSize
            self.preferredTransform = preferredTransform
            self.frameDuration = frameDuration
        }
    }

    public struct Audio: Sendable, Hashable {
        public var trackID: TrackID
        public var timeRange: TimeRange
        public var sampleRate: Int
        public var channels: Int

        public init(trackID: TrackID, timeRange: TimeRange, sampleRate: Int = 48000, channels: Int = 2) {
            self.trackID = trackID
            self.timeRange = timeRange
            self.sampleRate = sampleRate
            self.channels = channels
        }
    }

    public var path: String
    public var duration: MediaTime
    public var video: Video?
    public var audio: Audio?
    /// The container's creation time (ISO 8601), carried over to the output.
    public var creationTime: String?

    public init(path: String, duration: MediaTime, video: Video? = nil, audio: Audio? = nil, creationTime: String? = nil) {
        self.path = path
        self.duration = duration
        self.video = video
        self.audio = audio
        self.creationTime = creationTime
    }
}

/// Probes media files for the composition builder.
public protocol MediaProbing: Sendable {
    /// Throws with a message naming the file when it cannot be read as media.
    func probe(_ path: String) throws -> ProbedMedia
}
