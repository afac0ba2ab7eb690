import Foundation

/// The conversion of one HDR Y'CbCr value to the BT.709 SDR Y'CbCr dropcut writes, step
/// by step as BT.2100 and BT.2408 describe it:
///
/// 1. Y'CbCr → non-linear R'G'B' (the source's matrix, BT.2020 for phone HDR), clamped
///    to the signal range;
/// 2. → display light in cd/m²: PQ by its EOTF; HLG by its inverse OETF and the BT.2100
///    OOTF of the 1000 cd/m² reference display (system gamma 1.2), which puts HLG 75 % at
///    BT.2408's reference white, 203 cd/m²;
/// 3. → relative to reference white, BT.709 primaries (linear 3×3 matrix);
/// 4. → tone mapped by `ToneCurve` on the largest component (all three scaled alike, so
///    hue and saturation are kept and none is pushed past the headroom), then
///    `GamutMapper` for what falls outside BT.709;
/// 5. → the BT.1886 display gamma inverted (the SDR signal that shows this light on an
///    SDR display — the display-referred mapping of BT.2408 §5.1, and what `zscale`
///    inverts) and the BT.709 matrix.
///
/// `convert(rgb:)` is steps 2–5 on R'G'B', the smooth part the renderer's lookup table
/// holds; the matrices of steps 1 and 5 are linear and done per pixel.
///
/// Pure and slow (`pow`, `exp`, bisection): the renderer evaluates it only to build a
/// lookup table per source colour description.
package struct HDRToSDRConversion: Sendable {
    package let source: ColorDescription
    package let curve: ToneCurve

    private let toBT709: [Double]

    /// A conversion for `source` (an HLG or PQ description; SDR ones convert through the
    /// same steps with an SDR transfer, as identity up to rounding).
    package init(source: ColorDescription) {
        self.source = source
        let peak: Double
        switch source.transfer {
        case .pq: peak = min(max(source.peakLuminance ?? TransferFunction.hlgDisplayPeak, 400), 10000)
        default: peak = TransferFunction.hlgDisplayPeak
        }
        curve = ToneCurve(peakLuminance: peak)
        toBT709 = Self.matrix(toBT709From: source.primaries)
    }

    /// Converts normalised source Y' (0...1) and Cb, Cr (-0.5...0.5) into BT.709 SDR
    /// Y' (0...1.09) and Cb, Cr (-0.5...0.5).
    package func convert(y: Double, cb: Double, cr: Double) -> (y: Double, cb: Double, cr: Double) {
        let rgb = convert(rgb: Self.rgb(y: y, cb: cb, cr: cr, matrix: source.matrix))
        let luma = 0.2126 * rgb.0 + 0.7152 * rgb.1 + 0.0722 * rgb.2
        return (luma, (rgb.2 - luma) / 1.8556, (rgb.0 - luma) / 1.5748)
    }

    /// Non-linear R'G'B' of normalised Y'CbCr by a matrix's weights.
    package static func rgb(y: Double, cb: Double, cr: Double, matrix: ColorDescription.Matrix) -> (Double, Double, Double) {
        let (kr, kb) = matrixWeights(matrix)
        let r = y + 2 * (1 - kr) * cr, b = y + 2 * (1 - kb) * cb
        return (r, (y - kr * r - kb * b) / (1 - kr - kb), b)
    }

    /// Converts the source's non-linear R'G'B' (each 0...1, clamped) into BT.709 SDR
    /// R'G'B' (each 0...1.09: above 1 are highlights in the super-white range).
    package func convert(rgb signal: (Double, Double, Double)) -> (Double, Double, Double) {
        func unit(_ v: Double) -> Double { min(max(v, 0), 1) }
        let (r, g, b) = (unit(signal.0), unit(signal.1), unit(signal.2))
        // 2. Display light in cd/m², source primaries.
        var light: (Double, Double, Double)
        switch source.transfer {
        case .hlg:
            light = TransferFunction.hlgOOTF((TransferFunction.hlgInverseOETF(r), TransferFunction.hlgInverseOETF(g),
                                              TransferFunction.hlgInverseOETF(b)))
        case .pq:
            light = (TransferFunction.pqEOTF(r), TransferFunction.pqEOTF(g), TransferFunction.pqEOTF(b))
        case .sdr, .unknown:
            let white = TransferFunction.referenceWhite
            light = (pow(r, 2.4) * white, pow(g, 2.4) * white, pow(b, 2.4) * white)
        }
        // 3. Relative to reference white, in BT.709 primaries (components outside BT.709
        // are negative).
        let white = TransferFunction.referenceWhite
        let m = toBT709
        light = (light.0 / white, light.1 / white, light.2 / white)
        var rgb = (m[0] * light.0 + m[1] * light.1 + m[2] * light.2,
                   m[3] * light.0 + m[4] * light.1 + m[5] * light.2,
                   m[6] * light.0 + m[7] * light.1 + m[8] * light.2)
        // 4. Tone mapped on the largest component, all three scaled alike: hue and
        // saturation kept, and no component left above the headroom for the gamut
        // mapping to bleach (a bright orange stays orange). Greys: the curve itself.
        let largest = max(rgb.0, rgb.1, rgb.2)
        if largest > 0 {
            let gain = curve(largest) / largest
            rgb = (rgb.0 * gain, rgb.1 * gain, rgb.2 * gain)
        }
        rgb = GamutMapper.map(rgb, ceiling: curve.headroom)
        // 5. SDR signal: the BT.1886 display gamma inverted.
        let gamma = 1 / 2.4
        return (pow(rgb.0, gamma), pow(rgb.1, gamma), pow(rgb.2, gamma))
    }

    /// Kr and Kb of a Y'CbCr matrix.
    package static func matrixWeights(_ matrix: ColorDescription.Matrix) -> (Double, Double) {
        switch matrix {
        case .bt2020: return (0.2627, 0.0593)
        case .bt601: return (0.299, 0.114)
        case .bt709, .rgb, .unknown: return (0.2126, 0.0722)
        }
    }

    /// The linear-light matrix (row major) from `primaries` to BT.709's, D65 white both.
    static func matrix(toBT709From primaries: ColorDescription.Primaries) -> [Double] {
        switch primaries {
        case .bt2020:
            return [1.6604910, -0.5876411, -0.0728499,
                    -0.1245505, 1.1328999, -0.0083494,
                    -0.0181508, -0.1005789, 1.1187297]
        case .p3:
            return [1.2249401, -0.2249404, 0.0,
                    -0.0420569, 1.0420571, 0.0,
                    -0.0196376, -0.0786361, 1.0982735]
        case .bt601, .bt709, .unknown:
            return [1, 0, 0, 0, 1, 0, 0, 0, 1]
        }
    }
}
