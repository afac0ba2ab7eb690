internal import CFreeType
internal import CHarfBuzz

/// One font file opened with FreeType and HarfBuzz: owns an `FT_Library`, the `FT_Face`
/// and the `hb_font_t` made on it (`hb_ft_font_create_referenced`, which holds its own
/// reference to the face) — one font, freed as one in `deinit`, HarfBuzz's reference first.
///
/// A face has one size at a time (`setPixelSize`); a `FontFace` belongs to one layout
/// engine user (a text layer, a caption track) and is not shared between threads.
final class FontFace {
    let path: String
    let face: FT_Face
    private var library: FT_Library?
    /// The HarfBuzz font on `face`: its scale follows the face's size (26.6 pixels).
    let shaper: OpaquePointer
    /// A colour bitmap font (CBDT, as NotoColorEmoji): it has fixed sizes only, is set at
    /// its strike and scaled to the em, and its glyphs are BGRA pictures, not coverage.
    let isColor: Bool
    /// Hinted (FreeType's default load: outlines fitted to the pixel grid, advances in
    /// whole pixels, as ffmpeg's drawtext draws) or not (outlines and advances as designed,
    /// only scaled: fractional advances, each glyph drawn at its subpixel position, as
    /// libass draws subtitles — captions; whole-pixel advances would drift a long line by
    /// several pixels from where the font's metrics put its words).
    let isHinted: Bool
    /// The em the face is set to, in pixels (`setPixelSize`).
    private(set) var pixelSize: Double = 0
    /// Pixels of the em per pixel the face draws at: 1 for a scalable font; em ÷ strike
    /// for a bitmap font set at its fixed strike.
    private(set) var scale: Double = 1

    /// Why a font could not be used.
    struct LoadError: Error, Sendable, Hashable, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "\(path): cannot open the font (FreeType error \(code))" }
    }

    /// Opens face `index` of the file at `path` (a .ttc holds several), hinted or not.
    init(path: String, index: Int = 0, hinted: Bool = true) throws(LoadError) {
        self.path = path
        isHinted = hinted
        var library: FT_Library?
        let initResult = FT_Init_FreeType(&library)
        guard initResult == 0, let library else { throw LoadError(path: path, code: initResult) }
        var face: FT_Face?
        let result = FT_New_Face(library, path, FT_Long(index), &face)
        guard result == 0, let face else {
            FT_Done_FreeType(library)
            throw LoadError(path: path, code: result)
        }
        self.library = library
        self.face = face
        isColor = face.pointee.face_flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
            && face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) == 0
        guard let font = hb_ft_font_create_referenced(face) else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw LoadError(path: path, code: -1)
        }
        // Advances loaded as the glyphs are drawn: hinted (FreeType's default load), as
        // the FreeType-only renderer placed them, whole pixels at small sizes; or unhinted,
        // the design's advances scaled (26.6 fractions).
        hb_ft_font_set_load_flags(font, hinted ? Int32(FT_LOAD_DEFAULT) : Int32(FT_LOAD_NO_HINTING))
        shaper = font
    }

    deinit {
        hb_font_destroy(shaper)
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// The font's design units per em (what `hb-shape` reports positions in by default).
    var unitsPerEm: Int { Int(face.pointee.units_per_EM) }

    /// True when the font's character map has `scalar` (not its .notdef).
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        FT_Get_Char_Index(face, FT_ULong(scalar.value)) != 0
    }

    /// Sets the em to `pixels` (1 ... 16384): a scalable font at that size, a bitmap font
    /// at its strike nearest above (or largest), scaled by `scale`. Returns FreeType's
    /// error code on failure.
    func setPixelSize(_ pixels: Double) -> Int32 {
        guard pixels != pixelSize else { return 0 }
        let em = min(16384, max(1, pixels))
        if isColor {
            let count = Int(face.pointee.num_fixed_sizes)
            guard count > 0, let sizes = face.pointee.available_sizes else { return -1 }
            // The smallest strike at least the em (scaled down: sharper than scaled up),
            // else the largest.
            var best = 0
            for i in 1..<max(1, count) {
                let ppem = Double(sizes[i].y_ppem) / 64, chosen = Double(sizes[best].y_ppem) / 64
                let better = ppem >= em ? (chosen < em || ppem < chosen) : (chosen < em && ppem > chosen)
                if better { best = i }
            }
            let result = FT_Select_Size(face, FT_Int(best))
            guard result == 0 else { return result }
            scale = em / max(1, Double(sizes[best].y_ppem) / 64)
        } else {
            let result = FT_Set_Pixel_Sizes(face, 0, FT_UInt(em.rounded()))
            guard result == 0 else { return result }
            scale = 1
        }
        hb_ft_font_changed(shaper)
        pixelSize = pixels
        return 0
    }

    /// The face's vertical metrics at its size, in whole pixels of the em: a hinted face's
    /// as FreeType fits them to the grid, rounded out (the ascender up, the descender down,
    /// the height at least their sum); an unhinted face's the design's, scaled and each
    /// rounded to the nearest pixel — rounding both ends out adds up to a pixel and a half
    /// to every line (43 px lines for DejaVu Sans at 36 px, whose design says 41.9: libass
    /// sets them 41.9 apart, CaptionLibassReferenceTests).
    var lineMetrics: (ascender: Int, descender: Int, height: Int) {
        let metrics = face.pointee.size.pointee.metrics
        if !isHinted && !isColor {
            // Font units to pixels: y_scale is 16.16 from units to 26.6.
            let perUnit = Double(metrics.y_scale) / 65536 / 64
            let ascender = Double(face.pointee.ascender) * perUnit, descender = Double(-face.pointee.descender) * perUnit
            let height = max(Double(face.pointee.height) * perUnit, ascender + descender)
            return (Int(ascender.rounded()), Int(descender.rounded()), Int(height.rounded()))
        }
        let ascender = Int((Double(metrics.ascender) * scale / 64).rounded(.up))
        let descender = Int((Double(-metrics.descender) * scale / 64).rounded(.up))
        let height = Int((Double(metrics.height) * scale / 64).rounded(.up))
        return (ascender, descender, max(height, ascender + descender))
    }
}
