import DropcutMediaIO
import DropcutTimeline

/// What an export writes: BT.709 SDR in 8-bit 4:2:0, or BT.2100 HLG in 10-bit 4:2:0
/// (HEVC Main 10). It decides the compositor's working space: every layer, background and
/// overlay is brought into it before they meet — HDR sources tone mapped for SDR; for HLG,
/// HLG sources as they are and SDR and PQ sources mapped up (SDR white at HLG 75 %).
public enum OutputDynamicRange: String, Sendable, Hashable, CaseIterable {
    case sdr
    case hlg

    /// The output's colour, as the encoder tags it.
    public var color: ColorDescription {
        switch self {
        case .sdr: return .bt709
        case .hlg: return .hlg
        }
    }

    /// The canvas and encoder format.
    package var pixelFormat: PixelFormat {
        switch self {
        case .sdr: return .yuv420p
        case .hlg: return .yuv420p10
        }
    }
}
