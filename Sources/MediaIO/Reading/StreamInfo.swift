import DropcutTimeline

/// What a container says about one of its streams, in file order.
package struct StreamInfo: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        case video, audio, subtitle, data, attachment, unknown
    }

    /// The stream's index in the file (FFmpeg's `AVStream.index`).
    package var index: Int
    package var kind: Kind
    /// FFmpeg's codec name: `h264`, `hevc`, `aac`, `png`...
    package var codecName: String
    /// The stream's time base as a one-tick time (1/90000 s for 90 kHz).
    package var timeBase: MediaTime
    /// The stream's duration, when the container states it.
    package var duration: MediaTime?
    /// Video: frame size in pixels.
    package var size: PixelSize?
    /// Audio: samples per second and channel count.
    package var sampleRate: Int?
    package var channels: Int?
    /// Audio: FFmpeg's name of the channel layout (`stereo`, `mono`, `5.1`).
    package var channelLayout: String?
    /// Video: FFmpeg's pixel format name (`yuv420p`, `yuvj420p`, `yuv420p10le`).
    package var pixelFormat: String?
    /// Video: the shape of a stored pixel (the container's, else the codec's), nil when
    /// unknown or implausible: square.
    package var pixelAspectRatio: PixelAspectRatio?
    /// Video: how the frames' two fields were recorded; nil: progressive. As the stream says
    /// (`field_order`) — or, where it does not say (`statesFieldOrder` false), as its first
    /// decoded frame says once `FieldOrderDetection` has asked it (nil until then: unknown
    /// is taken as progressive).
    package var fieldOrder: FieldOrder?
    /// Video: false when the stream leaves its field order unknown (FFmpeg's
    /// `AV_FIELD_UNKNOWN`: DV in every container, FFV1, ProRes or VP9 where the container
    /// does not say), so that only its frames can tell; true when it states one,
    /// progressive or interlaced.
    package var statesFieldOrder = true
    /// Video: the display matrix, when the stream carries one (what `AssetProbe` turns
    /// into the track's preferredTransform).
    package var displayMatrix: DisplayMatrix?
    /// Video: clockwise quarter turns the display matrix asks for (0...3), after mirroring
    /// left-right when `mirrored`.
    package var rotation: Int { displayMatrix?.clockwiseQuarterTurns ?? 0 }
    package var mirrored: Bool { displayMatrix?.isMirrored ?? false }
    /// Video: the nominal time per frame (from the stream's real base frame rate).
    package var frameDuration: MediaTime?
    /// Video: the average time per frame over the stream.
    package var averageFrameDuration: MediaTime?
    /// Whether the container marks it as the default of its kind, whether it is a cover
    /// picture (an MP3's or MKV's artwork, not video), and whether FFmpeg has a decoder
    /// for it (Apple's spatial audio, APAC, has none).
    package var isDefault = false
    package var isAttachedPicture = false
    package var isDecodable = true
    /// When the stream's first sample is presented (edit lists and B-frame delay move it
    /// off zero).
    package var startTime: MediaTime?
    /// Video: how the samples are to be read as colour, as the stream tags it (`.unknown`
    /// parts where it does not say; `ColorDescription.resolved` fills them in), with its
    /// HDR metadata and Dolby Vision configuration.
    package var color: ColorDescription?

    /// Video: the size the picture is shown at in square pixels (`size` widened or
    /// narrowed by the pixel aspect ratio).
    package var displaySize: PixelSize? {
        size.map { (pixelAspectRatio ?? .square).displaySize(of: $0) }
    }

    /// True when the average frame rate differs from the nominal one by more than 1 % and
    /// more than one frame in the stream's length makes: the stream is variable frame rate
    /// (phones do this in low light). The average of a short clip whose container leaves
    /// its last frame's duration out (frames over the span of one fewer) is off by that one
    /// frame — 1.1 % in a 3 s clip — and not variable for it.
    package var isVariableFrameRate: Bool {
        guard let nominal = frameDuration, let average = averageFrameDuration, nominal > .zero else { return false }
        let oneFrame = duration.map { $0 > .zero ? nominal.seconds / $0.seconds : 0 } ?? 0
        return abs(average.seconds / nominal.seconds - 1) > 0.01 + oneFrame
    }

    package init(index: Int, kind: Kind, codecName: String, timeBase: MediaTime, duration: MediaTime? = nil,
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
