import Foundation

/// The fonts a text is set in: the chosen font file(s) first, then the system's fallback
/// fonts (`fallbackPaths`, those installed), each opened once. A character cluster is set
/// in the first font whose character map has every code point of it (`font(for:)`), so
/// Arabic, Devanagari, CJK or an emoji inside a Latin caption each find a font that has
/// them instead of drawing the chosen font's .notdef boxes. A cluster none of them has is
/// looked up with fontconfig (`FontCatalog`), and the installed font it names is opened
/// and added (Kannada, Gujarati, any script whose font is installed).
final class FontSet {
    /// The fallback fonts, in the order they are tried after the chosen ones: the Noto
    /// fonts Debian's fonts-noto-core, fonts-noto-cjk and fonts-noto-color-emoji install
    /// (scripts/bootstrap). Latin, Greek and Cyrillic first, then the scripts by how
    /// commonly they appear in captions, CJK (a large font, opened only if present) and
    /// the colour emoji last, so a character that has a text glyph somewhere uses it.
    /// Files not present are skipped.
    static let fallbackPaths: [String] = [
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansBengali-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansTamil-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansArmenian-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansGeorgian-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansEthiopic-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansSymbols-Regular.ttf",
        "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
    ]

    /// The chosen fonts, then the fallbacks present, then those fontconfig found; index 0
    /// is the first chosen font.
    private(set) var faces: [FontFace]
    private let hinted: Bool
    /// The em last set (`setPixelSize`), given to a face fontconfig adds later.
    private var pixelSize: Double?
    /// fontconfig's answers so far, by the code points asked for: the face's index, or nil.
    private var found: [[UInt32]: Int?] = [:]
    /// At most this many clusters are looked up (each sorts every installed font, about a
    /// millisecond): a hostile cue of thousands of unassigned code points costs no more.
    static let maximumLookups = 128
    /// The text's language (BCP 47), for shaping; nil: the system's.
    let language: String?
    /// Bold and italic faces asked for so far (`variant`), by the face and the style.
    private var variants: [VariantKey: Int] = [:]
    private struct VariantKey: Hashable {
        var face: Int
        var bold: Bool
        var italic: Bool
    }

    /// The Noto Sans CJK collection: one face per region, whose Han characters take that
    /// region's forms (fc-query lists them: JP, KR, SC, TC, HK, then the Mono faces).
    static let cjkCollection = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

    /// The face of `cjkCollection` for `language`: Korean 1, Simplified Chinese (`zh`,
    /// `zh-Hans`, `zh-CN`, `zh-SG`) 2, Traditional (`zh-Hant`, `zh-TW`) 3, Hong Kong and
    /// Macau (`zh-HK`, `zh-MO`) 4; Japanese and everything else 0, the collection's first.
    static func cjkFace(for language: String?) -> Int {
        let subtags = (language ?? "").lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let primary = subtags.first else { return 0 }
        switch primary {
        case "ko": return 1
        case "zh", "cmn", "yue":
            let rest = Set(subtags.dropFirst())
            if !rest.isDisjoint(with: ["hk", "mo"]) { return 4 }
            if rest.contains("hant") || rest.contains("tw") || primary == "yue" { return 3 }
            return 2
        default: return 0
        }
    }

    /// Opens `paths` (every one must open: a recipe named them), then the fallback fonts
    /// present (one that fails to open is skipped: the text can do without it); all hinted
    /// or all not (`FontFace.isHinted`).
    init(paths: [String], fallbacks: [String] = FontSet.fallbackPaths, hinted: Bool = true,
         language: String? = nil) throws(FontFace.LoadError) {
        var faces: [FontFace] = []
        for path in paths { faces.append(try FontFace(path: path, hinted: hinted)) }
        let chosen = Set(paths)
        for path in fallbacks where !chosen.contains(path) && FileManager.default.fileExists(atPath: path) {
            let index = path == Self.cjkCollection ? Self.cjkFace(for: language) : 0
            if let face = try? FontFace(path: path, index: index, hinted: hinted) { faces.append(face) }
        }
        self.faces = faces
        self.language = language
        self.hinted = hinted
    }

    /// Sets every face to an em of `pixels`; returns the first FreeType error, naming its
    /// font, or nil.
    func setPixelSize(_ pixels: Double) -> FontFace.LoadError? {
        pixelSize = pixels
        for face in faces {
            let code = face.setPixelSize(pixels)
            guard code == 0 else { return FontFace.LoadError(path: face.path, code: code) }
        }
        return nil
    }

