internal import CDropcutFontconfig
import Synchronization

/// fontconfig's answer to "which installed font has these characters?" — what libass and
/// every Linux text stack ask when the chosen fonts lack a character. `FontSet` asks it for
/// a cluster that none of its faces covers (Kannada, Gujarati and any script whose font is
/// installed but not in its own list). The one owner of fontconfig's configuration: loaded
/// once for the process, used under a lock (fontconfig's calls on one config are not all
/// safe to race), never freed.
final class FontCatalog: Sendable {
    static let shared = FontCatalog()

    /// The FcConfig, nil when fontconfig could not load one (no fallback then).
    private let config: Mutex<OpaquePointer?>

    private init() {
        config = Mutex(FcInitLoadConfigAndFonts())
    }

    /// An installed scalable font that has every one of `scalars` (`ignoring` those a font
    /// may lack and still draw the text), best first by fontconfig's order for
    /// `language`: its file and face index; nil if none has them all.
    func font(covering scalars: [Unicode.Scalar], language: String?, ignoring: (Unicode.Scalar) -> Bool) -> (path: String, index: Int)? {
        let needed = scalars.filter { !ignoring($0) }.map { FcChar32($0.value) }
        guard !needed.isEmpty else { return nil }
        return config.withLock { config -> (path: String, index: Int)? in
            guard let config, let charset = FcCharSetCreate() else { return nil }
            defer { FcCharSetDestroy(charset) }
            for value in needed { _ = FcCharSetAddChar(charset, value) }
            guard let pattern = FcPatternCreate() else { return nil }
            defer { FcPatternDestroy(pattern) }
            _ = FcPatternAddCharSet(pattern, "charset", charset)
            _ = FcPatternAddBool(pattern, "scalable", FcBool(FcTrue))
            if let language, !language.isEmpty { _ = FcPatternAddString(pattern, "lang", language) }
            guard FcConfigSubstitute(config, pattern, FcMatchPattern) != 0 else { return nil }
            FcDefaultSubstitute(pattern)
            var result = FcResultMatch
            guard let set = FcFontSort(config, pattern, FcBool(FcFalse), nil, &result) else { return nil }
            defer { FcFontSetDestroy(set) }
            // Sorted by closeness, not by coverage: the first that has every character.
            for i in 0..<Int(set.pointee.nfont) {
                guard let font = set.pointee.fonts[i] else { continue }
                var has: OpaquePointer?
                guard FcPatternGetCharSet(font, "charset", 0, &has) == FcResultMatch, let has,
                      needed.allSatisfy({ FcCharSetHasChar(has, $0) != 0 }) else { continue }
                var file: UnsafeMutablePointer<FcChar8>?
                guard FcPatternGetString(font, "file", 0, &file) == FcResultMatch, let file else { continue }
                var index: Int32 = 0
                if FcPatternGetInteger(font, "index", 0, &index) != FcResultMatch { index = 0 }
                return (String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), Int(max(0, index)))
            }
            return nil
        }
    }

    /// The installed face of `family` closest to the weight and slant asked for, as libass
    /// asks fontconfig for the face of a `\b1` or `\i1` run; nil when no face of the family
    /// is installed. It may lack the style (fontconfig then names the roman face): the
    /// caller synthesises what it lacks, as libass does.
    func font(family: String, bold: Bool, italic: Bool) -> (path: String, index: Int)? {
        config.withLock { config -> (path: String, index: Int)? in
            guard let config, let pattern = FcPatternCreate() else { return nil }
            defer { FcPatternDestroy(pattern) }
            _ = FcPatternAddString(pattern, "family", family)
            _ = FcPatternAddInteger(pattern, "weight", bold ? 200 : 80)     // FC_WEIGHT_BOLD, FC_WEIGHT_REGULAR
            _ = FcPatternAddInteger(pattern, "slant", italic ? 100 : 0)     // FC_SLANT_ITALIC, FC_SLANT_ROMAN
            _ = FcPatternAddBool(pattern, "scalable", FcBool(FcTrue))
            guard FcConfigSubstitute(config, pattern, FcMatchPattern) != 0 else { return nil }
            FcDefaultSubstitute(pattern)
            var result = FcResultMatch
            guard let match = FcFontMatch(config, pattern, &result) else { return nil }
            defer { FcPatternDestroy(match) }
            // fontconfig always answers: only a face of the family will do (its style is
            // checked by the caller from the face itself).
            var name: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(match, "family", 0, &name) == FcResultMatch, let name,
                  String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)).lowercased() == family.lowercased()
            else { return nil }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(match, "file", 0, &file) == FcResultMatch, let file else { return nil }
            var index: Int32 = 0
            if FcPatternGetInteger(match, "index", 0, &index) != FcResultMatch { index = 0 }
            return (String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self)), Int(max(0, index)))
        }
    }
}
