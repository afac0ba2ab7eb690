import DropcutMediaIO
import DropcutTimeline

/// How an export encodes: the codecs and their quality knobs. Picture size and frame
/// rate come from the video composition.
public struct ExportSettings: Sendable, Hashable {
    public var videoCodec: VideoCodecID = .h264
    /// SDR (8-bit BT.709) or HLG (10-bit BT.2020, HEVC only: Main 10).
    public var dynamicRange: OutputDynamicRange = .sdr
    /// x264/x265 constant rate factor.
    public var crf = EncodingDefaults.crf
    /// x264/x265 speed preset.
    public var preset = EncodingDefaults.preset
    /// AAC bits per second.
    public var audioBitrate = 160_000
    /// Output sample rate; nil: the first audio source's, when AAC has it, else 48 kHz.
    public var audioSampleRate: Int?
    /// Output channels; nil: the first audio source's, at most two.
    public var audioChannels: Int?
    /// The container's creation time (ISO 8601); nil: carried over from the first video
    /// source.
    public var creationTime: String?
    /// Deinterlace the sources the composition marks interlaced (`SourceTrack.fieldOrder`:
    /// what the probe found), at the field rate (`Deinterlacer`); the video composition's
    /// frame duration should be a field's then (the builder makes it so for
    /// `output.deinterlace: auto`).
    public var deinterlace = true
    /// Integrated loudness (LUFS, EBU R128) to bring the mix to; nil: as mixed.
    public var loudnessTarget: Double?
    /// The video stream's packets copied from a source instead of decoding, compositing
    /// and encoding (pass-through); nil: encoded. Whoever sets it has checked that the
    /// output would change none of its pixels (`PassThrough` in Pipeline).
    public var videoCopy: StreamCopy?
    /// The video stream made of a source's groups of pictures copied as they are and
    /// pieces encoded between them (smart rendering); nil: not spliced. Never set with
    /// `videoCopy`.
    public var videoSplice: VideoSplice?
    /// The audio stream's packets copied from a source instead of mixing and encoding;
    /// nil: mixed and encoded.
    public var audioCopy: StreamCopy?
    /// Captions written as a `mov_text` subtitle stream (output time); empty: none.
    public var softCaptions: [CaptionCue] = []

    public init() {}

    /// Whether any of the video's packets are copied from a source (pass-through or a splice).
    public var copiesVideo: Bool { videoCopy != nil || videoSplice != nil }

    /// The same settings with every stream encoded.
    package var encodingEverything: ExportSettings {
        var settings = self
        settings.videoCopy = nil
        settings.videoSplice = nil
        settings.audioCopy = nil
        return settings
    }

    /// The sample rates AAC can signal (ISO 14496-3 sampling frequency index).
    static let aacSampleRates: Set<Int> = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]

    /// The mix format for a first audio source with this rate and channel count: its rate
    /// when AAC can signal it, else 48 kHz; its channels, at most two (stereo output).
    public static func audioFormat(sourceSampleRate: Int?, sourceChannels: Int?) -> (sampleRate: Int, channels: Int) {
        let rate = sourceSampleRate.flatMap { aacSampleRates.contains($0) ? $0 : nil } ?? 48000
        let channels = sourceChannels.flatMap { $0 > 0 ? min(2, $0) : nil } ?? 2
        return (rate, channels)
    }
}

/// How far an export has got.
public struct ExportProgress: Sendable, Hashable {
    public var framesWritten: Int
    public var frameCount: Int
    /// 0...1.
    public var fraction: Double { frameCount == 0 ? 1 : Double(framesWritten) / Double(frameCount) }
}

/// One source stream whose packets an export copies as they are: the output's stream is
/// `range` of track `trackID` of `asset` (source time, as the composition's segments
/// count it), starting at output time 0.
public struct StreamCopy: Sendable, Hashable {
    public var asset: String
    /// AVFoundation-style: stream index + 1.
    public var trackID: TrackID
    public var range: TimeRange
    /// The colour the copy states in its parameter sets and container, for a source that
    /// states none (what players guess for it); nil: the source's own statement.
    public var statedColour: ColorDescription?
    /// The source's display matrix, which the copy keeps (identity: none): players show
    /// the stored pictures through it, upright.
    public var orientation: AffineTransform

    public init(asset: String, trackID: TrackID, range: TimeRange, statedColour: ColorDescription? = nil,
                orientation: AffineTransform = .identity) {
        self.asset = asset
        self.trackID = trackID
        self.range = range
        self.statedColour = statedColour
        self.orientation = orientation
    }
}
