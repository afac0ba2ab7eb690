/// A text set in lines: every glyph shaped, in its font, at its place — what
/// `TextLayouter` makes and `TextRasterizer` draws. Positions are in 26.6 fixed point
/// (1/64 pixel), x from the left of the layout box, y from the line's baseline (up).
struct TextLayout {
    /// One glyph, placed.
    struct Glyph: Equatable {
        /// Index into the `FontSet`'s faces.
        var font: Int
        /// The glyph id in that font (0: .notdef).
        var id: UInt32
        /// Pen position of the glyph's origin (with HarfBuzz's offset), 26.6, from the
        /// left of the layout box.
        var x: Int
        /// Offset up from the baseline, 26.6 (marks above a base).
        var y: Int
        /// How far the pen moves after it, 26.6.
        var advance: Int
        /// UTF-8 offset of the start of the glyph's cluster in the text: what a caller
        /// colours when a word is lit.
        var cluster: Int
    }

    /// One line, glyphs in visual order (left to right).
    struct Line {
        var glyphs: [Glyph]
        /// The sum of its advances (trailing spaces dropped), 26.6.
        var width: Int
        /// Left edge of the line in the layout box by the alignment, 26.6.
        var offset: Int
        /// The UTF-8 range of the text the line sets (logical order).
        var textRange: Range<Int>
        /// Right to left: the paragraph the line belongs to is.
        var isRightToLeft: Bool
    }

    enum Alignment: Sendable, Equatable {
        case left, center, right
    }

    var lines: [Line]
    /// The em, in pixels.
    var pixelSize: Double
    /// Baseline to baseline, whole pixels.
    var lineHeight: Int
    /// Top of a line to its baseline, whole pixels (the first chosen font's).
    var ascender: Int
    /// The layout box: the widest line, whole pixels (rounded up).
    var width: Int {
        ((lines.map(\.width).max() ?? 0) + 63) >> 6
    }
    /// The layout box: the lines' heights.
    var height: Int { lines.count * lineHeight }
    /// The first paragraph runs right to left (its first strong character is RTL).
    var isRightToLeft: Bool { lines.first?.isRightToLeft ?? false }

    /// The lines aligned anew in the layout box (whole pixels, as `TextLayouter` does).
    mutating func align(_ alignment: Alignment) {
        let box = width
        for i in lines.indices {
            let free = box - ((lines[i].width + 63) >> 6)
            let offset: Int
            switch alignment {
            case .left: offset = 0
            case .center: offset = (free / 2) << 6
            case .right: offset = free << 6
            }
            for g in lines[i].glyphs.indices { lines[i].glyphs[g].x += offset - lines[i].offset }
            lines[i].offset = offset
        }
    }
}
