import Foundation

/// The curve that brings HDR luminance into SDR, in the manner of ITU-R BT.2446 method C:
/// linear (here the identity) up to a knee, then a logarithmic shoulder that rolls every
/// highlight up to the source's peak into the headroom BT.709 keeps above white.
///
/// Luminance is relative to HDR reference white (BT.2408: 203 cd/m², HLG 75 %), which is
/// where SDR white is: below the knee a picture keeps exactly the brightness an SDR
/// version of it has — skin, grey cards and everything a phone exposes for — and only
/// what is brighter than diffuse white is compressed. The shoulder has slope 1 where it
/// starts (no visible kink), rises monotonically and reaches `headroom` at `peak`, so
/// highlights never clip to a flat white; past the peak it keeps rising slowly.
package struct ToneCurve: Sendable, Hashable {
    /// Where the shoulder starts, relative to reference white.
    package let knee: Double
    /// The source's peak, relative to reference white.
    package let peak: Double
    /// What the peak maps to, relative to SDR white (1.2294 is 109 %, BT.709's
    /// super-white limit, through the BT.1886 display gamma).
    package let headroom: Double
    /// The shoulder's scale: solved so that the curve meets `headroom` at `peak`.
    package let scale: Double

    /// SDR signal 109 % as relative display light (BT.1886, gamma 2.4): what BT.2446
    /// method C maps the HDR peak to.
    package static let superWhiteHeadroom = pow(1.09, 2.4)

    /// A curve for a source peaking at `peakLuminance` cd/m² (1000 for HLG's reference
    /// display). Peaks below the knee are raised to just above it, so the curve is always
    /// defined; the knee 0.9 puts reference white at 98–99 % of SDR white for peaks of
    /// 1000–10000 cd/m².
    package init(peakLuminance: Double, knee: Double = 0.9, headroom: Double = ToneCurve.superWhiteHeadroom) {
        let kneeValue = min(max(knee, 0.1), 1)
        let headroomValue = max(headroom, kneeValue + 0.01)
        let peakValue = max(peakLuminance / TransferFunction.referenceWhite, headroomValue + 0.01)
        self.knee = kneeValue
        self.headroom = headroomValue
        self.peak = peakValue
        // k + s·ln(1 + (P - k)/s) grows with s (from k toward P): bisect for H.
        var low = 1e-9, high = 1e3
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if kneeValue + mid * log(1 + (peakValue - kneeValue) / mid) < headroomValue { low = mid } else { high = mid }
        }
        scale = (low + high) / 2
    }

    /// The SDR luminance (relative to SDR white) of HDR luminance `x` (relative to
    /// reference white).
    package func callAsFunction(_ x: Double) -> Double {
        guard x > knee else { return max(x, 0) }
        return knee + scale * log(1 + (x - knee) / scale)
    }
}
