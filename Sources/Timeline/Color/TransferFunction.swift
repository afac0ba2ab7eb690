import Foundation

/// The transfer functions HDR-to-SDR conversion needs, as ITU-R BT.2100 (HLG, PQ) and
/// BT.709 define them. Pure math on normalised values, so tests can check them against
/// the published reference points (HLG 75 % = 203 cd/m² on a 1000 cd/m² display,
/// PQ 58 % ≈ 203 cd/m²).
package enum TransferFunction {
    /// BT.2408's HDR reference white (diffuse white, a white card), in cd/m²: where
    /// graphics white and SDR white belong.
    package static let referenceWhite = 203.0
    /// The nominal peak of the HLG reference display, cd/m²; its system gamma is 1.2.
    package static let hlgDisplayPeak = 1000.0

    // BT.2100 HLG constants.
    private static let hlgA = 0.17883277
    private static let hlgB = 1 - 4 * hlgA
    private static let hlgC = 0.5 - hlgA * log(4 * hlgA)

    /// HLG inverse OETF: scene light (0...1) of a non-linear HLG signal value (0...1).
    package static func hlgInverseOETF(_ signal: Double) -> Double {
        let e = max(signal, 0)
        return e <= 0.5 ? e * e / 3 : (exp((e - hlgC) / hlgA) + hlgB) / 12
    }

    /// HLG OETF: the signal value of scene light (0...1).
    package static func hlgOETF(_ light: Double) -> Double {
        let e = max(light, 0)
        return e <= 1.0 / 12 ? (3 * e).squareRoot() : hlgA * log(12 * e - hlgB) + hlgC
    }

    /// The HLG system gamma for a display of `peak` cd/m² (BT.2100: 1.2 at 1000 cd/m²).
    package static func hlgSystemGamma(peak: Double) -> Double {
        1.2 + 0.42 * log10(peak / 1000)
    }

    /// The BT.2100 HLG OOTF: display light in cd/m² of the BT.2020 scene-light triple
    /// (each 0...1), shown on a display of `peak` cd/m² with black at zero. It scales the
    /// three components by the same factor (a function of scene luminance), so hue is kept.
    package static func hlgOOTF(_ rgb: (Double, Double, Double), peak: Double = hlgDisplayPeak) -> (Double, Double, Double) {
        let luminance = 0.2627 * rgb.0 + 0.6780 * rgb.1 + 0.0593 * rgb.2
        guard luminance > 0 else { return (0, 0, 0) }
        let factor = peak * pow(luminance, hlgSystemGamma(peak: peak) - 1)
        return (rgb.0 * factor, rgb.1 * factor, rgb.2 * factor)
    }

    /// The BT.2100 HLG inverse OOTF: the BT.2020 scene-light triple (each 0...1 for
    /// colours the display can show) of display light in cd/m² on a display of `peak`
    /// cd/m². Like the OOTF it scales the three components alike (by a function of
    /// display luminance), so hue is kept.
    package static func hlgInverseOOTF(_ rgb: (Double, Double, Double), peak: Double = hlgDisplayPeak) -> (Double, Double, Double) {
        let luminance = 0.2627 * rgb.0 + 0.6780 * rgb.1 + 0.0593 * rgb.2
        guard luminance > 0, peak > 0 else { return (0, 0, 0) }
        let gamma = hlgSystemGamma(peak: peak)
        let factor = pow(luminance / peak, (1 - gamma) / gamma) / peak
        return (rgb.0 * factor, rgb.1 * factor, rgb.2 * factor)
    }

    // SMPTE ST 2084 / BT.2100 PQ constants.
    private static let pqM1 = 2610.0 / 16384
    private static let pqM2 = 2523.0 / 4096 * 128
    private static let pqC1 = 3424.0 / 4096
    private static let pqC2 = 2413.0 / 4096 * 32
    private static let pqC3 = 2392.0 / 4096 * 32

    /// PQ EOTF: display light in cd/m² (0...10000) of a PQ signal value (0...1).
    package static func pqEOTF(_ signal: Double) -> Double {
        let p = pow(min(max(signal, 0), 1), 1 / pqM2)
        return 10000 * pow(max(p - pqC1, 0) / (pqC2 - pqC3 * p), 1 / pqM1)
    }

    /// PQ inverse EOTF: the signal value of display light in cd/m².
    package static func pqInverseEOTF(_ luminance: Double) -> Double {
        let y = pow(min(max(luminance / 10000, 0), 1), pqM1)
        return pow((pqC1 + pqC2 * y) / (1 + pqC3 * y), pqM2)
    }

    /// BT.709 OETF: the SDR signal of relative light (1 = SDR white). Values above 1 —
    /// the highlights tone mapping leaves above white — continue the same curve into the
    /// super-white range BT.709 allows (up to 109 %).
    package static func bt709OETF(_ light: Double) -> Double {
        let l = max(light, 0)
        return l < 0.018 ? 4.5 * l : 1.099 * pow(l, 0.45) - 0.099
    }

    /// BT.709 inverse OETF: relative light of an SDR signal value.
    package static func bt709InverseOETF(_ signal: Double) -> Double {
        let v = max(signal, 0)
        return v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
    }
}
