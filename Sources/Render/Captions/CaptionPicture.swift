import MediaIO
import Timeline

/// One cue's text set for the screen: wrapped to the style's width, at most `maxLines`
/// lines — set smaller, 5 % at a time down to half the style's size, until it fits, and
/// only then cut to `maxLines` lines ending in an ellipsis — and drawn with the style's
/// colour, outline, shadow, the lit word's colour and a box behind each line.
///
/// A box per line (not one around the block) follows the text's ragged edge, as broadcast
/// and the short-video apps draw caption backgrounds: a short last line does not carry a
/// wide empty box.
struct CaptionPicture {
    let frame: VideoFrame
    /// The paragraph of the cue's first line runs right to left (WebVTT's `start` and `end`
    /// then mean right and left).
    let isRightToLeft: Bool
    /// The line height it was set with, pixels (WebVTT's line numbers count in it).
    let lineHeight: Int
    /// The em it was set at (the style's, or smaller to fit).
    let pixelSize: Double
    /// The text drawn (the cue's, or its beginning with an ellipsis).
    let text: String
    /// How many lines it was set in (at most the style's `maxLines`).
    let lineCount: Int

    /// Why a cue could not be drawn.
    enum Failure: Error {
        case font(FontFace.LoadError)
        case outOfMemory
        case tooLarge(PixelSize)
    }

    /// Sets `text` with the clusters starting in `lit` (UTF-8 offsets) in the highlight
    /// colour, lines aligned by `alignment` (start and end by the text's direction).
    static func make(_ text: String, markup: CaptionMarkup = .none, lit: Range<Int>?, alignment: CuePlacement.Alignment,
                     style: ResolvedCaptionStyle, fonts: FontSet, limit: PixelSize) throws(Failure) -> CaptionPicture {
        // The fit is judged on the layout box; ink beyond it (accents stacked above the
        // ascender, a tall fallback glyph) can make the picture larger than the safe area
        // after all: then it is set again, from a smaller size.
        var start = style.em
        while true {
            let picture = try attempt(text, markup: markup, lit: lit, alignment: alignment, from: start, style: style, fonts: fonts, limit: limit)
            let fitsSafeArea = picture.frame.width <= style.safe.width && picture.frame.height <= style.safe.height
            if fitsSafeArea || start <= 2 { return picture }
            start = max(1, min(start, picture.pixelSize) * 0.9)
        }
    }

    /// One try of `make`, starting at an em of `start` pixels.
    private static func attempt(_ text: String, markup: CaptionMarkup, lit: Range<Int>?, alignment: CuePlacement.Alignment, from start: Double,
                                style: ResolvedCaptionStyle, fonts: FontSet, limit: PixelSize) throws(Failure) -> CaptionPicture {
        let safe = style.safe
        let minimum = min(start, max(1, style.em / 2))
        var pixels = start
        var text = text
        // Shrink until the lines fit in number and the picture in the safe area.
        func fits(_ layout: TextLayout, _ pixels: Double) -> Bool {
            let extra = style.extra(at: pixels)
            return layout.lines.count <= style.maxLines && layout.width + extra <= safe.width && layout.height + extra <= safe.height
        }
        var layout = try set(text, markup: markup, pixels: pixels, style: style, fonts: fonts)
        while !fits(layout, pixels), pixels > minimum {
            pixels = max(minimum, pixels * 0.95)
            layout = try set(text, markup: markup, pixels: pixels, style: style, fonts: fonts)
        }
        if layout.lines.count > style.maxLines {
            (text, layout) = try ellipsised(text, layout: layout, pixels: pixels, style: style, fonts: fonts)
        }
        let resolved: TextLayout.Alignment
        switch alignment {
        case .left: resolved = .left
        case .right: resolved = .right
        case .center: resolved = .center
        case .start: resolved = layout.isRightToLeft ? .right : .left
        case .end: resolved = layout.isRightToLeft ? .left : .right
        }
        layout.align(resolved)
        let mask: TextRasterizer.Mask
        do {
            mask = try TextRasterizer.rasterize(layout, fonts: fonts, highlight: style.style.highlightColor == nil ? nil : lit,
                                                paint: markup.paint, limit: limit)
        } catch {
            switch error {
            case let .font(error): throw .font(error)
            case let .tooLarge(size): throw .tooLarge(size)
            }
        }
        let boxes = layout.lines.enumerated().compactMap { n, line -> PixelRect? in
            guard !line.glyphs.isEmpty else { return nil }
            return PixelRect(x: mask.originX + (line.offset >> 6), y: mask.originY + n * layout.lineHeight,
                             width: (line.width + 63) >> 6, height: layout.lineHeight)
        }
        let frame: VideoFrame
        do {
            frame = try TextPicture.render(mask, color: style.style.color, effects: style.effects(at: pixels),
                                           highlightColor: style.style.highlightColor,
                                           background: style.background(at: pixels, boxes: boxes))
        } catch {
            throw .outOfMemory
        }
        return CaptionPicture(frame: frame, isRightToLeft: layout.isRightToLeft, lineHeight: layout.lineHeight,
                              pixelSize: pixels, text: text, lineCount: layout.lines.count)
    }

    private static func set(_ text: String, markup: CaptionMarkup, pixels: Double, style: ResolvedCaptionStyle,
                            fonts: FontSet) throws(Failure) -> TextLayout {
        do {
            return try TextLayouter.layout(text, fonts: fonts, pixelSize: pixels, maxWidth: style.wrapWidth(at: pixels),
                                           alignment: .center, lineSpacing: style.style.lineSpacing, emphasis: markup.emphasis)
        } catch {
            switch error {
            case let .font(error): throw .font(error)
            case .outOfMemory: throw .outOfMemory
            }
        }
    }

    /// The text cut after its `maxLines`th line, ending in "…": whole words dropped from
    /// the end until the ellipsis fits on that line (letters, for a single long word).
    private static func ellipsised(_ text: String, layout: TextLayout, pixels: Double, style: ResolvedCaptionStyle,
                                   fonts: FontSet) throws(Failure) -> (String, TextLayout) {
        let utf8 = Array(text.utf8)
        let end = layout.lines[style.maxLines - 1].textRange.upperBound
        var kept = String(decoding: utf8[..<end], as: UTF8.self)
        while true {
            while kept.last?.isWhitespace ?? false { kept.removeLast() }
            let candidate = kept + "…"
            let candidateLayout = try set(candidate, markup: .none, pixels: pixels, style: style, fonts: fonts)
            if candidateLayout.lines.count <= style.maxLines || kept.isEmpty { return (candidate, candidateLayout) }
            // The last word, or the last letter when the last line is one word.
            let lastLine = kept.split(whereSeparator: \.isNewline).last ?? Substring(kept)
            if let space = lastLine.lastIndex(where: \.isWhitespace) {
                kept = String(kept[..<space])
            } else {
                kept.removeLast()
            }
        }
    }
}
