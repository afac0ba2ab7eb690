/// Brings linear BT.709 RGB that lies outside the displayable cube — negative components
/// (BT.2020 colours BT.709 cannot show) or components above the ceiling (bright
/// saturated highlights after tone mapping) — back inside it by reducing chroma at
/// constant Oklab lightness and hue, only as much as needed.
///
/// Clipping each component instead would turn a saturated BT.2020 green-cyan into green
/// and an orange highlight into yellow; here the colour keeps its hue and lightness and
/// only loses saturation the output cannot hold.
public enum GamutMapper {
    /// `rgb` moved into `[0, ceiling]³`, hue and lightness kept.
    public static func map(_ rgb: (Double, Double, Double), ceiling: Double) -> (Double, Double, Double) {
        func inside(_ c: (Double, Double, Double), slack: Double = 1e-9) -> Bool {
            min(c.0, c.1, c.2) >= -slack && max(c.0, c.1, c.2) <= ceiling + slack
        }
        func clamp(_ c: (Double, Double, Double)) -> (Double, Double, Double) {
            (min(max(c.0, 0), ceiling), min(max(c.1, 0), ceiling), min(max(c.2, 0), ceiling))
        }
        guard !inside(rgb) else { return clamp(rgb) }
        let colour = Oklab(linearBT709: rgb)
        // The grey of the same lightness; too bright a grey is lowered to the ceiling.
        var lightness = colour.lightness
        let greyLimit = Oklab(linearBT709: (ceiling, ceiling, ceiling)).lightness
        lightness = min(max(lightness, 0), greyLimit)
        func scaled(_ t: Double) -> (Double, Double, Double) {
            Oklab(lightness: lightness, a: colour.a * t, b: colour.b * t).linearBT709
        }
        if inside(scaled(1)) { return clamp(scaled(1)) }
        var low = 0.0, high = 1.0
        for _ in 0..<30 {
            let mid = (low + high) / 2
            if inside(scaled(mid)) { low = mid } else { high = mid }
        }
        return clamp(scaled(low))
    }
}
