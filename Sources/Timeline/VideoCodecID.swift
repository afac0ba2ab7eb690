/// The video codecs dropcut writes: what a recipe names (`output.video.codec`) and what
/// the encoder makes — one list, so the two cannot drift apart.
public enum VideoCodecID: String, Sendable, Hashable, CaseIterable {
    case h264, hevc
}
