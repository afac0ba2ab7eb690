internal import CDropcutFreeType
import DropcutMediaIO
import DropcutTimeline

/// Draws a `TextLayout` into coverage masks, once per text (a layer, a caption): each
/// glyph rendered with FreeType at the layout's size (grey coverage) — or, from a colour
/// font (emoji), its BGRA bitmap scaled to the em into a separate colour layer drawn over
/// the text — and placed on its line's baseline. A glyph used twice is rendered once.
enum TextRasterizer {
    /// A coverage mask: `width × height` bytes, 0 (none) to 255 (full), and what goes with
    /// it, all the same size.
    struct Mask {
        var width: Int
        var height: Int
        /// The text in its colour.
        var coverage: [UInt8]
        /// The glyphs of the highlighted clusters (in the highlight colour); nil: none asked.
        var highlight: [UInt8]?
        /// Colour glyphs, premultiplied RGBA; nil: the text has none.
        var color: [UInt8]?
        /// Text painted in colours of its own (`TextPaint.colors`), one mask each.
        var layers: [[UInt8]] = []
        var layerColors: [Color] = []
        /// Boxes behind spans of the text (`TextPaint.background`), in mask pixels.
        var spanBoxes: [(rect: PixelRect, color: Color)] = []
        /// Where the layout box's top-left corner is in the mask (ink may reach left of or
        /// above it).
        var originX: Int = 0
        var originY: Int = 0
    }

    /// How spans of a text are painted besides its colour (captions' markup), by the UTF-8
    /// offset of a glyph's cluster: a colour of their own (an index into `colors`),
    /// underlined, a box behind.
    struct Paint {
        var colors: [Color] = []
        var color: (Int) -> Int? = { _ in nil }
        var underline: (Int) -> Bool = { _ in false }
        var background: (Int) -> Color? = { _ in nil }
    }

    /// Why text was not set.
    enum Failure: Error {
        case font(FontFace.LoadError)
        /// The text's layout box (advances × line heights) exceeds the limit: nothing was
        /// rendered.
        case tooLarge(PixelSize)
    }

    /// A rendered glyph: grey coverage, or premultiplied RGBA for a colour glyph.
    private struct Bitmap {
        var left: Int
        var top: Int
        var width: Int
        var rows: Int
        var pixels: [UInt8]
        var isColor: Bool
    }

    /// A glyph as rendered: an unhinted face's glyphs are rendered at the fraction of a
    /// pixel (26.6, right and up) their position has; a hinted face's at whole pixels.
    private struct GlyphKey: Hashable {
        var font: Int
        var id: UInt32
        var phaseX: Int = 0
        var phaseY: Int = 0
    }

