import DropcutTimeline

/// A cue's markup styles (`CaptionCue.styles`) as the text engine takes them: which text
/// is set in a bold or italic face (`TextLayouter`'s emphasis), and which is painted in a
/// colour of its own, underlined or boxed (`TextRasterizer.Paint`), by UTF-8 offset.
struct CaptionMarkup {
    let spans: [CaptionStyledSpan]

    static let none = CaptionMarkup(spans: [])

    /// The span's style at `offset`, or plain.
    func style(at offset: Int) -> CaptionTextStyle {
        // Spans are in text order: the last starting at or before the offset.
        var low = 0, high = spans.count
        while low < high {
            let middle = (low + high) / 2
            if spans[middle].textRange.lowerBound <= offset { low = middle + 1 } else { high = middle }
        }
        guard low > 0, spans[low - 1].textRange.contains(offset) else { return .plain }
        return spans[low - 1].style
    }

    /// Bold and italic by offset; nil when no span has either.
    var emphasis: ((Int) -> (bold: Bool, italic: Bool))? {
        guard spans.contains(where: { $0.style.bold || $0.style.italic }) else { return nil }
        return { offset in
            let style = style(at: offset)
            return (style.bold, style.italic)
        }
    }

    /// Colours, underlines and boxes by offset; nil when no span has any.
    var paint: TextRasterizer.Paint? {
        guard spans.contains(where: { $0.style.color != nil || $0.style.underline || $0.style.background != nil }) else { return nil }
        var colors: [Color] = []
        for span in spans {
            if let color = span.style.color, !colors.contains(color) { colors.append(color) }
        }
        let palette = colors
        return TextRasterizer.Paint(
            colors: palette,
            color: { offset in style(at: offset).color.flatMap { palette.firstIndex(of: $0) } },
            underline: { offset in style(at: offset).underline },
            background: { offset in style(at: offset).background })
    }
}