    /// The index of the font a cluster (one grapheme: a base and its marks, or an emoji
    /// sequence) is set in: the first that has every code point — joiners and variation
    /// selectors apart, which a font may lack and still draw the sequence. A cluster asking
    /// for emoji presentation (U+FE0F) tries the colour fonts first. None has it all: the
    /// first chosen font, which draws its .notdef box, as the FreeType renderer did.
    func font<Scalars: Collection<Unicode.Scalar>>(for cluster: Scalars) -> Int {
        func hasAll(_ face: FontFace) -> Bool { covers(face, cluster) }
        if cluster.contains(Unicode.Scalar(0xFE0F)!), let colour = faces.firstIndex(where: { $0.isColor && hasAll($0) }) {
            return colour
        }
        return faces.firstIndex(where: hasAll) ?? installedFont(for: Array(cluster)) ?? 0
    }

    /// The face fontconfig names for a cluster none of the faces has, opened (at the em
    /// last set) and added; nil when no installed font has it all or it does not open.
    private func installedFont(for cluster: [Unicode.Scalar]) -> Int? {
        let key = cluster.map(\.value)
        if let known = found[key] { return known }
        guard found.count < Self.maximumLookups else { return nil }
        var index: Int?
        if let match = FontCatalog.shared.font(covering: cluster, language: language, ignoring: Self.isIgnorable) {
            if let open = faces.firstIndex(where: { $0.path == match.path && $0.index == match.index }) {
                // Open already, yet without the cluster (fontconfig's map and FreeType's differ).
                index = covers(faces[open], cluster) ? open : nil
            } else if let face = try? FontFace(path: match.path, index: match.index, hinted: hinted),
                      pixelSize.map({ face.setPixelSize($0) == 0 }) ?? true, covers(face, cluster) {
                faces.append(face)
                index = faces.count - 1
            }
        }
        found[key] = index
        return index
    }

    /// The face to set `<b>` or `<i>` text in where face `index` sets it plain: the face
    /// itself when it already is bold (italic); else the family's bold (italic) face
    /// fontconfig finds, opened and added; else the same face drawn emboldened (slanted),
    /// as libass synthesises a style a family lacks. A colour (emoji) face stays itself.
    func variant(of index: Int, bold: Bool, italic: Bool) -> Int {
        let base = faces[index]
        let wantBold = bold || base.isBold, wantItalic = italic || base.isItalic
        guard !base.isColor, wantBold != base.isBold || wantItalic != base.isItalic else { return index }
        let key = VariantKey(face: index, bold: wantBold, italic: wantItalic)
        if let known = variants[key] { return known }
        // The family's face fontconfig names, else this one; what it is not (by its own
        // style flags: fontconfig answers an italic request with the roman face and a
        // shear of its own), synthesised.
        var face: FontFace?
        var source = (path: base.path, index: base.index, bold: base.isBold, italic: base.isItalic)
        if let family = base.familyName, let match = FontCatalog.shared.font(family: family, bold: wantBold, italic: wantItalic),
           let opened = try? FontFace(path: match.path, index: match.index, hinted: hinted) {
            source = (match.path, match.index, opened.isBold, opened.isItalic)
            if opened.isBold == wantBold, opened.isItalic == wantItalic { face = opened }
        }
        if face == nil {
            face = try? FontFace(path: source.path, index: source.index, hinted: hinted,
                                 emboldens: wantBold && !source.bold, slants: wantItalic && !source.italic)
        }
        guard let face, pixelSize.map({ face.setPixelSize($0) == 0 }) ?? true else {
            variants[key] = index
            return index
        }
        faces.append(face)
        variants[key] = faces.count - 1
        return faces.count - 1
    }

    private func covers<Scalars: Collection<Unicode.Scalar>>(_ face: FontFace, _ cluster: Scalars) -> Bool {
        cluster.allSatisfy { Self.isIgnorable($0) || face.covers($0) }
    }

    /// Code points a font need not have for the cluster to be drawn: zero-width joiners
    /// and non-joiners, variation selectors, emoji tags.
    static func isIgnorable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C, 0x200D, 0xFE00...0xFE0F, 0xE0020...0xE007F, 0xE0100...0xE01EF: return true
        default: return false
        }
    }
}
