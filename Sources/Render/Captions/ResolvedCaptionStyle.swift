import DropcutMediaIO
import DropcutTimeline

/// A `CaptionStyle` in pixels of one output: the em from the output's height, the safe
/// rectangle, and every fraction checked to be in its range first (a style comes from a
/// recipe: a size of 50 would ask for text 50 times the frame's height).
struct ResolvedCaptionStyle {
    let style: CaptionStyle
    /// The em, pixels: `size` × the output height.
    let em: Double
    /// Where every drawn pixel stays.
    let safe: PixelBox
    let maxLines: Int

    /// Why a style cannot be drawn: the field and its value.
    struct Invalid: Error, CustomStringConvertible {
        var field: String
        var value: String
        var range: String
        var description: String { "captions style \(field) \(value) is not in \(range)" }
    }

    init(_ style: CaptionStyle, output: PixelSize) throws(Invalid) {
        func check(_ value: Double, _ field: String, _ range: ClosedRange<Double>) throws(Invalid) {
            guard value.isFinite, range.contains(value) else {
                throw Invalid(field: field, value: "\(value)", range: "\(range.lowerBound)...\(range.upperBound)")
            }
        }
        // Sizes are fractions of the output's height; the rest fractions of the em.
        try check(style.size, "size", 0.005...0.5)
        try check(style.outline, "outline", 0...0.5)
        try check(style.shadow, "shadow", 0...0.5)
        try check(style.padding, "padding", 0...2)
        try check(style.cornerRadius, "cornerRadius", 0...2)
        try check(style.maxWidth, "maxWidth", 0.05...1)
        try check(style.lineSpacing, "lineSpacing", 0.5...4)
        guard (1...20).contains(style.maxLines) else {
            throw Invalid(field: "maxLines", value: "\(style.maxLines)", range: "1...20")
        }
        if let area = style.safeArea {
            for (value, field) in [(area.top, "safeArea.top"), (area.bottom, "safeArea.bottom"),
                                   (area.left, "safeArea.left"), (area.right, "safeArea.right")] {
                try check(value, field, 0...0.45)
            }
        }
        self.style = style
        em = style.size * Double(output.height)
        safe = style.safeRect(on: output)
        maxLines = style.maxLines
    }

    /// The effects (outline, shadow) at an em of `pixels` (text set smaller to fit keeps
    /// its proportions).
    func effects(at pixels: Double) -> OverlayLayer.TextEffects {
        var effects = OverlayLayer.TextEffects()
        effects.outlineWidth = style.outline * pixels
        effects.outlineColor = style.outlineColor
        effects.shadowOffset = style.shadow * pixels
        effects.shadowColor = style.shadowColor
        return effects
    }

    /// The box behind each line at an em of `pixels`, nil without a background.
    func background(at pixels: Double, boxes: [PixelRect]) -> TextPicture.Background? {
        style.background.map {
            TextPicture.Background(color: $0, padding: Int((style.padding * pixels).rounded()),
                                   cornerRadius: style.cornerRadius * pixels, boxes: boxes)
        }
    }

    /// What a picture adds to the text's box at an em of `pixels`: across (both sides and
    /// the shadow) and down.
    func extra(at pixels: Double) -> Int {
        let effects = effects(at: pixels)
        let margin = TextPicture.margin(effects: effects, background: background(at: pixels, boxes: []))
        return 2 * margin + max(0, Int(effects.shadowOffset.rounded()))
    }

    /// The widest a line of text may be at an em of `pixels`: `maxWidth` of the safe width,
    /// less what the picture adds around the text.
    func wrapWidth(at pixels: Double) -> Int {
        max(1, Int(style.maxWidth * Double(safe.width)) - extra(at: pixels))
    }
}
