/// 4:2:0 video stores one chroma sample per 2×2 pixels: a layer drawn at an odd pixel
/// would pair its chroma with the wrong lines and columns. Every placement snaps to the
/// even grid here (sizes are checked with `PixelSize.isEven`).
enum ChromaGrid {
    /// Far outside any canvas, and far inside `Int`: positions from ramps and transforms
    /// are clamped to it, so no value (NaN, a huge scale) can trap in the conversion.
    static let limit = Double(1 << 40)

    /// The even pixel at or below `value`.
    static func floor(_ value: Double) -> Int {
        let n = Int(clamped(value).rounded(.down))
        return n - (n & 1)
    }

    /// The nearest even pixel.
    static func round(_ value: Double) -> Int {
        Int((clamped(value) / 2).rounded()) * 2
    }

    private static func clamped(_ value: Double) -> Double {
        value.isNaN ? 0 : Swift.min(Swift.max(value, -limit), limit)
    }
}
