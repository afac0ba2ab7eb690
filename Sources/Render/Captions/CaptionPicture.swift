import DropcutMediaIO
import DropcutTimeline

/// One cue's text set for the screen, every line of it: wrapped to the style's width with
/// the lines balanced as libass balances them (`TextLayouter.Wrap.balanced`); a cue
/// wrapping to more than `maxLines` lines (or its own number of lines, when the author
/// wrote more) is set smaller, 5 % at a time down to half the style's size, to wrap less;
/// a cue taller or wider than the safe area is set smaller until it fits, below half size
/// if it must. Nothing is ever cut: players draw every line the author wrote, and a caption
/// that loses lines says something else. Drawn with the style's colour, outline, shadow,
/// the lit word's colour and a box behind each line.
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
    /// The UTF-8 range of the cue's text each line sets, top to bottom: together, all of it.
    let lineRanges: [Range<Int>]
    /// How many lines it was set in: at most the style's `maxLines` or the cue's own lines,
    /// whichever is more, unless even half the style's size wraps to more.
    var lineCount: Int { lineRanges.count }

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
            if fitsSafeArea || start <= minimumPixels { return picture }
            start = max(1, min(start, picture.pixelSize) * 0.9)
        }
    }

    /// One try of `make`, starting at an em of `start` pixels.
    private static func attempt(_ text: String, markup: CaptionMarkup, lit: Range<Int>?, alignment: CuePlacement.Alignment, from start: Double,
                                style: ResolvedCaptionStyle, fonts: FontSet, limit: PixelSize) throws(Failure) -> CaptionPicture {
        let safe = style.safe
        // The lines the author wrote are all drawn, so they never count against `maxLines`:
        // the limit is on what wrapping adds.
        let lineLimit = max(style.maxLines, authoredLines(text))
        func fitsArea(_ layout: TextLayout, _ pixels: Double) -> Bool {
            let extra = style.extra(at: pixels)
            return layout.width + extra <= safe.width && layout.height + extra <= safe.height
        }
        // Smaller, down to half size, until it wraps to no more lines than the limit and
        // fits the safe area.
        let half = min(start, max(1, style.em / 2))
        var pixels = start
        var layout = try set(text, markup: markup, pixels: pixels, style: style, fonts: fonts)
        while !(layout.lines.count <= lineLimit && fitsArea(layout, pixels)), pixels > half {
            pixels = max(half, pixels * 0.95)
            layout = try set(text, markup: markup, pixels: pixels, style: style, fonts: fonts)
        }
        // Still taller or wider than the safe area (many lines on a small frame): smaller
        // still, every line kept, until it fits.
        while !fitsArea(layout, pixels), pixels > minimumPixels {
            pixels = max(minimumPixels, pixels * 0.95)
            layout = try set(text, markup: markup, pixels: pixels, style: style, fonts: fonts)
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
                              pixelSize: pixels, lineRanges: layout.lines.map(\.textRange))
    }

    /// The smallest em a cue is set at to fit the safe area: 2 pixels, where `make` stops
    /// trying too (text that small is unreadable, but it is all there).
    static let minimumPixels = 2.0

    /// The lines of `text` as written: its newlines (and the other line and paragraph
    /// separators `TextLayouter` ends a line at) plus one.
    static func authoredLines(_ text: String) -> Int {
        text.reduce(1) { $0 + ($1.isNewline ? 1 : 0) }
    }

    private static func set(_ text: String, markup: CaptionMarkup, pixels: Double, style: ResolvedCaptionStyle,
                            fonts: FontSet) throws(Failure) -> TextLayout {
        do {
            return try TextLayouter.layout(text, fonts: fonts, pixelSize: pixels, maxWidth: style.wrapWidth(at: pixels),
                                           wrap: .balanced, alignment: .center, lineSpacing: style.style.lineSpacing,
                                           emphasis: markup.emphasis)
        } catch {
            switch error {
            case let .font(error): throw .font(error)
            case .outOfMemory: throw .outOfMemory
            }
        }
    }
}
