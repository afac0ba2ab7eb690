internal import CFreeType

/// One font file opened with FreeType: owns an `FT_Library` and the `FT_Face`, both freed
/// in `deinit`.
final class FontFace {
    let path: String
    let face: FT_Face
    private var library: FT_Library?

    /// Why a font could not be used.
    struct LoadError: Error, Sendable, Hashable, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "\(path): cannot open the font (FreeType error \(code))" }
    }

    init(path: String) throws(LoadError) {
        self.path = path
        var library: FT_Library?
        let initResult = FT_Init_FreeType(&library)
        guard initResult == 0, let library else { throw LoadError(path: path, code: initResult) }
        var face: FT_Face?
        let result = FT_New_Face(library, path, 0, &face)
        guard result == 0, let face else {
            FT_Done_FreeType(library)
            throw LoadError(path: path, code: result)
        }
        self.library = library
        self.face = face
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }
}
