internal import CFreeType
import Timeline

/// Sets text with FreeType into a coverage mask, once per layer: each line's glyphs are
/// rendered at the pixel size and placed on the baseline by their advances; lines are
/// stacked by the font's line height and aligned left, centred or right. A character
/// the font lacks draws the font's own .notdef glyph (glyph 0), as FreeType defines.
enum TextRasterizer {
    enum Alignment: Sendable { case left, center, right }

    /// A coverage mask: `width × height` bytes, 0 (none) to 255 (full).
    struct Mask {
        var width: Int
        var height: Int
        var coverage: [UInt8]
    }

    /// Why text was not set.
    enum Failure: Error {
        case font(FontFace.LoadError)
        /// The text's layout box (advances × line heights) exceeds the limit: nothing was
        /// rendered.
        case tooLarge(PixelSize)
    }

    /// Sets `text`, or refuses before rendering a glyph when its layout box (measured
    /// from the advances alone, which costs no bitmaps) is larger than `limit`: a long
    /// line at a large size would otherwise be rendered whole, glyph by glyph.
    static func rasterize(_ text: String, font: FontFace, pixelSize: Double, alignment: Alignment,
                          limit: PixelSize) throws(Failure) -> Mask {
        let face = font.face
        let size = FT_UInt(max(1, min(pixelSize, Double(Int32.max)).rounded()))
        let setResult = FT_Set_Pixel_Sizes(face, 0, size)
        guard setResult == 0 else { throw .font(FontFace.LoadError(path: font.path, code: setResult)) }
        let metrics = face.pointee.size.pointee.metrics
        let ascender = Int((metrics.ascender + 63) >> 6), descender = Int((-metrics.descender + 63) >> 6)
        let lineHeight = max(Int((metrics.height + 63) >> 6), ascender + descender)
        let measured = measure(text, face: face, lineHeight: lineHeight)
        guard measured.width <= limit.width, measured.height <= limit.height else { throw .tooLarge(measured) }

        struct Glyph { var x: Int; var top: Int; var width: Int; var rows: Int; var pixels: [UInt8] }
        var lines: [(glyphs: [Glyph], advance: Int)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var pen = 0   // 26.6 fixed point
            var glyphs: [Glyph] = []
            for scalar in line.unicodeScalars {
                let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))   // 0: .notdef
                guard FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_RENDER)) == 0 else { continue }
                let slot = face.pointee.glyph.pointee
                let bitmap = slot.bitmap
                var pixels = [UInt8](repeating: 0, count: Int(bitmap.width) * Int(bitmap.rows))
                if let buffer = bitmap.buffer, bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) {
                    for row in 0..<Int(bitmap.rows) {
                        for column in 0..<Int(bitmap.width) {
                            pixels[row * Int(bitmap.width) + column] = buffer[row * Int(bitmap.pitch) + column]
                        }
                    }
                }
                glyphs.append(Glyph(x: (pen >> 6) + Int(slot.bitmap_left), top: Int(slot.bitmap_top),
                                    width: Int(bitmap.width), rows: Int(bitmap.rows), pixels: pixels))
                pen += Int(slot.advance.x)
            }
            // The line's extent: its advance, or further if a glyph's ink overhangs it.
            let inkEnd = glyphs.map { $0.x + $0.width }.max() ?? 0
            lines.append((glyphs, max((pen + 63) >> 6, inkEnd)))
        }
        // The layout box (line advances × line heights) — grown to whatever ink reaches
        // beyond it (a j's hook left of the pen, accents above the ascender, italics).
        let layoutWidth = max(1, lines.map(\.advance).max() ?? 1)
        let layoutHeight = max(1, lines.count * lineHeight)
        func lineOffset(_ advance: Int) -> Int {
            switch alignment {
            case .left: return 0
            case .center: return (layoutWidth - advance) / 2
            case .right: return layoutWidth - advance
            }
        }
        var minX = 0, minY = 0, maxX = layoutWidth, maxY = layoutHeight
        for (n, line) in lines.enumerated() {
            let baseline = n * lineHeight + ascender, offset = lineOffset(line.advance)
            for glyph in line.glyphs where glyph.width > 0 && glyph.rows > 0 {
                minX = min(minX, offset + glyph.x)
                maxX = max(maxX, offset + glyph.x + glyph.width)
                minY = min(minY, baseline - glyph.top)
                maxY = max(maxY, baseline - glyph.top + glyph.rows)
            }
        }
        let width = maxX - minX, height = maxY - minY
        var coverage = [UInt8](repeating: 0, count: width * height)
        for (n, line) in lines.enumerated() {
            let baseline = n * lineHeight + ascender - minY, offset = lineOffset(line.advance) - minX
            for glyph in line.glyphs {
                for row in 0..<glyph.rows {
                    let y = baseline - glyph.top + row
                    for column in 0..<glyph.width {
                        let x = offset + glyph.x + column
                        let value = glyph.pixels[row * glyph.width + column]
                        if value > coverage[y * width + x] { coverage[y * width + x] = value }
                    }
                }
            }
        }
        return Mask(width: width, height: height, coverage: coverage)
    }

    /// The layout box by advances alone (glyphs loaded without their bitmaps): the widest
    /// line's advance and the lines' heights.
    private static func measure(_ text: String, face: FT_Face, lineHeight: Int) -> PixelSize {
        var widest = 0, lines = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var pen = 0   // 26.6 fixed point
            for scalar in line.unicodeScalars {
                let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
                guard FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_DEFAULT)) == 0 else { continue }
                pen += Int(face.pointee.glyph.pointee.advance.x)
            }
            widest = max(widest, (pen + 63) >> 6)
            lines += 1
        }
        return PixelSize(width: widest, height: lines * lineHeight)
    }
}
