import Foundation
import Testing
import TestSupport
@testable import DropcutTimeline

/// The HDR-to-SDR math against published reference points (BT.2100, BT.2408) and against
/// HLG codes `zscale` made from known SDR colours (display-referred, npl=203: SDR white at
/// HLG 75 %), so the conversion is checked against an independent implementation.
@Suite struct HDRToSDRConversionTests {
    static let hlg = ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020)
    static let pq = ColorDescription(primaries: .bt2020, transfer: .pq, matrix: .bt2020, peakLuminance: 1000)

    /// 10-bit video-range codes → normalised signal.
    static func normalised(_ y: Int, _ cb: Int, _ cr: Int) -> (Double, Double, Double) {
        (Double(y - 64) / 876, Double(cb - 512) / 896, Double(cr - 512) / 896)
    }

    /// Normalised SDR output → 8-bit video-range codes.
    static func codes(_ out: (y: Double, cb: Double, cr: Double)) -> (Double, Double, Double) {
        (16 + 219 * out.y, 128 + 224 * out.cb, 128 + 224 * out.cr)
    }

    @Test func transferFunctionsMeetTheirReferencePoints() {
        // BT.2408: HLG 75 % on the 1000 cd/m² reference display is 203 cd/m² (white).
        let light = TransferFunction.hlgInverseOETF(0.75)
        let display = TransferFunction.hlgOOTF((light, light, light)).0
        #expect(abs(display - 203) < 1)
        // BT.2408's 18 % grey card: HLG 38 %, 26 cd/m².
        let grey = TransferFunction.hlgInverseOETF(0.38)
        #expect(abs(TransferFunction.hlgOOTF((grey, grey, grey)).0 - 26) < 1)
        // PQ: 58 % ≈ 203 cd/m², 100 % = 10000 cd/m², and the inverse round-trips.
        #expect(abs(TransferFunction.pqEOTF(0.58) - 203) < 3)
        #expect(abs(TransferFunction.pqEOTF(1) - 10000) < 1e-6)
        for nits in [0.5, 26, 203, 1000, 4000] {
            #expect(abs(TransferFunction.pqEOTF(TransferFunction.pqInverseEOTF(nits)) - nits) < nits * 1e-9)
        }
        for value in stride(from: 0.0, through: 1, by: 0.05) {
            #expect(abs(TransferFunction.hlgOETF(TransferFunction.hlgInverseOETF(value)) - value) < 1e-9)
        }
    }

    @Test func toneCurveIsIdentityBelowTheKneeAndRollsOffAbove() {
        for peak in [400.0, 1000, 4000, 10000] {
            let curve = ToneCurve(peakLuminance: peak)
            #expect(curve(0.5) == 0.5)
            #expect(abs(curve(curve.peak) - curve.headroom) < 1e-6)
            // Reference white at SDR white within 2 % of the signal (BT.1886 display gamma).
            #expect(pow(curve(1), 1 / 2.4) >= 0.98)
            var previous = curve(curve.knee)
            for step in 1...200 {
                let x = curve.knee + (curve.peak * 1.5 - curve.knee) * Double(step) / 200
                let y = curve(x)
                #expect(y > previous)
                previous = y
            }
        }
    }

    /// Achromatic patches `zscale` made from SDR greys: (HLG 10-bit Y, SDR 8-bit Y). For
    /// greys zimg's HLG (which applies the OOTF per component) and BT.2100's (on
    /// luminance) agree, so zscale is an independent oracle here.
    static let zscaleGreys: [(hlg: Int, sdr: Double)] = [(721, 235), (424, 117)]

    @Test func zscaleGreysComeBackAsTheirSDROriginals() {
        let conversion = HDRToSDRConversion(source: Self.hlg)
        for patch in Self.zscaleGreys {
            let (y, cb, cr) = Self.normalised(patch.hlg, 512, 512)
            let out = Self.codes(conversion.convert(y: y, cb: cb, cr: cr))
            // Reference white lands at SDR white within 2 % (4.4 codes); the rest exact.
            #expect(abs(out.0 - patch.sdr) <= (patch.sdr == 235 ? 4.4 : 1), "\(out) vs \(patch.sdr)")
            #expect(abs(out.1 - 128) < 0.5 && abs(out.2 - 128) < 0.5)
        }
    }

    @Test func greyCardLandsInBT2408Range() {
        // BT.2408: the 18 % grey card is HLG 38 % / PQ 38 % (26 cd/m²); an SDR camera puts
        // it at 38-46 % of the signal. Here it is where SDR shows 26/203 of white.
        for (description, signal) in [(Self.hlg, 0.38), (Self.pq, TransferFunction.pqInverseEOTF(26))] {
            let out = HDRToSDRConversion(source: description).convert(y: signal, cb: 0, cr: 0)
            #expect(out.y >= 0.38 && out.y <= 0.46, "\(description.transfer): grey card at \(out.y)")
        }
    }

    @Test func skinTonesKeepTheirSDRColour() {
        for description in [Self.hlg, Self.pq] {
            let conversion = HDRToSDRConversion(source: description)
            for skin in HDRPatterns.skinTones {
                let source = HDRPatterns.encode(sdr: skin, as: description.transfer == .pq ? .pq : .hlg)
                let out = conversion.convert(y: source.y, cb: source.cb, cr: source.cr)
                let back = HDRPatterns.linearBT709(sdrYCbCr: out)
                let original = HDRPatterns.linearBT709(sdrRGB: skin)
                let difference = HDRPatterns.deltaE2000(back, original)
                #expect(difference <= 3, "\(description.transfer) \(skin): ΔE2000 \(difference)")
            }
        }
    }

    @Test func saturatedBT2020ColoursKeepTheirHue() {
        // Display light in BT.2020 primaries, outside BT.709, at and above reference white.
        let colours: [(Double, Double, Double)] = [(0, 1, 0), (0, 0.4, 1), (1, 0, 0), (1, 0.5, 0), (0, 1, 1),
                                                   (0.8, 0, 1), (0, 0.6, 0.2), (2, 0, 0), (0, 3, 0.5)]
        for description in [Self.hlg, Self.pq] {
            let conversion = HDRToSDRConversion(source: description)
            for colour in colours {
                let source = HDRPatterns.encode(displayBT2020: colour, as: description.transfer == .pq ? .pq : .hlg)
                let out = conversion.convert(y: source.y, cb: source.cb, cr: source.cr)
                let hueIn = Oklab(linearBT709: HDRPatterns.bt2020ToBT709(colour)).hue
                let hueOut = Oklab(linearBT709: HDRPatterns.linearBT709(sdrYCbCr: out)).hue
                let shift = abs((hueOut - hueIn + 540).truncatingRemainder(dividingBy: 360) - 180)
                #expect(shift <= 5, "\(description.transfer) \(colour): hue \(hueIn) -> \(hueOut)")
            }
        }
    }

    @Test func highlightsRollOffUpToThePeak() {
        for description in [Self.hlg, Self.pq] {
            let conversion = HDRToSDRConversion(source: description)
            let start = description.transfer == .hlg ? 0.75 : TransferFunction.pqInverseEOTF(203)
            let end = description.transfer == .hlg ? 1.0 : TransferFunction.pqInverseEOTF(1000)
            var previous = -1.0
            for step in 0...20 {
                let y = conversion.convert(y: start + (end - start) * Double(step) / 20, cb: 0, cr: 0).y
                #expect(y > previous + 0.001, "\(description.transfer): flat at step \(step)")
                previous = y
            }
            #expect(previous <= 1.09 + 1e-9)
        }
    }
}
