import DropcutTimeline

/// How to encode video: codec, picture size and format, frame rate and quality.
package struct VideoEncoderSettings: Sendable, Hashable {
    /// The video codecs dropcut writes (`encoderName` gives the FFmpeg encoder of each).
    package typealias Codec = VideoCodecID

    /// H.264 or HEVC.
    package var codec: Codec
    /// The picture size; 4:2:0 formats need even width and height.
    package var size: PixelSize
    /// Time per frame (1/30 s for 30 fps). It is the encoder's time base, so frame
    /// `n` of a constant-rate stream has pts `n`.
    package var frameDuration: MediaTime
    /// Constant rate factor: lower is better quality and larger files (x264: 0...51).
    package var crf: Int
    /// The x264/x265 speed preset: `ultrafast` ... `veryslow`, `placebo`.
    package var preset: String
    /// The format of the frames sent to the encoder.
    package var pixelFormat: PixelFormat
    /// What the samples mean, written into the stream (VUI) and from there the container's
    /// `colr` box: BT.709 SDR, or BT.2100 HLG (`ColorDescription.hlg`, with 10-bit
    /// `yuv420p10` frames and HEVC, which then also carries the alternative transfer
    /// characteristics SEI naming HLG).
    package var color: ColorDescription
    /// The code points the stream states instead of `color`'s own (which names BT.470 BG
    /// and SMPTE 170M alike): a copied source's, for pieces encoded beside it. nil: `color`'s.
    package var colourCodePoints: ColourCodePoints?
    /// A keyframe (IDR, closed GOP) exactly every this many frames and nowhere else (no
    /// scene-cut keyframes): what an HLS ladder needs, so every rung can be cut into
    /// segments at the same times. nil: the encoder places keyframes as it likes.
    package var keyframeInterval: Int?
    /// H.264 made to sit beside a source's own pictures in one stream (smart rendering):
    /// its profile, level and entropy coder, parameter sets under an id of their own, NAL
    /// units length-prefixed (4 bytes) as MP4 stores them. nil: x264's High profile.
    package var spliceMatch: SpliceMatch?

    /// What H.264 pieces encoded between a source's copied pictures must match.
    package struct SpliceMatch: Sendable, Hashable {
        /// x264's profile name: `baseline`, `main` or `high`.
        package var profile: String
        /// `level_idc`: 40 is level 4.0.
        package var level: Int
        package var cabac: Bool
        /// The SPS and PPS id (x264's `sps-id`, 0...31).
        package var parameterSetID: Int

        package init(profile: String, level: Int, cabac: Bool, parameterSetID: Int) {
            self.profile = profile
            self.level = level
            self.cabac = cabac
            self.parameterSetID = parameterSetID
        }
    }

    /// Settings with dropcut's recipe defaults for the quality knobs (`EncodingDefaults`).
    package init(codec: Codec = .h264, size: PixelSize, frameDuration: MediaTime, crf: Int = EncodingDefaults.crf,
                preset: String = EncodingDefaults.preset, pixelFormat: PixelFormat = .yuv420p, color: ColorDescription = .bt709,
                keyframeInterval: Int? = nil, spliceMatch: SpliceMatch? = nil) {
        self.codec = codec
        self.size = size
        self.frameDuration = frameDuration
        self.crf = crf
        self.preset = preset
        self.pixelFormat = pixelFormat
        self.color = color
        self.keyframeInterval = keyframeInterval
        self.spliceMatch = spliceMatch
    }
}

extension VideoCodecID {
    /// The FFmpeg encoder name: `libx264` or `libx265`.
    package var encoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        }
    }
}
