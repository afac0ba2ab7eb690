import Testing
import CDropcutFreeType

/// FreeType links and renders: a glyph from DejaVu Sans becomes a bitmap with ink.
@Suite struct FreeTypeLinkTests {
    static let fontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    @Test func rendersTheLetterAFromDejaVuSans() throws {
        var library: FT_Library?
        try #require(FT_Init_FreeType(&library) == 0)
        defer { FT_Done_FreeType(library) }

        var face: FT_Face?
        try #require(FT_New_Face(library, Self.fontPath, 0, &face) == 0, "FT_New_Face \(Self.fontPath)")
        defer { FT_Done_Face(face) }
        let loaded = try #require(face)
        #expect(String(cString: loaded.pointee.family_name) == "DejaVu Sans")

        try #require(FT_Set_Pixel_Sizes(loaded, 0, 32) == 0)
        // FT_LOAD_RENDER is `( 1L << 2 )`; Swift imports it as an Int constant.
        try #require(FT_Load_Char(loaded, FT_ULong(UInt8(ascii: "A")), FT_Int32(FT_LOAD_RENDER)) == 0)

        let bitmap = loaded.pointee.glyph.pointee.bitmap
        #expect(bitmap.width > 0)
        #expect(bitmap.rows > 0)
        #expect(bitmap.rows <= 32 + 8)  // about the requested pixel size
        #expect(bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue))
        let buffer = try #require(bitmap.buffer)
        var inked = 0
        for row in 0..<Int(bitmap.rows) {
            for column in 0..<Int(bitmap.width) where buffer[row * Int(bitmap.pitch) + column] != 0 {
                inked += 1
            }
        }
        #expect(inked > 0)
        #expect(inked < Int(bitmap.width) * Int(bitmap.rows))  // a letter, not a filled box
    }
}
