/// The video codecs dropcut writes: what a recipe names (`output.video.codec`) and what
/// the encoder makes — one list, so the two cannot drift apart.
public enum VideoCodecID: String, Sendable, Hashable, CaseIterable {
    case h264, hevc

    /// The codec of an HDR output when the recipe names none. The one place the
    /// HDR ⇒ HEVC rule lives: the recipe checks it, the pipeline applies it, the export
    /// enforces it.
    public static let hdr: VideoCodecID = .hevc

    /// Whether an HDR (HLG) output can be written with this codec: HLG goes out as HEVC
    /// Main 10 with its SEI; x264 has no such SEI to carry.
    public var carriesHDR: Bool { self == .hevc }

    /// The codec an output is written with: the recipe's, except that an HDR output whose
    /// recipe does not name a codec gets `hdr`.
    public static func forOutput(hdr isHDR: Bool, recipeCodec: VideoCodecID, named: Bool) -> VideoCodecID {
        isHDR && !named ? hdr : recipeCodec
    }
}
