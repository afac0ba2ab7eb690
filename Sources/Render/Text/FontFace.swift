internal import CDropcutFreeType
internal import CDropcutHarfBuzz

/// One font file opened with FreeType and HarfBuzz: owns an `FT_Library`, the `FT_Face`
/// and the `hb_font_t` made on it (`hb_ft_font_create_referenced`, which holds its own
/// reference to the face) — one font, freed as one in `deinit`, HarfBuzz's reference first.
///
/// A face has one size at a time (`setPixelSize`); a `FontFace` belongs to one layout
/// engine user (a text layer, a caption track) and is not shared between threads.
final class FontFace {
    let path: String
    /// Which face of the file (a .ttc holds several).
    let index: Int
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
    /// The em a scalable face is set to, in pixels: whole pixels for a hinted face, 1/64
    /// pixel for an unhinted one.
    private var outlineEm: Double = 0
    /// The size libass shapes subtitles at (`subtitleAdvance`), made on first use; freed
    /// with the face.
    private var subtitleGridSize: FT_Size?
    /// Grid-fitted advances at `subtitleGridSize` (26.6), by glyph: a layout asks for
    /// the same few glyphs again and again.
    private var subtitleGridAdvances: [UInt32: Int] = [:]

    /// Why a font could not be used.
    struct LoadError: Error, Sendable, Hashable, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "\(path): cannot open the font (FreeType error \(code))" }
    }

    /// Drawn bolder than the face is (FreeType's emboldening, as libass synthesises bold
    /// for a family without a bold face), for `<b>` text.
    let emboldens: Bool
    /// Drawn slanted (FreeType's oblique shear, as libass synthesises italic), for `<i>`.
    let slants: Bool

    /// Opens face `index` of the file at `path` (a .ttc holds several), hinted or not;
    /// `emboldens` and `slants` synthesise a bold or italic it does not have.
    init(path: String, index: Int = 0, hinted: Bool = true, emboldens: Bool = false, slants: Bool = false) throws(LoadError) {
        self.path = path
        self.index = index
        isHinted = hinted
        self.emboldens = emboldens
        self.slants = slants
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

    /// The family name (`DejaVu Sans`), as fontconfig matches it.
    var familyName: String? { face.pointee.family_name.map { String(cString: $0) } }
    /// The face itself is bold or italic (its style flags), or draws as one (synthesised).
    var isBold: Bool { emboldens || face.pointee.style_flags & FT_Long(FT_STYLE_FLAG_BOLD) != 0 }
    var isItalic: Bool { slants || face.pointee.style_flags & FT_Long(FT_STYLE_FLAG_ITALIC) != 0 }

    /// The underline's offset below the baseline and its thickness, 26.6 pixels at the
    /// size set (the font's `post` table; a twentieth of the em when it has none).
    var underline: (offset: Int, thickness: Int) {
        let em = Double(max(1, unitsPerEm))
        let pixels = pixelSize * 64
        var position = Double(face.pointee.underline_position), thickness = Double(face.pointee.underline_thickness)
        if thickness <= 0 { thickness = em / 20; position = -em / 10 }
        return (Int((-position / em * pixels).rounded()), max(64, Int((thickness / em * pixels).rounded())))
    }

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
            // Hinted (drawtext's way): whole pixels, as FreeType's grid fitting wants.
            // Unhinted (captions, libass's way): the em to 1/64 pixel — libass asks FreeType
            // for fractional sizes, and rounding a 57.6 px em to 58 moved each CJK ideograph
            // 0.4 px further than libass's pen (CaptionLibassReferenceTests).
            let result: FT_Error
            if isHinted {
                result = FT_Set_Pixel_Sizes(face, 0, FT_UInt(em.rounded()))
                outlineEm = em.rounded()
            } else {
                let size26_6 = max(64, (em * 64).rounded())
                result = FT_Set_Char_Size(face, 0, FT_F26Dot6(size26_6), 72, 72)
                outlineEm = size26_6 / 64
            }
            guard result == 0 else { return result }
            scale = 1
        }
        hb_ft_font_changed(shaper)
        pixelSize = pixels
        return 0
    }

    /// The design height libass sets `Fontsize` pixels to, in font units: the OS/2 table's
    /// usWinAscent + usWinDescent (read as signed, as libass does: some fonts store
    /// negative values there), else ascender − descender, else the bounding box (libass's
    /// `set_font_metrics`, VSFilter's convention). Nil when the font gives no positive
    /// height at all.
    private lazy var subtitleDesignHeight: Int? = {
        if let table = FT_Get_Sfnt_Table(face, FT_SFNT_OS2) {
            let os2 = table.assumingMemoryBound(to: TT_OS2.self).pointee
            let height = Int(Int16(truncatingIfNeeded: os2.usWinAscent)) + Int(Int16(truncatingIfNeeded: os2.usWinDescent))
            if height > 0 { return height }
        }
        let height = Int(face.pointee.ascender) - Int(face.pointee.descender)
        if height > 0 { return height }
        let box = Int(face.pointee.bbox.yMax) - Int(face.pointee.bbox.yMin)
        return box > 0 ? box : nil
    }()

    /// The advance of `glyph` at the face's em (26.6) as libass's pen moves over it — what
    /// ffmpeg's `subtitles` filter, mpv and VLC draw subtitles with. libass, hinting off
    /// (its default), shapes every line with the font set to `Fontsize` 256 and takes
    /// FreeType's grid-fitted advances there (`FT_LOAD_DEFAULT`: whole pixels at about
    /// 220 px per em for DejaVu Sans), then scales the line down to the size asked. So
    /// its advances differ from the design's by up to 1/512 of `Fontsize`: +0.071 px for
    /// an "n" of DejaVu Sans Bold at a 36 px em, −0.013 px for an "o", enough to move the
    /// last words of a caption line half a pixel (CaptionLibassReferenceTests). Captions
    /// set with these advances land where every player's subtitle renderer puts them.
    /// `unhinted` is HarfBuzz's advance for the glyph (design advance plus the font's
    /// positioning, as kerning); the positioning is kept and only the design part is
    /// replaced. Unchanged for a hinted or colour face, or a font with no usable height.
    func subtitleAdvance(of glyph: UInt32, unhinted: Int) -> Int {
        guard !isHinted, !isColor, outlineEm > 0, let designHeight = subtitleDesignHeight else { return unhinted }
        let grid: Int
        if let known = subtitleGridAdvances[glyph] {
            grid = known
        } else {
            guard let measured = gridFittedAdvance(glyph, designHeight: designHeight) else { return unhinted }
            subtitleGridAdvances[glyph] = measured
            grid = measured
        }
        // The design advance at the em as HarfBuzz took it (FreeType's 16.16, rounded to 26.6).
        var design: FT_Fixed = 0
        guard FT_Get_Advance(face, glyph, FT_Int32(FT_LOAD_NO_HINTING), &design) == 0 else { return unhinted }
        let designAt26_6 = (Int(design) + 512) >> 10
        // Fontsize 256 → the em: `Fontsize` is the em × designHeight ÷ unitsPerEm.
        let fontSize = outlineEm * Double(designHeight) / Double(max(1, unitsPerEm))
        // A font's numbers are the font's: a value no real advance reaches is not used.
        let scaled = (Double(grid) * fontSize / 256).rounded()
        guard scaled.isFinite, abs(scaled) < 0x1p40 else { return unhinted }
        return unhinted - designAt26_6 + Int(scaled)
    }

    /// FreeType's grid-fitted advance of `glyph` (26.6) at `Fontsize` 256: the design
    /// height `designHeight` spans 256 px. Measured on a second size of the face, so the
    /// face's own size is untouched. Nil if FreeType refuses.
    private func gridFittedAdvance(_ glyph: UInt32, designHeight: Int) -> Int? {
        let current = face.pointee.size
        guard let size = subtitleGridSize ?? makeSubtitleGridSize(designHeight: designHeight),
              FT_Activate_Size(size) == 0 else { return nil }
        defer { _ = FT_Activate_Size(current) }
        let flags = Int32(FT_LOAD_DEFAULT) | Int32(FT_LOAD_IGNORE_GLOBAL_ADVANCE_WIDTH) | Int32(FT_LOAD_IGNORE_TRANSFORM)
        guard FT_Load_Glyph(face, glyph, FT_Int32(flags)) == 0 else { return nil }
        return Int(face.pointee.glyph.pointee.metrics.horiAdvance)
    }

    /// The face's second size, set so `designHeight` units span 256 px (16384 in 26.6;
    /// the scale in 16.16), and kept; the face's own size is active again after. Nil (and
    /// nothing kept) if FreeType refuses.
    private func makeSubtitleGridSize(designHeight: Int) -> FT_Size? {
        let current = face.pointee.size
        var made: FT_Size?
        guard FT_New_Size(face, &made) == 0, let size = made else { return nil }
        defer { _ = FT_Activate_Size(current) }
        var request = FT_Size_RequestRec()
        request.type = FT_SIZE_REQUEST_TYPE_SCALES
        request.height = FT_Long(FT_DivFix(16384, FT_Long(designHeight)))
        request.width = request.height
        guard FT_Activate_Size(size) == 0, FT_Request_Size(face, &request) == 0 else {
            FT_Done_Size(size)
            return nil
        }
        subtitleGridSize = size
        return size
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
