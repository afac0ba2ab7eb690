import Timeline

/// What a container says about one of its streams, in file order.
public struct StreamInfo: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case video, audio, subtitle, data, attachment, unknown
    }

    /// The stream's index in the file (FFmpeg's `AVStream.index`).
    public var index: Int
    public var kind: Kind
    /// FFmpeg's codec name: `h264`, `hevc`, `aac`, `png`...
    public var codecName: String
    /// The stream's time base as a one-tick time (1/90000 s for 90 kHz).
    public var timeBase: MediaTime
    /// The stream's duration, when the container states it.
    public var duration: MediaTime?
    /// Video: frame size in pixels.
    public var size: PixelSize?
    /// Audio: samples per second and channel count.
    public var sampleRate: Int?
    public var channels: Int?

    public init(index: Int, kind: Kind, codecName: String, timeBase: MediaTime, duration: MediaTime? = nil,
                size: PixelSize? = nil, sampleRate: Int? = nil, channels: Int? = nil) {
        self.index = index
        self.kind = kind
        self.codecName = codecName
        self.timeBase = timeBase
        self.duration = duration
        self.size = size
        self.sampleRate = sampleRate
        self.channels = channels
    }
}
