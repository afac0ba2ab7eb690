/// Brings linear BT.709 RGB into the displayable cube `[0, ceiling]³` — BT.2020 colours
/// BT.709 cannot show (negative components), bright saturated highlights after tone
/// mapping (components above the ceiling) — by compressing chroma at constant Oklab
/// lightness and hue.
///
/// Clipping each component instead would turn a saturated BT.2020 green-cyan into green
/// and an orange highlight into yellow. The compression is soft: chroma up to
/// `threshold` of the most the cube holds at that lightness and hue is kept; beyond it
/// chroma rolls off smoothly (slope 1 where it starts) toward the cube's edge, which it
/// never crosses. A hard cut at the edge would put a crease in the conversion that the
/// renderer's lookup table could not follow; the soft knee costs the most saturated
/// BT.709 colours a few percent of their chroma.
package enum GamutMapper {
    /// The share of the cube's chroma that is kept unchanged.
    package static let threshold = 0.8

    /// `rgb` moved into `[0, ceiling]³`, hue and lightness kept.
    package static func map(_ rgb: (Double, Double, Double), ceiling: Double) -> (Double, Double, Double) {
        func inside(_ c: (Double, Double, Double)) -> Bool {
            min(c.0, c.1, c.2) >= -1e-9 && max(c.0, c.1, c.2) <= ceiling + 1e-9
        }
        func clamp(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
            (min(max(c.0, 0), ceiling), min(max(c.1, 0), ceiling), min(max(c.2, 0), ceiling))
        }
        let colour = Oklab(linearBT709: rgb)
        let chroma = colour.chroma
        // The grey of the same lightness; too bright a grey is lowered to the ceiling.
        let greyLimit = Oklab(linearBT709: (ceiling, ceiling, ceiling)).lightness
        let lightness = min(max(colour.lightness, 0), greyLimit)
        guard chroma > 1e-9, lightness > 0 else { return clamp(rgb) }
        let (hueA, hueB) = (colour.a / chroma, colour.b / chroma)
        func at(_ c: Double) -> (Double, Double, Double) {
            Oklab(lightness: lightness, a: hueA * c, b: hueB * c).linearBT709
        }
        // The most chroma the cube holds at this lightness and hue.
        var low = 0.0, high = max(chroma, 0.5)
        if inside(at(high)) { low = high } else {
            for _ in 0..<32 {
                let mid = (low + high) / 2
                if inside(at(mid)) { low = mid } else { high = mid }
            }
        }
        let limit = low, knee = threshold * limit
        guard chroma > knee, limit > 0 else { return clamp(at(chroma)) }
        let room = limit - knee, excess = chroma - knee
        return clamp(at(knee + room * excess / (room + excess)))
    }
}
