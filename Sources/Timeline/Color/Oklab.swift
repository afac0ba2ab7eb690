import Foundation

/// Björn Ottosson's Oklab perceptual colour space (2020), from and to linear BT.709 RGB.
/// Its hue angle stays constant where colours look the same hue — far better than CIELAB
/// in the blues — so reducing chroma at constant Oklab hue and lightness is how dropcut
/// brings BT.2020 colours into BT.709 without shifting them toward another hue.
package struct Oklab: Sendable, Hashable {
    package var lightness: Double
    package var a: Double
    package var b: Double

    package init(lightness: Double, a: Double, b: Double) {
        self.lightness = lightness
        self.a = a
        self.b = b
    }

    /// The colour of linear BT.709 RGB (values outside 0...1 allowed).
    package init(linearBT709 rgb: (Double, Double, Double)) {
        let (r, g, b) = rgb
        let l = Self.cubeRoot(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let m = Self.cubeRoot(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let s = Self.cubeRoot(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        lightness = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s
        a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s
        self.b = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s
    }

    /// Linear BT.709 RGB of the colour.
    package var linearBT709: (Double, Double, Double) {
        let l = pow3(lightness + 0.3963377774 * a + 0.2158037573 * b)
        let m = pow3(lightness - 0.1055613458 * a - 0.0638541728 * b)
        let s = pow3(lightness - 0.0894841775 * a - 1.2914855480 * b)
        return (4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
                -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
                -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)
    }

    /// Chroma (distance from the grey axis).
    package var chroma: Double { (a * a + b * b).squareRoot() }

    /// Hue angle in degrees, 0..<360.
    package var hue: Double {
        let degrees = atan2(b, a) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    private static func cubeRoot(_ x: Double) -> Double { x < 0 ? -Foundation.cbrt(-x) : Foundation.cbrt(x) }
    private func pow3(_ x: Double) -> Double { x * x * x }
}
