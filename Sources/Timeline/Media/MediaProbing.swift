/// What an editor needs to know about a media file (AVAssetTrack's naturalSize,
/// preferredTransform, nominalFrameRate, timeRange). MediaIO's `AssetProbe`
/// provides it for real files; tests provide it directly, without media.
public struct ProbedMedia: Sendable, Hashable {
    /// The file's video stream as a composition uses it: its track, extent, sizes, orientation, rate, field order and colour.
    public struct Video: Sendable, Hashable {
        public var trackID: TrackID
        public var timeRange: TimeRange
        /// The size the frame is shown at in square pixels, before the display matrix:
        /// `encodedSize` widened or narrowed by `pixelAspectRatio` (AVFoundation's
        /// naturalSize with its pixel aspect applied). Transforms are in these units.
        public var naturalSize: PixelSize
        /// The stored frame size, in the codec's (maybe non-square) pixels.
        public var encodedSize: PixelSize
        /// The shape of a stored pixel (`.square` for almost all phone video).
        public var pixelAspectRatio: PixelAspectRatio
        /// Interlaced video: the field shown first; nil for progressive video.
        public var fieldOrder: FieldOrder?
        /// The display matrix as an AVFoundation preferredTransform (rotation + the
        /// translation that keeps the frame at the origin).
        public var preferredTransform: AffineTransform
        /// Nominal time per frame (1/30 for 30 fps; for interlaced video a whole frame of
        /// two fields, 1/25 for 1080i50).
        public var frameDuration: MediaTime
        /// How its samples are to be read as colour, with the players' defaults filled in
        /// (`output.dynamic_range: source` keeps HDR when a clip's is HLG or PQ); nil when
        /// not known.
        public var color: ColorDescription?
        /// True for a still picture (a PNG or JPEG file, found so by its content): one
        /// picture, no time of its own — `timeRange` is empty at 0 and `frameDuration` zero;
        /// a composition holds it for as long as it likes (`CompositionTrack.insertHold`).
        public var isStillImage: Bool
        /// The codec's FFmpeg name (`h264`, `hevc`, ...); nil when not known (a still
        /// picture, a description made by hand).
        public var codec: String?
        /// The stored pixel format's FFmpeg name (`yuv420p`, `yuv420p10le`, ...); nil when
        /// not known.
        public var pixelFormat: String?
        /// True when the frames do not come at one rate (phones in low light): the
        /// average rate differs from the nominal one.
        public var isVariableFrameRate = false
        /// True for a variable-rate stream whose every frame lies on its `frameDuration`
        /// grid, some places empty: a phone leaving frames out in low light, the frame
        /// before shown longer. Its cuts snap to frames, and smart render copies its
        /// groups of pictures with the frames left out still out.
        package var variableRateLiesOnGrid = false
        /// Whether each frame starts on the `frameDuration` grid (a constant rate, or a
        /// variable one with frames left out): what a cut's time means in frames.
        package var hasFrameGrid: Bool { !isVariableFrameRate || variableRateLiesOnGrid }
        /// True when the stream itself states its primaries, transfer and matrix (`color`
        /// then needs no default filled in).
        public var colorIsStated = false

        /// A track whose frame is shown at `naturalSize`; stored at `encodedSize` (default:
        /// the natural size, square pixels).
        public init(trackID: TrackID, timeRange: TimeRange, naturalSize: PixelSize, encodedSize: PixelSize? = nil,
                    pixelAspectRatio: PixelAspectRatio = .square, fieldOrder: FieldOrder? = nil,
                    preferredTransform: AffineTransform = .identity, frameDuration: MediaTime, color: ColorDescription? = nil,
                    isStillImage: Bool = false) {
            self.trackID = trackID
            self.timeRange = timeRange
            self.naturalSize = naturalSize
            self.encodedSize = encodedSize ?? naturalSize
            self.pixelAspectRatio = pixelAspectRatio
            self.fieldOrder = fieldOrder
            self.preferredTransform = preferredTransform
            self.frameDuration = frameDuration
            self.color = color
            self.isStillImage = isStillImage
        }

        /// A still picture `size` pixels large as stored (square pixels), shown through
        /// `preferredTransform` (a photo's EXIF orientation): the video of a PNG or JPEG file.
        public static func stillImage(trackID: TrackID = 1, size: PixelSize, preferredTransform: AffineTransform = .identity) -> Video {
            Video(trackID: trackID, timeRange: TimeRange(start: .zero, duration: .zero), naturalSize: size,
                  preferredTransform: preferredTransform, frameDuration: .zero, isStillImage: true)
        }

        /// True when the frames hold two fields each (deinterlacing shows them at
        /// `fieldDuration`).
        public var isInterlaced: Bool { fieldOrder != nil }

        /// The time per field: half a frame.
        public var fieldDuration: MediaTime { frameDuration.multiplied(by: 1, dividedBy: 2) }
    }

    /// The file's audio stream as a composition uses it: its track, extent, sample rate, channels and codec.
    public struct Audio: Sendable, Hashable {
        public var trackID: TrackID
        public var timeRange: TimeRange
        public var sampleRate: Int
        public var channels: Int
        /// The codec's FFmpeg name (`aac`, `mp3`, ...); nil when not known.
        public var codec: String?

        public init(trackID: TrackID, timeRange: TimeRange, sampleRate: Int = 48000, channels: Int = 2, codec: String? = nil) {
            self.trackID = trackID
            self.timeRange = timeRange
            self.sampleRate = sampleRate
            self.channels = channels
            self.codec = codec
        }
    }

    public var path: String
    public var duration: MediaTime
    public var video: Video?
    public var audio: Audio?
    /// The container's creation time (ISO 8601), carried over to the output.
    public var creationTime: String?
    /// Codecs of video streams passed over because this build cannot decode them (a
    /// `video: nil` file whose video is in one says so, rather than "no video").
    public var undecodableVideoCodecs: [String] = []
    /// The stream indexes of the file's other video streams (a second angle, a depth or
    /// preview track: not cover pictures), which no output carries.
    package var otherVideoStreams: [Int] = []

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
    /// The cues of the file's first text subtitle stream (`mov_text`, WebVTT, SubRip), in
    /// its source time; throws with a message naming the file when it has none or it
    /// cannot be read.
    func subtitleCues(_ path: String) throws -> [CaptionCue]
}

extension MediaProbing {
    /// Probes that read no subtitles (test tables).
    public func subtitleCues(_ path: String) throws -> [CaptionCue] {
        throw SubtitleStreamError(path: path, reason: "this probe reads no subtitle streams")
    }
}

/// Why a file's own subtitles could not be read: the file, and the cause in words.
public struct SubtitleStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
