import Foundation
import Testing
import TestSupport
@testable import DropcutTimeline

/// The conversion into HLG against BT.2408's reference points, against the test patterns'
/// own BT.2100 encoder (`HDRPatterns`, written apart from dropcut's math) and against the
/// HDR-to-SDR conversion it must undo.
@Suite struct HLGConversionTests {
    static let sdr = ColorDescription.bt709
    static let pq = ColorDescription(primaries: .bt2020, transfer: .pq, matrix: .bt2020)

    @Test func sdrWhiteIsHDRReferenceWhite() {
        let conversion = HLGConversion(source: Self.sdr)
        let white = conversion.convert(rgb: (1, 1, 1))
        // BT.2408: SDR white (graphics white) at HLG 75 %.
        #expect(abs(white.0 - 0.75) < 0.0005 && white.0 == white.1 && white.1 == white.2, "white at \(white)")
        let black = conversion.convert(rgb: (0, 0, 0))
        #expect(black == (0, 0, 0))
        // As Y'CbCr: neutral, Y' 75 %.
        let ycc = conversion.convert(y: 1, cb: 0, cr: 0)
        #expect(abs(ycc.y - 0.75) < 0.0005 && abs(ycc.cb) < 1e-9 && abs(ycc.cr) < 1e-9)
    }

    @Test func sdrColoursMatchTheIndependentBT2100Encoder() {
        let conversion = HLGConversion(source: Self.sdr)
        let colours: [(Double, Double, Double)] = HDRPatterns.skinTones + [
            (0.5, 0.5, 0.5), (0.18, 0.18, 0.18), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1), (0.9, 0.4, 0.1),
        ]
        for colour in colours {
            let rgb = conversion.convert(rgb: colour)
            let got = HLGConversion.ycbcr(bt2020: rgb)
            let want = HDRPatterns.encode(sdr: colour, as: .hlg)
            // The patterns' BT.709 → BT.2020 matrix has four decimals.
            #expect(abs(got.y - want.y) < 0.001 && abs(got.cb - want.cb) < 0.001 && abs(got.cr - want.cr) < 0.001,
                    "\(colour): \(got), BT.2100 encoder \(want)")
        }
    }

    @Test func pqIsPlacedByDisplayLight() {
        let conversion = HLGConversion(source: Self.pq)
        func grey(_ nits: Double) -> Double {
            let signal = TransferFunction.pqInverseEOTF(nits)
            return conversion.convert(rgb: (signal, signal, signal)).0
        }
        // 203 cd/m² is HLG 75 %; the reference display's 1000 cd/m² is HLG 100 %; BT.2408's
        // 18 % grey card, 26 cd/m², HLG 38 %.
        #expect(abs(grey(203) - 0.75) < 0.001)
        #expect(abs(grey(1000) - 1) < 0.001)
        #expect(abs(grey(26) - 0.38) < 0.005)
        // Above the display's peak: held at 100 %, not past it.
        #expect(grey(4000) <= 1 && grey(4000) > 0.999)
        // A saturated PQ colour brighter than the display keeps its hue (ratios kept in light).
        let red = conversion.convert(rgb: (TransferFunction.pqInverseEOTF(4000), TransferFunction.pqInverseEOTF(400), 0))
        let light = TransferFunction.hlgOOTF((TransferFunction.hlgInverseOETF(red.0), TransferFunction.hlgInverseOETF(red.1),
                                              TransferFunction.hlgInverseOETF(red.2)))
        #expect(abs(light.1 / light.0 - 0.1) < 0.002, "red at \(red), light \(light)")
    }

    @Test func hlgInBT2020IsUnchanged() {
        let conversion = HLGConversion(source: ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020))
        for colour in [(0.75, 0.75, 0.75), (0.2, 0.5, 0.9), (1.0, 0.3, 0.0), (0.05, 0.02, 0.4)] {
            let out = conversion.convert(rgb: colour)
            #expect(abs(out.0 - colour.0) < 1e-7 && abs(out.1 - colour.1) < 1e-7 && abs(out.2 - colour.2) < 1e-7, "\(colour) → \(out)")
        }
    }

    /// Mapped up and tone mapped back down, an SDR colour below the tone curve's knee comes
    /// back as it was (ΔE2000 < 1, the gamut mapping's soft edge touching the darkest
    /// skin a little): the two conversions place reference white alike.
    @Test func hdrToSDRUndoesTheMappingBelowTheKnee() {
        let up = HLGConversion(source: Self.sdr)
        let down = HDRToSDRConversion(source: ColorDescription(primaries: .bt2020, transfer: .hlg, matrix: .bt2020))
        for colour in [(0.9, 0.9, 0.9), (0.5, 0.5, 0.5), (0.1, 0.1, 0.1)] + HDRPatterns.skinTones {
            let back = down.convert(rgb: up.convert(rgb: colour))
            let difference = HDRPatterns.deltaE2000(HDRPatterns.linearBT709(sdrRGB: colour), HDRPatterns.linearBT709(sdrRGB: back))
            #expect(difference < 1, "\(colour) came back as \(back), ΔE2000 \(difference)")
        }
    }

    @Test func greysRiseMonotonically() {
        let conversion = HLGConversion(source: Self.sdr)
        var previous = -1.0
        for step in 0...255 {
            let v = Double(step) / 255
            let out = conversion.convert(rgb: (v, v, v)).0
            #expect(out > previous)
            previous = out
        }
    }
}
