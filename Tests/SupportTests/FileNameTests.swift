import DropcutSupport
import Testing

@Suite struct FileNameTests {
    @Test func namesAreCutOnCharactersToFitNameMax() {
        let long = String(repeating: "é", count: 125) + "x.mp4"   // 255 bytes
        #expect(FileName.fitting(long) == long)
        let longer = String(repeating: "é", count: 125) + ".dropcut.mp4"   // 262 bytes
        let fitted = FileName.fitting(longer)
        #expect(fitted.utf8.count <= 255 && fitted.hasSuffix(".dropcut.mp4") == false && fitted.hasSuffix(".mp4"))
        #expect(fitted.utf8.count == 255)
        // 2-byte characters with 251 bytes free: 125 of them, never half a character.
        #expect(FileName.fitting(String(repeating: "é", count: 200), suffix: ".mp4").utf8.count == 254)
        #expect(FileName.fitting(String(repeating: "a", count: 300)).utf8.count == 255)
        #expect(FileName.fitting(String(repeating: "🎬", count: 70), suffix: ".error.txt").hasSuffix("🎬.error.txt"))
        #expect(FileName.fitting(String(repeating: "🎬", count: 70), suffix: ".error.txt").utf8.count <= 255)
        #expect(FileName.truncated("abc", toBytes: 0) == "")
    }
}
