import Foundation

/// Test patterns for the HDR conversion, made forward from SDR colours by BT.2100's own
/// definitions (display light → PQ inverse EOTF, or HLG inverse OOTF + OETF; BT.2020
/// matrix) — written here on their own, apart from dropcut's, so they check it — and the
/// colour-difference measure the targets are stated in.
public enum HDRPatterns {
    /// The HDR transfer a pattern is made for.
    public enum Transfer: Sendable { case hlg, pq }
    /// Light, medium and dark skin (sRGB-ish BT.709 signal values).
    public static let skinTones: [(Double, Double, Double)] = [
        (0.878, 0.675, 0.412), (0.776, 0.525, 0.259), (0.553, 0.333, 0.141), (0.945, 0.761, 0.624), (0.361, 0.220, 0.137),
    ]

    public static func linearBT709(sdrRGB rgb: (Double, Double, Double)) -> (Double, Double, Double) {
        (pow(rgb.0, 2.4), pow(rgb.1, 2.4), pow(rgb.2, 2.4))
    }

    /// Linear BT.709 light of normalised SDR Y'CbCr (BT.709 matrix, BT.1886 gamma).
    public static func linearBT709(sdrYCbCr c: (y: Double, cb: Double, cr: Double)) -> (Double, Double, Double) {
        let r = c.y + 1.5748 * c.cr, b = c.y + 1.8556 * c.cb
        let g = (c.y - 0.2126 * r - 0.0722 * b) / 0.7152
        return (pow(max(r, 0), 2.4), pow(max(g, 0), 2.4), pow(max(b, 0), 2.4))
    }

    public static func bt709ToBT2020(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
        (0.6274 * c.0 + 0.3293 * c.1 + 0.0433 * c.2, 0.0691 * c.0 + 0.9195 * c.1 + 0.0114 * c.2,
         0.0164 * c.0 + 0.0880 * c.1 + 0.8956 * c.2)
    }

    public static func bt2020ToBT709(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
        (1.6605 * c.0 - 0.5876 * c.1 - 0.0728 * c.2, -0.1246 * c.0 + 1.1329 * c.1 - 0.0083 * c.2,
         -0.0182 * c.0 - 0.1006 * c.1 + 1.1187 * c.2)
    }

    /// The HDR signal of an SDR colour placed by BT.2408 (SDR white at reference white).
    public static func encode(sdr rgb: (Double, Double, Double), as transfer: Transfer) -> (y: Double, cb: Double, cr: Double) {
        encode(displayBT2020: bt709ToBT2020(linearBT709(sdrRGB: rgb)), as: transfer)
    }

    /// The HDR signal (normalised Y'CbCr, BT.2020 matrix) of display light in BT.2020
    /// primaries, relative to reference white.
    public static func encode(displayBT2020 c: (Double, Double, Double), as transfer: Transfer) -> (y: Double, cb: Double, cr: Double) {
        let nits = (c.0 * 203, c.1 * 203, c.2 * 203)
        var signal: (Double, Double, Double)
        if transfer == .pq {
            signal = (pqSignal(nits.0), pqSignal(nits.1), pqSignal(nits.2))
        } else {
            // Inverse OOTF (BT.2100, γ 1.2 at 1000 cd/m²), then the OETF.
            let yd = 0.2627 * nits.0 + 0.6780 * nits.1 + 0.0593 * nits.2
            let ys = pow(yd / 1000, 1 / 1.2)
            let scale = yd > 0 ? 1 / (1000 * pow(ys, 0.2)) : 0
            signal = (hlgSignal(nits.0 * scale), hlgSignal(nits.1 * scale), hlgSignal(nits.2 * scale))
        }
        let y = 0.2627 * signal.0 + 0.6780 * signal.1 + 0.0593 * signal.2
        return (y, (signal.2 - y) / 1.8814, (signal.0 - y) / 1.4746)
    }

    /// BT.2100 HLG OETF of scene light 0...1.
    public static func hlgSignal(_ e: Double) -> Double {
        let a = 0.17883277, b = 0.28466892, c = 0.55991073
        return e <= 1.0 / 12 ? (3 * max(e, 0)).squareRoot() : a * log(12 * e - b) + c
    }

    /// SMPTE ST 2084 inverse EOTF of display light in cd/m².
    public static func pqSignal(_ nits: Double) -> Double {
        let y = pow(min(max(nits / 10000, 0), 1), 0.1593017578125)
        return pow((0.8359375 + 18.8515625 * y) / (1 + 18.6875 * y), 78.84375)
    }

    /// CIE L*a*b* (D65) of linear BT.709 light.
    public static func lab(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
        let x = (0.4124 * c.0 + 0.3576 * c.1 + 0.1805 * c.2) / 0.95047
        let y = 0.2126 * c.0 + 0.7152 * c.1 + 0.0722 * c.2
        let z = (0.0193 * c.0 + 0.1192 * c.1 + 0.9505 * c.2) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// CIEDE2000 colour difference of two linear BT.709 colours.
    public static func deltaE2000(_ first: (Double, Double, Double), _ second: (Double, Double, Double)) -> Double {
        let (l1, a1, b1) = lab(first), (l2, a2, b2) = lab(second)
        let c1 = hypot(a1, b1), c2 = hypot(a2, b2), cMean = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7))).squareRoot())
        let a1p = a1 * (1 + g), a2p = a2 * (1 + g)
        let c1p = hypot(a1p, b1), c2p = hypot(a2p, b2)
        func hue(_ b: Double, _ a: Double) -> Double {
            guard a != 0 || b != 0 else { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(b1, a1p), h2 = hue(b2, a2p)
        let dL = l2 - l1, dC = c2p - c1p
        var dh = h2 - h1
        if c1p * c2p == 0 { dh = 0 } else if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * .pi / 180)
        let lMean = (l1 + l2) / 2, cpMean = (c1p + c2p) / 2
        var hMean = h1 + h2
        if c1p * c2p != 0 {
            hMean = abs(h1 - h2) > 180 ? (h1 + h2 + (h1 + h2 < 360 ? 360 : -360)) / 2 : (h1 + h2) / 2
        }
        let rad = Double.pi / 180
        let t = 1 - 0.17 * cos((hMean - 30) * rad) + 0.24 * cos(2 * hMean * rad) + 0.32 * cos((3 * hMean + 6) * rad)
            - 0.20 * cos((4 * hMean - 63) * rad)
        let sl = 1 + 0.015 * pow(lMean - 50, 2) / (20 + pow(lMean - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * cpMean, sh = 1 + 0.015 * cpMean * t
        let dTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let rc = 2 * (pow(cpMean, 7) / (pow(cpMean, 7) + pow(25, 7))).squareRoot()
        let rt = -sin(2 * dTheta * rad) * rc
        let l = dL / sl, c = dC / sc, h = dH / sh
        return (l * l + c * c + h * h + rt * c * h).squareRoot()
    }
}