    /// Draws `layout` (set in `fonts`, which must still be at the layout's size), or
    /// refuses before rendering a glyph when its layout box is larger than `limit`: a long
    /// line at a large size would otherwise be rendered whole, glyph by glyph. With
    /// `highlight`, the glyphs of clusters starting in that UTF-8 range go to the
    /// highlight mask.
    static func rasterize(_ layout: TextLayout, fonts: FontSet, highlight: Range<Int>? = nil, paint: Paint? = nil,
                          limit: PixelSize) throws(Failure) -> Mask {
        let box = PixelSize(width: layout.width, height: layout.height)
        guard box.width <= limit.width, box.height <= limit.height else { throw .tooLarge(box) }
        if let error = fonts.setPixelSize(layout.pixelSize) { throw .font(error) }

        var cache: [GlyphKey: Bitmap] = [:]
        /// `layer`: -1 the text colour, -2 the highlight, 0... a paint colour.
        struct Placed { var bitmap: Bitmap; var x: Int; var y: Int; var layer: Int }
        var placed: [Placed] = []
        var boxes: [(rect: PixelRect, color: Color)] = []
        let underline = fonts.faces[0].underline
        func layer(of cluster: Int) -> Int {
            if highlight?.contains(cluster) ?? false { return -2 }
            return paint?.color(cluster) ?? -1
        }
        for (n, line) in layout.lines.enumerated() {
            let baseline = n * layout.lineHeight + layout.ascender
            if let paint {
                // Underlines and span boxes: one rectangle for each run of glyphs that have
                // them alike, from the first glyph's pen to the last one's advance.
                var run: (start: Int, end: Int, layer: Int)?
                var box: (start: Int, end: Int, color: Color)?
                func flushRun() {
                    guard let current = run else { return }
                    let x0 = current.start >> 6, x1 = max(x0 + 1, (current.end + 63) >> 6)
                    let height = max(1, (underline.thickness + 32) >> 6)
                    let top = baseline + ((underline.offset - underline.thickness / 2 + 32) >> 6)
                    placed.append(Placed(bitmap: Bitmap(left: 0, top: 0, width: x1 - x0, rows: height,
                                                        pixels: [UInt8](repeating: 255, count: (x1 - x0) * height), isColor: false),
                                         x: x0, y: top, layer: current.layer))
                    run = nil
                }
                func flushBox() {
                    guard let current = box else { return }
                    let x0 = current.start >> 6, x1 = max(x0 + 1, (current.end + 63) >> 6)
                    boxes.append((PixelRect(x: x0, y: n * layout.lineHeight, width: x1 - x0, height: layout.lineHeight), current.color))
                    box = nil
                }
                for glyph in line.glyphs {
                    let start = glyph.x, end = glyph.x + glyph.advance
                    if paint.underline(glyph.cluster) {
                        let want = layer(of: glyph.cluster)
                        if let current = run, current.layer == want { run?.end = max(current.end, end) } else { flushRun(); run = (start, end, want) }
                    } else {
                        flushRun()
                    }
                    if let color = paint.background(glyph.cluster) {
                        if let current = box, current.color == color { box?.end = max(current.end, end) } else { flushBox(); box = (start, end, color) }
                    } else {
                        flushBox()
                    }
                }
                flushRun()
                flushBox()
            }
            for glyph in line.glyphs {
                let face = fonts.faces[glyph.font]
                let subpixel = !face.isHinted && !face.isColor
                // Whole pixels of the origin (x right, y up from the baseline) and the
                // fraction the glyph is rendered at.
                let key = GlyphKey(font: glyph.font, id: glyph.id, phaseX: subpixel ? glyph.x & 63 : 0,
                                   phaseY: subpixel ? glyph.y & 63 : 0)
                let up = subpixel ? glyph.y >> 6 : (glyph.y + 32) >> 6
                let bitmap: Bitmap
                if let cached = cache[key] {
                    bitmap = cached
                } else {
                    guard let rendered = render(glyph.id, in: face, phaseX: key.phaseX, phaseY: key.phaseY) else { continue }
                    cache[key] = rendered
                    bitmap = rendered
                }
                guard bitmap.width > 0, bitmap.rows > 0 else { continue }
                placed.append(Placed(bitmap: bitmap, x: (glyph.x >> 6) + bitmap.left,
                                     y: baseline - up - bitmap.top, layer: layer(of: glyph.cluster)))
            }
        }
        // The layout box, grown to whatever ink reaches beyond it (a j's hook left of the
        // pen, accents above the ascender, italics).
        var minX = 0, minY = 0, maxX = max(1, box.width), maxY = max(1, box.height)
        for glyph in placed {
            minX = min(minX, glyph.x)
            maxX = max(maxX, glyph.x + glyph.bitmap.width)
            minY = min(minY, glyph.y)
            maxY = max(maxY, glyph.y + glyph.bitmap.rows)
        }
        // And to the span boxes (a mark's negative offset can start one left of the pen).
        for (rect, _) in boxes {
            minX = min(minX, rect.x)
            maxX = max(maxX, rect.maxX)
            minY = min(minY, rect.y)
            maxY = max(maxY, rect.maxY)
        }
        let width = maxX - minX, height = maxY - minY
        var coverage = [UInt8](repeating: 0, count: width * height)
        var lit: [UInt8]? = highlight == nil ? nil : coverage
        var color: [UInt8]? = placed.contains { $0.bitmap.isColor } ? [UInt8](repeating: 0, count: width * height * 4) : nil
        var layers = [[UInt8]](repeating: [], count: paint?.colors.count ?? 0)
        for glyph in placed where glyph.layer >= 0 && layers[glyph.layer].isEmpty { layers[glyph.layer] = coverage }
        for glyph in placed {
            let bitmap = glyph.bitmap
            let x0 = glyph.x - minX, y0 = glyph.y - minY
            if bitmap.isColor {
                // Premultiplied "over", in the order the glyphs come.
                for row in 0..<bitmap.rows {
                    for column in 0..<bitmap.width {
                        let s = (row * bitmap.width + column) * 4, t = ((y0 + row) * width + x0 + column) * 4
                        let a = Int(bitmap.pixels[s + 3])
                        guard a > 0 else { continue }
                        for c in 0..<4 {
                            color![t + c] = UInt8(min(255, Int(bitmap.pixels[s + c]) + Int(color![t + c]) * (255 - a) / 255))
                        }
                    }
                }
                continue
            }
            func draw(_ target: inout [UInt8]) {
                for row in 0..<bitmap.rows {
                    for column in 0..<bitmap.width {
                        let value = bitmap.pixels[row * bitmap.width + column]
                        let i = (y0 + row) * width + x0 + column
                        if value > target[i] { target[i] = value }
                    }
                }
            }
            switch glyph.layer {
            case -2: draw(&lit!)
            case -1: draw(&coverage)
            default: draw(&layers[glyph.layer])
            }
        }
        var mask = Mask(width: width, height: height, coverage: coverage, highlight: lit, color: color, originX: -minX, originY: -minY)
        for (index, values) in layers.enumerated() where !values.isEmpty {
            mask.layers.append(values)
            mask.layerColors.append(paint!.colors[index])
        }
        mask.spanBoxes = boxes.map { (PixelRect(x: $0.rect.x - minX, y: $0.rect.y - minY, width: $0.rect.width, height: $0.rect.height), $0.color) }
        return mask
    }

