import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// The text engine against independent oracles: HarfBuzz's own `hb-shape` CLI for the
/// shaping, the Unicode rules' consequences (visual order, break places) for bidi and line
/// breaking, real fonts from fonts-noto-core, fonts-noto-cjk, fonts-noto-color-emoji and
/// fonts-dejavu-core.
@Suite struct TextLayoutTests {
    static let noto = "/usr/share/fonts/truetype/noto/"
    static let notoSans = noto + "NotoSans-Regular.ttf"
    static let arabic = noto + "NotoSansArabic-Regular.ttf"
    static let devanagari = noto + "NotoSansDevanagari-Regular.ttf"
    static let cjk = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
    static let emoji = noto + "NotoColorEmoji.ttf"
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// One glyph of `hb-shape --output-format=json`.
    struct ShapedGlyph: Decodable, Equatable {
        var g: UInt32
        var cl: Int
        var dx: Int
        var dy: Int
        var ax: Int
        var ay: Int
    }

    /// HarfBuzz's CLI shaping `text` in `font` at its default size (the font's units per
    /// em), glyph ids as numbers: glyphs in visual order, positions in font units.
    static func hbShape(_ text: String, font: String) throws -> [ShapedGlyph] {
        let out = try Command.runChecked("hb-shape", ["--output-format=json", "--no-glyph-names", font, text])
        return try JSONDecoder().decode([ShapedGlyph].self, from: Data(out.utf8))
    }

