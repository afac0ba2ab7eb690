/// How a video stream's sample values are to be read as colour: its primaries, transfer
/// characteristic, Y'CbCr matrix and range — the four things ISO/IEC 23091-2 (the
/// `colour_primaries`, `transfer_characteristics`, `matrix_coefficients` and
/// `video_full_range_flag` of H.264/HEVC VUI and of MP4 `colr` boxes) say about it.
///
/// dropcut needs it because a phone's HLG or PQ clip and an SDR clip have the same pixel
/// format: only these tags tell them apart, and an HDR picture read as SDR comes out grey
/// and washed out.
public struct ColorDescription: Sendable, Hashable {
    /// The RGB primaries (and white point) of the signal.
    public enum Primaries: String, Sendable, Hashable {
        case bt709, bt601, bt2020, p3, unknown
    }

    /// The transfer characteristic: how signal values relate to light.
    public enum Transfer: String, Sendable, Hashable {
        /// BT.709 / BT.601 / BT.1886 / sRGB: SDR gamma-like curves, read alike.
        case sdr
        /// Hybrid log-gamma (ARIB STD-B67, BT.2100 HLG): iPhones and most Android phones.
        case hlg
        /// Perceptual quantizer (SMPTE ST 2084, BT.2100 PQ): HDR10 and some Android phones.
        case pq
        /// Linear or other curves dropcut reads as SDR.
        case unknown
    }

    /// The Y'CbCr matrix (BT.2020 non-constant luminance for HDR phone video).
    public enum Matrix: String, Sendable, Hashable {
        case bt709, bt601, bt2020, rgb, unknown
    }

    public var primaries: Primaries
    public var transfer: Transfer
    public var matrix: Matrix
    /// True for full-range (0...2ⁿ-1) samples, false for video range (16...235 at 8 bits).
    public var fullRange: Bool
    /// The brightest the content is said to get, in cd/m², from its mastering-display or
    /// content-light-level metadata (PQ sources; nil when the stream does not say).
    public var peakLuminance: Double?
    /// The Dolby Vision profile when the stream carries a Dolby Vision configuration
    /// (8 for an HLG- or SDR-compatible base layer, 5 for none).
    public var dolbyVisionProfile: Int?
    /// The Dolby Vision base-layer compatibility id (4: HLG, 2: SDR, 1: HDR10, 0: none).
    public var dolbyVisionCompatibility: Int?

    public init(primaries: Primaries, transfer: Transfer, matrix: Matrix, fullRange: Bool = false,
                peakLuminance: Double? = nil, dolbyVisionProfile: Int? = nil, dolbyVisionCompatibility: Int? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
        self.peakLuminance = peakLuminance
        self.dolbyVisionProfile = dolbyVisionProfile
        self.dolbyVisionCompatibility = dolbyVisionCompatibility
    }

    /// What dropcut writes: video-range BT.709 SDR.
    public static let bt709 = ColorDescription(primaries: .bt709, transfer: .sdr, matrix: .bt709)

    /// What dropcut writes in HDR outputs: BT.2100 HLG — BT.2020 primaries, the HLG
    /// transfer, the BT.2020 non-constant-luminance matrix, video range.
    public static let hlg = ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020)

    /// True for HLG and PQ: the picture needs tone mapping to be shown as SDR.
    public var isHDR: Bool { transfer == .hlg || transfer == .pq }

    /// A short name for the dynamic range: `SDR`, `HLG`, `PQ`, with the Dolby Vision
    /// profile when there is one (`Dolby Vision 8.4 (HLG)`).
    public var dynamicRangeName: String {
        let base: String
        switch transfer {
        case .hlg: base = "HLG"
        case .pq: base = "PQ"
        case .sdr, .unknown: base = "SDR"
        }
        guard let profile = dolbyVisionProfile else { return base }
        let compatibility = dolbyVisionCompatibility.map { ".\($0)" } ?? ""
        return "Dolby Vision \(profile)\(compatibility) (\(base))"
    }

    /// Fills in what the stream left unspecified the way players do: untagged primaries
    /// and matrices follow the picture size (BT.709 for HD, BT.601 below), untagged
    /// transfer is SDR, and HDR transfers without primaries are BT.2020 (BT.2100 allows
    /// no other).
    public func resolved(width: Int, height: Int) -> ColorDescription {
        var result = self
        let highDefinition = width >= 1280 || height >= 720
        if result.transfer == .unknown { result.transfer = .sdr }
        if result.primaries == .unknown {
            result.primaries = isHDR ? .bt2020 : highDefinition ? .bt709 : .bt601
        }
        if result.matrix == .unknown {
            result.matrix = isHDR ? .bt2020 : highDefinition ? .bt709 : .bt601
        }
        return result
    }
}
