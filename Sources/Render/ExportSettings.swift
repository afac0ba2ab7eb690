import MediaIO
import Timeline

/// How an export encodes: the codecs and their quality knobs. Picture size and frame
/// rate come from the video composition.
public struct ExportSettings: Sendable, Hashable {
    public var videoCodec: VideoEncoderSettings.Codec = .h264
    /// x264/x265 constant rate factor.
    public var crf = 20
    /// x264/x265 speed preset.
    public var preset = "veryfast"
    /// AAC bits per second.
    public var audioBitrate = 160_000
    /// Output sample rate; nil: the first audio source's, when AAC has it, else 48 kHz.
    public var audioSampleRate: Int?
    /// Output channels; nil: the first audio source's, at most two.
    public var audioChannels: Int?
    /// The container's creation time (ISO 8601); nil: carried over from the first video
    /// source.
    public var creationTime: String?
    /// Integrated loudness (LUFS, EBU R128) to bring the mix to; nil: as mixed.
    public var loudnessTarget: Double?

    public init() {}

    /// The sample rates AAC can signal (ISO 14496-3 sampling frequency index).
    static let aacSampleRates: Set<Int> = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]
}

/// How far an export has got.
public struct ExportProgress: Sendable, Hashable {
    public var framesWritten: Int
    public var frameCount: Int
    /// 0...1.
    public var fraction: Double { frameCount == 0 ? 1 : Double(framesWritten) / Double(frameCount) }
}
