import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// The whole text path — line breaking (ICU), bidi (FriBidi), shaping (HarfBuzz), font
/// fallback and rasterising — on random Unicode built from every script the fonts cover,
/// controls, bidi overrides, combining marks and every kind of emoji sequence, whole and
/// broken (lone regional indicators, stray ZWJs, tags without a base, modifiers alone).
/// No trap, whatever the text: a flag once aborted the render (libunibreak 1.1).
@Suite struct TextPathFuzzTests {
    /// Pieces a text is built from, each a run of scalars.
    static let pieces: [[UInt32]] = {
        func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }
        return [
            scalars("Greetings "), scalars("from "), scalars(" "), scalars("\n"), scalars("\u{2028}"), scalars("\t"),
            scalars("مرحبا بالعالم"), scalars("שלום"), scalars("क्षत्रिय"), scalars("สวัสดีครับ"), scalars("日本語の文章。"), scalars("한국어"),
            scalars("🇯🇵"), scalars("🇫🇷🇩🇪"), [0x1F1EF], [0x1F1F5],                                // flags and lone indicators
            scalars("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"), [0xE0067, 0xE007F],  // tag sequence, tags alone
            scalars("1\u{FE0F}\u{20E3}"), [0x20E3], [0xFE0F],                                      // keycap, its parts alone
            scalars("👩\u{200D}👩\u{200D}👧"), [0x200D], [0x200D, 0x200D],                          // ZWJ sequence, stray ZWJs
            scalars("👋🏽"), [0x1F3FD],                                                             // modifier, and alone
            [0x202E], [0x202C], [0x2067], [0x2069], [0x200F], [0x061C],                           // bidi controls
            [0x0301], [0x0301, 0x0308, 0x0327], [0x00AD], [0x200B], [0xFEFF], [0x2060],            // marks, soft hyphen, zero widths
            [0x0000], [0x0007], [0x001B], [0x007F], [0x0085], [0xFFFD], [0xFFFF], [0x10FFFF], [0xE000],
        ]
    }()

    static func fonts() throws -> FontSet {
        let noto = "/usr/share/fonts/truetype/noto/"
        let fallbacks = ["NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf", "NotoSansDevanagari-Regular.ttf",
                         "NotoSansThai-Regular.ttf", "NotoColorEmoji.ttf"].map { noto + $0 }
            .filter { FileManager.default.fileExists(atPath: $0) }
        return try FontSet(paths: [noto + "NotoSans-Regular.ttf"],
                           fallbacks: fallbacks + ["/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"])
    }

    @Test func randomTextNeverTraps() throws {
        let fonts = try Self.fonts()
        var random = SplitMix64(state: 46)
        let limit = PixelSize(width: 4096, height: 4096)
        var laidOut = 0
        for _ in 0..<400 {
            var scalars: [UInt32] = []
            for _ in 0..<Int(random.next() % 12 + 1) {
                if random.next() % 5 == 0 {
                    scalars.append(UInt32(random.next() % 0x110000))   // any code point, surrogates too
                } else {
                    scalars += Self.pieces[Int(random.next() % UInt64(Self.pieces.count))]
                }
            }
            let kinds = LineBreakOpportunities.after(scalars)
            #expect(kinds.count == scalars.count && kinds.last == .must)
            let text = String(String.UnicodeScalarView(scalars.map { Unicode.Scalar($0) ?? "\u{FFFD}" }))
            let width = Int(random.next() % 600) + 20
            // Markup over random spans (bold, italic, underline, colours, boxes; spans may
            // start inside a cluster), wrapped either way.
            let utf8Count = text.utf8.count
            var spans: [CaptionStyledSpan] = []
            var at = 0
            while at < utf8Count, random.next() % 3 != 0 {
                let start = at + Int(random.next() % UInt64(utf8Count - at))
                let end = min(utf8Count, start + 1 + Int(random.next() % 12))
                let bits = random.next()
                spans.append(CaptionStyledSpan(textRange: start..<end, style: CaptionTextStyle(
                    bold: bits & 1 != 0, italic: bits & 2 != 0, underline: bits & 4 != 0,
                    color: bits & 8 != 0 ? Color(red: 1, green: 0, blue: 0) : nil, background: bits & 16 != 0 ? .white : nil)))
                at = end
            }
            let markup = CaptionMarkup(spans: spans)
            guard let layout = try? TextLayouter.layout(text, fonts: fonts, pixelSize: Double(random.next() % 60 + 8),
                                                        maxWidth: width, wrap: random.next() % 2 == 0 ? .greedy : .balanced,
                                                        alignment: .center, emphasis: markup.emphasis) else { continue }
            laidOut += 1
            // Every line holds a range of the text, in order, none past its end.
            let utf8 = text.utf8.count
            #expect(layout.lines.allSatisfy { $0.textRange.upperBound <= utf8 })
            #expect(layout.lines.flatMap(\.glyphs).allSatisfy { $0.font < fonts.faces.count })
            if let mask = try? TextRasterizer.rasterize(layout, fonts: fonts, paint: markup.paint, limit: limit) {
                #expect(mask.layers.allSatisfy { $0.count == mask.width * mask.height })
                #expect(mask.spanBoxes.allSatisfy { $0.rect.x >= 0 && $0.rect.maxX <= mask.width && $0.rect.y >= 0 && $0.rect.maxY <= mask.height })
            }
        }
        #expect(laidOut > 300, "only \(laidOut) of 400 texts were laid out")
    }
}