    /// Renders one glyph at the face's size: grey coverage, or a colour glyph's BGRA
    /// strike scaled to the em (premultiplied RGBA). Nil when FreeType cannot load it. An
    /// unhinted face's outline is moved `phaseX`, `phaseY` (26.6, right and up) first, so
    /// the coverage is that of the glyph at its subpixel position.
    private static func render(_ id: UInt32, in font: FontFace, phaseX: Int = 0, phaseY: Int = 0) -> Bitmap? {
        let face = font.face
        let synthesised = !font.isColor && (font.emboldens || font.slants)
        var flags = font.isColor ? FT_LOAD_COLOR : font.isHinted ? FT_LOAD_RENDER : FT_LOAD_RENDER | FT_LOAD_NO_HINTING
        // A synthesised style changes the outline: loaded unrendered, changed, then rendered.
        if synthesised { flags = (flags & ~FT_LOAD_RENDER) | FT_LOAD_NO_BITMAP }
        let moved = phaseX != 0 || phaseY != 0
        if moved {
            var delta = FT_Vector(x: FT_Pos(phaseX), y: FT_Pos(phaseY))
            FT_Set_Transform(face, nil, &delta)
        }
        defer { if moved { FT_Set_Transform(face, nil, nil) } }
        guard FT_Load_Glyph(face, id, Int32(flags)) == 0 else { return nil }
        if synthesised {
            // libass's synthesis: FreeType's oblique shear and its emboldening (a 24th of
            // the em), on the outline.
            if font.slants { FT_GlyphSlot_Oblique(face.pointee.glyph) }
            if font.emboldens { FT_GlyphSlot_Embolden(face.pointee.glyph) }
            guard FT_Render_Glyph(face.pointee.glyph, FT_RENDER_MODE_NORMAL) == 0 else { return nil }
        }
        let slot = face.pointee.glyph.pointee
        let bitmap = slot.bitmap
        let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        // FreeType renders rows top-down (positive pitch); a bottom-up bitmap is not drawn.
        guard width > 0, rows > 0, pitch > 0, let buffer = bitmap.buffer else {
            return Bitmap(left: 0, top: 0, width: 0, rows: 0, pixels: [], isColor: false)
        }
        switch bitmap.pixel_mode {
        case UInt8(FT_PIXEL_MODE_BGRA.rawValue):
            var rgba = [UInt8](repeating: 0, count: width * rows * 4)
            for row in 0..<rows {
                for column in 0..<width {
                    let s = row * pitch + column * 4, t = (row * width + column) * 4
                    rgba[t] = buffer[s + 2]; rgba[t + 1] = buffer[s + 1]; rgba[t + 2] = buffer[s]; rgba[t + 3] = buffer[s + 3]
                }
            }
            return scaled(Bitmap(left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), width: width, rows: rows,
                                 pixels: rgba, isColor: true), by: font.scale)
        case UInt8(FT_PIXEL_MODE_MONO.rawValue):
            var pixels = [UInt8](repeating: 0, count: width * rows)
            for row in 0..<rows {
                for column in 0..<width where buffer[row * pitch + column / 8] & (0x80 >> UInt8(column % 8)) != 0 {
                    pixels[row * width + column] = 255
                }
            }
            return Bitmap(left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), width: width, rows: rows, pixels: pixels, isColor: false)
        case UInt8(FT_PIXEL_MODE_GRAY.rawValue):
            var pixels = [UInt8](repeating: 0, count: width * rows)
            for row in 0..<rows {
                for column in 0..<width { pixels[row * width + column] = buffer[row * pitch + column] }
            }
            return Bitmap(left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), width: width, rows: rows, pixels: pixels, isColor: false)
        default:
            return Bitmap(left: 0, top: 0, width: 0, rows: 0, pixels: [], isColor: false)
        }
    }

    /// A colour bitmap resized by `scale` (the em over the strike): each target pixel the
    /// average of the source pixels under it (premultiplied, so edges keep their colour).
    private static func scaled(_ bitmap: Bitmap, by scale: Double) -> Bitmap {
        guard scale != 1, scale > 0 else { return bitmap }
        let width = max(1, Int((Double(bitmap.width) * scale).rounded()))
        let rows = max(1, Int((Double(bitmap.rows) * scale).rounded()))
        let sx = Double(bitmap.width) / Double(width), sy = Double(bitmap.rows) / Double(rows)
        var out = [UInt8](repeating: 0, count: width * rows * 4)
        for y in 0..<rows {
            let y0 = Int(Double(y) * sy), y1 = max(y0 + 1, min(bitmap.rows, Int((Double(y + 1) * sy).rounded(.up))))
            for x in 0..<width {
                let x0 = Int(Double(x) * sx), x1 = max(x0 + 1, min(bitmap.width, Int((Double(x + 1) * sx).rounded(.up))))
                var sum = (0, 0, 0, 0)
                for v in y0..<min(y1, bitmap.rows) {
                    for u in x0..<min(x1, bitmap.width) {
                        let s = (v * bitmap.width + u) * 4
                        sum.0 += Int(bitmap.pixels[s]); sum.1 += Int(bitmap.pixels[s + 1])
                        sum.2 += Int(bitmap.pixels[s + 2]); sum.3 += Int(bitmap.pixels[s + 3])
                    }
                }
                let n = max(1, (min(y1, bitmap.rows) - y0) * (min(x1, bitmap.width) - x0))
                let t = (y * width + x) * 4
                out[t] = UInt8(sum.0 / n); out[t + 1] = UInt8(sum.1 / n); out[t + 2] = UInt8(sum.2 / n); out[t + 3] = UInt8(sum.3 / n)
            }
        }
        return Bitmap(left: Int((Double(bitmap.left) * scale).rounded()), top: Int((Double(bitmap.top) * scale).rounded()),
                      width: width, rows: rows, pixels: out, isColor: true)
    }
}
