import Foundation

/// The conversion of one source colour into the BT.2100 HLG signal dropcut writes in HDR
/// outputs (BT.2020 primaries), through display light as BT.2100 and BT.2408 describe it:
///
/// 1. the source's non-linear R'G'B' (each clamped to 0...1) → display light in cd/m²:
///    - SDR (BT.709, BT.601, sRGB-ish graphics): the BT.1886 display gamma 2.4 with SDR
///      white at HDR reference white, 203 cd/m² (BT.2408 §5: "SDR white = HDR reference
///      white"), the inverse of step 5 of `HDRToSDRConversion`;
///    - PQ: its EOTF;
///    - HLG in other primaries: its inverse OETF and the OOTF of the 1000 cd/m² display;
/// 2. → BT.2020 primaries (a linear 3×3 matrix: BT.709 and P3 colours are placed inside
///    BT.2020, never expanded to fill it);
/// 3. → limited to the HLG reference display: a colour brighter than its 1000 cd/m² peak
///    (PQ highlights above it) is scaled down as a whole, so its hue is kept;
/// 4. → scene light by the inverse BT.2100 HLG OOTF of the 1000 cd/m² reference display
///    (system gamma 1.2, on luminance), again scaled as a whole where a saturated colour
///    would need a component above 1;
/// 5. → the HLG OETF.
///
/// SDR white comes out at HLG 75 % (0.7500), BT.2408's reference level, so an SDR clip,
/// a logo or a caption in an HLG output sits where graphics white belongs instead of at
/// the peak; PQ 203 cd/m² lands there too. HLG sources in BT.2020 need none of this and
/// pass through unconverted.
///
/// Pure and slow (`pow`, `exp`, `log`): the renderer evaluates it only to build a lookup
/// table per source colour description.
package struct HLGConversion: Sendable {
    package let source: ColorDescription
    private let toBT2020: [Double]

    /// A conversion for `source` (resolved: SDR, PQ or HLG; primaries BT.709, BT.601, P3
    /// or BT.2020).
    package init(source: ColorDescription) {
        self.source = source
        toBT2020 = Self.matrix(toBT2020From: source.primaries)
    }

    /// Converts the source's non-linear R'G'B' (each 0...1, clamped) into HLG R'G'B' in
    /// BT.2020 primaries (each 0...1).
    package func convert(rgb signal: (Double, Double, Double)) -> (Double, Double, Double) {
        func unit(_ v: Double) -> Double { v.isFinite ? min(max(v, 0), 1) : 0 }
        let (r, g, b) = (unit(signal.0), unit(signal.1), unit(signal.2))
        // 1. Display light in cd/m², source primaries.
        var light: (Double, Double, Double)
        switch source.transfer {
        case .pq:
            light = (TransferFunction.pqEOTF(r), TransferFunction.pqEOTF(g), TransferFunction.pqEOTF(b))
        case .hlg:
            light = TransferFunction.hlgOOTF((TransferFunction.hlgInverseOETF(r), TransferFunction.hlgInverseOETF(g),
                                              TransferFunction.hlgInverseOETF(b)))
        case .sdr, .unknown:
            let white = TransferFunction.referenceWhite
            light = (pow(r, 2.4) * white, pow(g, 2.4) * white, pow(b, 2.4) * white)
        }
        // 2. BT.2020 primaries.
        let m = toBT2020
        light = (max(m[0] * light.0 + m[1] * light.1 + m[2] * light.2, 0),
                 max(m[3] * light.0 + m[4] * light.1 + m[5] * light.2, 0),
                 max(m[6] * light.0 + m[7] * light.1 + m[8] * light.2, 0))
        // 3. Within the reference display's peak, hue kept.
        let peak = TransferFunction.hlgDisplayPeak
        let brightest = max(light.0, light.1, light.2)
        if brightest > peak {
            let scale = peak / brightest
            light = (light.0 * scale, light.1 * scale, light.2 * scale)
        }
        // 4. Scene light (0...1), hue kept.
        var scene = TransferFunction.hlgInverseOOTF(light)
        let largest = max(scene.0, scene.1, scene.2)
        if largest > 1 { scene = (scene.0 / largest, scene.1 / largest, scene.2 / largest) }
        // 5. The HLG signal.
        return (TransferFunction.hlgOETF(scene.0), TransferFunction.hlgOETF(scene.1), TransferFunction.hlgOETF(scene.2))
    }

    /// Converts normalised source Y' (0...1) and Cb, Cr (-0.5...0.5) into normalised HLG
    /// Y'CbCr (BT.2020 non-constant-luminance matrix).
    package func convert(y: Double, cb: Double, cr: Double) -> (y: Double, cb: Double, cr: Double) {
        let rgb = convert(rgb: HDRToSDRConversion.rgb(y: y, cb: cb, cr: cr, matrix: source.matrix))
        return Self.ycbcr(bt2020: rgb)
    }

    /// Normalised Y'CbCr of BT.2020 R'G'B' by the BT.2020 non-constant-luminance matrix.
    package static func ycbcr(bt2020 rgb: (Double, Double, Double)) -> (y: Double, cb: Double, cr: Double) {
        let y = 0.2627 * rgb.0 + 0.6780 * rgb.1 + 0.0593 * rgb.2
        return (y, (rgb.2 - y) / 1.8814, (rgb.0 - y) / 1.4746)
    }

    /// The linear-light matrix (row major) from `primaries` to BT.2020's, D65 white both
    /// (BT.2087 for BT.709; BT.601 sources are read as BT.709, as `HDRToSDRConversion`
    /// reads them).
    static func matrix(toBT2020From primaries: ColorDescription.Primaries) -> [Double] {
        switch primaries {
        case .bt709, .bt601, .unknown:
            return [0.6274039, 0.3292830, 0.0433131,
                    0.0690973, 0.9195404, 0.0113623,
                    0.0163914, 0.0880133, 0.8955953]
        case .p3:
            return [0.7538330, 0.1985974, 0.0475696,
                    0.0457438, 0.9417772, 0.0124789,
                    -0.0012103, 0.0176017, 0.9836086]
        case .bt2020:
            return [1, 0, 0, 0, 1, 0, 0, 0, 1]
        }
    }
}