    /// Our layout at an em of the font's units per em: 26.6 positions ÷ 64 are then font
    /// units, the scale hb-shape reports in. Clusters converted from UTF-8 offsets to code
    /// point indices (what hb-shape prints).
    static func ours(_ text: String, font: String) throws -> [ShapedGlyph] {
        let fonts = try FontSet(paths: [font], fallbacks: [])
        let upem = Double(fonts.faces[0].unitsPerEm)
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: upem, alignment: .left)
        try #require(layout.lines.count == 1)
        var scalarIndex: [Int: Int] = [:], offset = 0
        for (i, scalar) in text.unicodeScalars.enumerated() { scalarIndex[offset] = i; offset += UTF8.width(scalar) }
        var pen = 0
        return try layout.lines[0].glyphs.map { glyph in
            defer { pen += glyph.advance }
            // Positions must be whole font units for the comparison to be exact.
            #expect(glyph.advance % 64 == 0 && (glyph.x - pen) % 64 == 0 && glyph.y % 64 == 0)
            return ShapedGlyph(g: glyph.id, cl: try #require(scalarIndex[glyph.cluster]), dx: (glyph.x - pen) / 64,
                               dy: glyph.y / 64, ax: glyph.advance / 64, ay: 0)
        }
    }

    /// Arabic joins (initial, medial, final forms; the lam-alef ligature) and Devanagari
    /// conjuncts (क्ष, त्र, स्त्र, a reordered i-matra) come out glyph for glyph as HarfBuzz's
    /// own CLI shapes them, at the same scale: ids, clusters, advances and offsets. The
    /// Arabic glyphs are in visual order (right to left) in both.
    @Test(arguments: [("مرحبا بالعالم", arabic), ("क्षत्रिय स्त्री", devanagari), ("Hello, world", dejaVu)])
    func shapingMatchesHBShape(text: String, font: String) throws {
        let started = Date()
        let oracle = try Self.hbShape(text, font: font)
        let ours = try Self.ours(text, font: font)
        print("\(text): \(ours.count) glyphs, hb-shape \(oracle.count); ours \(ours.map(\.g)), hb-shape \(oracle.map(\.g)) (\(Int(Date().timeIntervalSince(started) * 1000)) ms)")
        #expect(ours.count == oracle.count)
        #expect(ours == oracle)
        // Shaping did something: not one glyph per code point in the cmap's order.
        if font != Self.dejaVu { #expect(oracle.count != text.unicodeScalars.count || oracle.map(\.cl) != Array(0..<oracle.count)) }
    }

    /// "Hello مرحبا 123": a left-to-right paragraph (its first strong letter is Latin) with
    /// an Arabic run drawn right to left. By UAX #9 the digits after Arabic letters are
    /// Arabic numbers (rule W2: EN after AL becomes AN), the space between them takes the
    /// right-to-left direction (N1: between R and AN), so "مرحبا 123" is one run at level 1
    /// with the digits at level 2 (I2): the line reads "Hello ", then "123" left to right,
    /// the space, then the Arabic word from its last letter to its first — glyph for glyph
    /// as hb-shape shapes the word alone.
    @Test func mixedLineDrawsTheArabicRunRightToLeft() throws {
        let text = "Hello مرحبا 123"
        let fonts = try FontSet(paths: [Self.notoSans], fallbacks: [Self.arabic])
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, alignment: .left)
        try #require(layout.lines.count == 1)
        let glyphs = layout.lines[0].glyphs
        #expect(!layout.isRightToLeft)
        let utf8 = Array(text.utf8)
        let arabicStart = text.utf8.count - "مرحبا 123".utf8.count, arabicEnd = arabicStart + "مرحبا".utf8.count
        let digitsStart = text.utf8.count - 3
        let arabicGlyphs = glyphs.filter { (arabicStart..<arabicEnd).contains($0.cluster) }
        print("mixed: clusters left to right \(glyphs.map(\.cluster)), fonts \(glyphs.map(\.font))")
        // The visual order of the characters, by the rules above.
        let latin = Array(0..<arabicStart), digits = Array(digitsStart..<text.utf8.count), space = arabicEnd
        let order = glyphs.map(\.cluster)
        try #require(order.count == latin.count + digits.count + 1 + arabicGlyphs.count, "\(order)")
        #expect(Array(order.prefix(latin.count)) == latin)
        #expect(Array(order[latin.count..<(latin.count + 3)]) == digits)
        #expect(order[latin.count + 3] == space && utf8[space] == 0x20)
        #expect(zip(glyphs, glyphs.dropFirst()).allSatisfy { $0.x < $1.x }, "not placed left to right")
        #expect(arabicGlyphs.allSatisfy { $0.font == 1 } && glyphs.prefix(5).allSatisfy { $0.font == 0 })
        #expect(Array(glyphs.suffix(arabicGlyphs.count)) == arabicGlyphs, "the Arabic word is not last")
        #expect(zip(arabicGlyphs, arabicGlyphs.dropFirst()).allSatisfy { $0.cluster > $1.cluster },
                "the Arabic run is not right to left: \(arabicGlyphs.map(\.cluster))")
        let oracle = try Self.hbShape("مرحبا", font: Self.arabic)
        #expect(arabicGlyphs.map(\.id) == oracle.map(\.g), "ours \(arabicGlyphs.map(\.id)), hb-shape \(oracle.map(\.g))")

        // Between two Latin words, the Arabic word stays between them, reversed.
        let middle = try TextLayouter.layout("Hello مرحبا world", fonts: fonts, pixelSize: 40, alignment: .left)
        let clusters = middle.lines[0].glyphs.map(\.cluster)
        let arabicClusters = clusters.filter { (6..<16).contains($0) }
        #expect(Array(clusters.prefix(6)) == Array(0..<6) && Array(clusters.suffix(6)) == Array(16..<22), "\(clusters)")
        #expect(arabicClusters == arabicClusters.sorted(by: >), "\(clusters)")

        // An Arabic first: the paragraph is right to left, the Latin word on the left.
        let rtl = try TextLayouter.layout("مرحبا Hello", fonts: fonts, pixelSize: 40, alignment: .right)
        #expect(rtl.isRightToLeft)
        let first = try #require(rtl.lines.first?.glyphs.first)
        #expect(first.font == 0 && first.cluster == "مرحبا ".utf8.count, "leftmost glyph \(first)")
    }

    /// Latin, Arabic, Devanagari, CJK and an emoji in one line find five fonts — the chosen
    /// NotoSans, then the fallbacks — and no .notdef glyph; the emoji is drawn in colour.
    @Test func fallbackFindsAFontForEveryScript() throws {
        let text = "Hi مرحبا नमस्ते 漢字 😀"
        let fonts = try FontSet(paths: [Self.notoSans])
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: 48, alignment: .left)
        let glyphs = layout.lines.flatMap(\.glyphs)
        let used = Set(glyphs.map(\.font)).map { fonts.faces[$0].path }.sorted()
        print("fallback: \(glyphs.count) glyphs in \(used.map { ($0 as NSString).lastPathComponent })")
        #expect(Set(used) == [Self.notoSans, Self.arabic, Self.devanagari, Self.cjk, Self.emoji])
        #expect(!glyphs.contains { $0.id == 0 }, "a .notdef glyph: \(glyphs.filter { $0.id == 0 })")
        func fontOf(_ substring: String) -> String? {
            let start = text.utf8.count - text[text.range(of: substring)!.lowerBound...].utf8.count
            return glyphs.first { $0.cluster == start }.map { fonts.faces[$0.font].path }
        }
        #expect(fontOf("漢") == Self.cjk && fontOf("😀") == Self.emoji && fontOf("न") == Self.devanagari)

        let started = Date()
        let mask = try TextRasterizer.rasterize(layout, fonts: fonts, limit: PixelSize(width: 4000, height: 400))
        print("fallback: rasterised \(mask.width)x\(mask.height) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        let colour = try #require(mask.color, "no colour layer")
        // The grinning face is yellow: red and green well above blue, opaque.
        var yellow = 0
        for i in stride(from: 0, to: colour.count, by: 4) where colour[i + 3] > 200 {
            if Int(colour[i]) > Int(colour[i + 2]) + 100 && Int(colour[i + 1]) > Int(colour[i + 2]) + 60 { yellow += 1 }
        }
        #expect(yellow > 100, "only \(yellow) yellow pixels")
        // The emoji is set at the em: about 48 px across, not the font's 109 px strike.
        let emojiGlyph = try #require(glyphs.last)
        #expect(emojiGlyph.advance >= 40 * 64 && emojiGlyph.advance <= 70 * 64, "emoji advance \(emojiGlyph.advance / 64) px")
        // Grey text ink too (the scripts in their fonts).
        #expect(mask.coverage.filter { $0 > 128 }.count > 500)
    }

    /// Scripts whose fonts are installed but in no list of dropcut's — Kannada, Gujarati,
    /// Sinhala, Khmer — are found by fontconfig: each in a font of its script, no .notdef
    /// glyph, ink drawn (libass draws them; dropcut drew boxes).
    @Test(arguments: [("ಕನ್ನಡ ಭಾಷೆ", "Kannada"), ("ગુજરાતી ભાષા", "Gujarati"), ("සිංහල", "Sinhala"), ("ភាសាខ្មែរ", "Khmer")])
    func fontconfigFindsAnInstalledFontForAnyScript(text: String, script: String) throws {
        let fonts = try FontSet(paths: [Self.notoSans])
        #expect(!fonts.faces.contains { $0.path.contains(script) }, "\(script) is in the fixed list already: the test proves nothing")
        let layout = try TextLayouter.layout("Hi " + text, fonts: fonts, pixelSize: 48, alignment: .left)
        let glyphs = layout.lines.flatMap(\.glyphs)
        #expect(!glyphs.contains { $0.id == 0 }, "a .notdef glyph in \(script)")
        let used = Set(glyphs.map { fonts.faces[$0.font].path })
        #expect(used.contains { ($0 as NSString).lastPathComponent.contains(script) }, "\(script) set in \(used)")
        let mask = try TextRasterizer.rasterize(layout, fonts: fonts, limit: PixelSize(width: 4000, height: 400))
        #expect(mask.coverage.filter { $0 > 128 }.count > 300)
    }

    /// Captions in the scripts libass draws and dropcut once drew as boxes — Kannada,
    /// Gujarati, Tamil, Bengali, Sinhala, Khmer, Myanmar, Ethiopic, Georgian — set in the
    /// captions' default font: every glyph is a real one (no .notdef), and the glyph ids are
    /// those HarfBuzz's own `hb-shape` gives for the font the cluster was set in, which is
    /// of the family fontconfig names for those characters.
    @Test(arguments: [("ಕನ್ನಡ", "Kannada"), ("ગુજરાતી", "Gujarati"), ("தமிழ்", "Tamil"), ("বাংলা", "Bengali"), ("සිංහල", "Sinhala"),
                      ("ភាសាខ្មែរ", "Khmer"), ("မြန်မာ", "Myanmar"), ("ኢትዮጵያ", "Ethiopic"), ("ქართული", "Georgian")])
    func everyScriptIsDrawnWithItsOwnGlyphs(word: String, script: String) throws {
        let fonts = try FontSet(paths: ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"], hinted: false)
        let layout = try TextLayouter.layout(word, fonts: fonts, pixelSize: 48, alignment: .left)
        let glyphs = layout.lines.flatMap(\.glyphs)
        #expect(!glyphs.isEmpty && !glyphs.contains { $0.id == 0 }, "a .notdef glyph in \(script)")
        let used = Set(glyphs.map(\.font))
        try #require(used.count == 1, "\(script) set in \(used.count) fonts")
        // (DejaVu Sans has Georgian itself: then it is the font.)
        let face = fonts.faces[used.first!]
        let picked = try #require(FontCatalog.shared.font(covering: Array(word.unicodeScalars), language: nil, ignoring: FontSet.isIgnorable))
        let pickedFamily = try FontFace(path: picked.path, index: picked.index).familyName
        #expect(face.familyName == pickedFamily, "\(script): \(face.familyName ?? "?") where fontconfig names \(pickedFamily ?? "?")")
        // HarfBuzz's CLI on the same font file: the same glyphs (in visual order).
        let shaped = try Command.runChecked("hb-shape", ["--no-glyph-names", "--no-positions", "--no-clusters", "--face-index=\(face.index)", face.path, word])
        let ids = shaped.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            .split(separator: "|").compactMap { UInt32($0) }
        #expect(!ids.isEmpty && ids == glyphs.map(\.id), "\(script): hb-shape \(ids), dropcut \(glyphs.map(\.id))")
    }

    /// A long sentence at a max width breaks only at spaces, every line within the width,
    /// every word whole; a word wider than the line is broken between letters rather than
    /// overflowing.
    @Test func latinBreaksAtSpacesWithinTheWidth() throws {
        let text = "The quick brown fox jumps over the lazy dog and keeps running far away from here"
        let fonts = try FontSet(paths: [Self.dejaVu], fallbacks: [])
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, maxWidth: 300, alignment: .left)
        let lines = layout.lines.map { String(decoding: Array(text.utf8)[$0.textRange], as: UTF8.self) }
        print("latin lines: \(lines.map { "\($0)" }) widths \(layout.lines.map { $0.width / 64 })")
        #expect(layout.lines.count >= 4)
        #expect(layout.lines.allSatisfy { $0.width <= 300 * 64 })
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix(" ") }, "a line broken inside a word")
        #expect(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") == text)
        // Greedy: with the next line's first word, a line would not have fitted.
        for (line, next) in zip(lines, lines.dropFirst()) {
            let longer = line + (next.split(separator: " ").first.map(String.init) ?? "")
            let unbroken = try TextLayouter.layout(longer, fonts: fonts, pixelSize: 40, alignment: .left)
            #expect(unbroken.lines[0].width > 300 * 64, "\"\(line)\" could have taken the next word")
        }

        // A line separator (U+2028) ends a line as a newline does, wrapping or not.
        let separated = try TextLayouter.layout("one\u{2028}two", fonts: fonts, pixelSize: 40, alignment: .left)
        #expect(separated.lines.count == 2 && separated.lines.allSatisfy { $0.glyphs.count == 3 })

        let long = try TextLayouter.layout("Supercalifragilisticexpialidocious", fonts: fonts, pixelSize: 40, maxWidth: 150, alignment: .left)
        #expect(long.lines.count >= 3 && long.lines.allSatisfy { $0.width <= 150 * 64 && !$0.glyphs.isEmpty })
    }

    /// Balanced wrapping (captions; libass's `WrapStyle: 0`), checked by its defining
    /// property rather than by running the same rule: as many lines as greedy filling
    /// makes, each within the width, every word kept in order, and at the end no line's
    /// last word could move to the start of the next line and bring the two widths closer
    /// (each width measured by setting the line's words alone). A newline the text has is
    /// never crossed: "a long first line…\nend" keeps its short second line.
    @Test func balancedWrappingEvensOutTheLines() throws {
        let fonts = try FontSet(paths: [Self.dejaVu], fallbacks: [])
        func width(_ words: [Substring]) throws -> Int {
            try TextLayouter.layout(words.joined(separator: " "), fonts: fonts, pixelSize: 40, alignment: .left).lines[0].width
        }
        let texts = [
            "The quick brown fox jumps over the lazy dog and keeps running far away from here",
            "Never drink liquid nitrogen, it will perforate your stomach",
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen",
            "Captions that balance their lines look calmer on a small phone screen at night",
        ]
        var changed = 0
        for text in texts {
            for maxWidth in [300, 420, 640] {
                let greedy = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, maxWidth: maxWidth, alignment: .left)
                let balanced = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, maxWidth: maxWidth, wrap: .balanced, alignment: .left)
                let lines = balanced.lines.map { String(decoding: Array(text.utf8)[$0.textRange], as: UTF8.self).split(separator: " ") }
                let greedyLines = greedy.lines.map { String(decoding: Array(text.utf8)[$0.textRange], as: UTF8.self).split(separator: " ") }
                print("\(maxWidth) px: greedy \(greedyLines.map(\.count)) words \(greedy.lines.map { $0.width / 64 }) px, balanced \(lines.map(\.count)) words \(balanced.lines.map { $0.width / 64 }) px")
                if lines != greedyLines { changed += 1 }
                #expect(balanced.lines.count == greedy.lines.count)
                #expect(balanced.lines.allSatisfy { $0.width <= maxWidth * 64 })
                #expect(lines.flatMap { $0 } == text.split(separator: " "))
                for (line, next) in zip(lines, lines.dropFirst()) where line.count > 1 {
                    let before = abs(try width(line) - width(next))
                    let after = abs(try width(Array(line.dropLast())) - width([line.last!] + next))
                    #expect(after >= before, "moving \"\(line.last!)\" down would even out \(line) and \(next)")
                }
            }
        }
        #expect(changed >= 4, "balancing changed the greedy lines of only \(changed) of 12 cases")
        // A word wider than the line is broken inside it; those breaks are not balanced
        // (libass never makes them: they are not where a word ends).
        let long = try TextLayouter.layout("Supercalifragilisticexpialidocious", fonts: fonts, pixelSize: 40, maxWidth: 150,
                                           wrap: .balanced, alignment: .left)
        let greedyLong = try TextLayouter.layout("Supercalifragilisticexpialidocious", fonts: fonts, pixelSize: 40, maxWidth: 150, alignment: .left)
        #expect(long.lines.map(\.textRange) == greedyLong.lines.map(\.textRange))

        let authored = "A first line long enough to need more than one line\nend"
        let set = try TextLayouter.layout(authored, fonts: fonts, pixelSize: 40, maxWidth: 600, wrap: .balanced, alignment: .left)
        let setLines = set.lines.map { String(decoding: Array(authored.utf8)[$0.textRange], as: UTF8.self) }
        print("authored: \(setLines)")
        #expect(setLines.last == "end")
        #expect(setLines.count == 3)
    }

    /// Emoji sequences of every kind — flags (two regional indicators; libunibreak 1.1
    /// aborted the process on them), tag sequences, keycaps, ZWJ sequences, skin-tone
    /// modifiers — are never broken inside; a break is allowed at the spaces around them,
    /// a newline is a mandatory break, and a line of them wraps within the width.
    @Test func emojiSequencesAreNeverBrokenInside() throws {
        let sequences = ["🇯🇵", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "1\u{FE0F}\u{20E3}",
                         "👩\u{200D}👩\u{200D}👧\u{200D}👦", "👋🏽", "🏳\u{FE0F}\u{200D}🌈"]
        for sequence in sequences {
            let text = "Greetings from \(sequence) and\nmore"
            let scalars = text.unicodeScalars.map(\.value)
            let kinds = LineBreakOpportunities.after(scalars)
            #expect(kinds.count == scalars.count)
            let start = 15   // after "Greetings from "
            let inside = start..<(start + sequence.unicodeScalars.count - 1)
            #expect(inside.allSatisfy { kinds[$0] == .none }, "\(sequence.unicodeScalars.map { String($0.value, radix: 16) }): \(kinds[inside])")
            // After "Greetings " and after "from ", and the newline must break.
            #expect(kinds[9] == .allowed && kinds[14] == .allowed, "\(kinds)")
            let newline = scalars.firstIndex(of: 10)!
            #expect(kinds[newline] == .must && kinds.last == .must)
        }
        // Laid out, wrapped in a narrow width: no crash, every sequence whole on one line.
        let text = sequences.joined(separator: " ") + " 🇯🇵🇫🇷🇩🇪🇺🇸🇬🇧"
        let fonts = try FontSet(paths: [Self.dejaVu], fallbacks: [Self.emoji])
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, maxWidth: 200, alignment: .left)
        let lines = layout.lines.map { String(decoding: Array(text.utf8)[$0.textRange], as: UTF8.self) }
        #expect(layout.lines.count >= 2, "\(lines)")
        for sequence in sequences.dropFirst() { #expect(lines.contains { $0.contains(sequence) }, "\(sequence) split: \(lines)") }
        // Flags are broken between, never inside (UAX #14 LB30a).
        #expect(lines.allSatisfy { $0.unicodeScalars.filter { (0x1F1E6...0x1F1FF).contains($0.value) }.count % 2 == 0 }, "\(lines)")
    }

    /// Japanese has no spaces: lines break between ideographs (and kana), never before
    /// the full stop "。" (UAX #14 keeps closing punctuation on its line), within the width.
    @Test func cjkBreaksBetweenIdeographs() throws {
        let text = "日本語の文章を改行するテストです。漢字と仮名が並びます。"
        let fonts = try FontSet(paths: [Self.cjk], fallbacks: [])
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: 40, maxWidth: 220, alignment: .left)
        let utf8 = Array(text.utf8)
        let lines = layout.lines.map { String(decoding: utf8[$0.textRange], as: UTF8.self) }
        print("cjk lines: \(lines) widths \(layout.lines.map { $0.width / 64 })")
        #expect(layout.lines.count >= 5)
        #expect(layout.lines.allSatisfy { $0.width <= 220 * 64 })
        #expect(lines.joined() == text)
        #expect(!lines.contains { $0.hasPrefix("。") })
        // Full lines: 5 ideographs of 40 px fit in 220, 6 do not.
        #expect(lines.dropLast().allSatisfy { (4...6).contains($0.count) }, "\(lines.map(\.count))")
    }

    /// Han characters take the forms of the captions' language: the face of Noto Sans CJK
    /// for it, checked against `hb-shape --face-index` on the same collection ("直" and "骨"
    /// are drawn differently in Japanese, Simplified and Traditional Chinese and Hong Kong).
    @Test(arguments: [("ja", 0), ("ko", 1), ("zh-Hans", 2), ("zh", 2), ("zh-CN", 2), ("zh-Hant", 3), ("zh-TW", 3), ("zh-HK", 4), (nil, 0)] as [(String?, Int)])
    func hanCharactersTakeTheFormsOfTheLanguage(language: String?, face: Int) throws {
        #expect(FontSet.cjkFace(for: language) == face)
        let out = try Command.runChecked("hb-shape", ["--output-format=json", "--no-glyph-names", "--face-index=\(face)", Self.cjk, "直骨"])
        let expected = try JSONDecoder().decode([ShapedGlyph].self, from: Data(out.utf8)).map(\.g)
        let fonts = try FontSet(paths: [Self.notoSans], language: language)
        let layout = try TextLayouter.layout("直骨", fonts: fonts, pixelSize: 48, alignment: .left)
        let glyphs = layout.lines.flatMap(\.glyphs)
        #expect(glyphs.map(\.id) == expected, "\(language ?? "nil"): face \(face)")
        #expect(glyphs.allSatisfy { fonts.faces[$0.font].path == FontSet.cjkCollection })
    }

    @Test func theLanguagesChooseDifferentGlyphs() throws {
        func ids(_ language: String) throws -> [UInt32] {
            let fonts = try FontSet(paths: [Self.notoSans], language: language)
            return try TextLayouter.layout("直骨", fonts: fonts, pixelSize: 48, alignment: .left).lines.flatMap(\.glyphs).map(\.id)
        }
        let japanese = try ids("ja"), simplified = try ids("zh-Hans"), traditional = try ids("zh-Hant")
        #expect(japanese != simplified && simplified != traditional && japanese != traditional)
    }
}
