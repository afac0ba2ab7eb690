import Foundation
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// Cue markup drawn as libass draws the same cue (through the ffmpeg CLI's `ass` filter,
/// as `CaptionLibassReferenceTests` sets it up): `<b>`, `<i>`, `<u>` and `<font color>`
/// against `{\b1}`, `{\i1}`, `{\u1}` and `{\c&H0000FF&}` on a cue in DejaVu Sans, whose
/// family has real bold and oblique faces (both renderers find them through fontconfig;
/// libass's `fontsdir` holds all four). Each test also checks the plain cue differs, so a
/// style that was not drawn fails.
@Suite(.serialized) struct CaptionStylingReferenceTests {
    typealias Reference = CaptionLibassReferenceTests

    static let text = "Never drink liquid nitrogen"
    static let regular = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let family = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"]
        .map { "/usr/share/fonts/truetype/dejavu/" + $0 }

    static func whole(_ style: CaptionTextStyle) -> [CaptionStyledSpan] {
        [CaptionStyledSpan(textRange: 0..<text.utf8.count, style: style)]
    }

    static func dropcut(_ styles: [CaptionStyledSpan] = []) throws -> [[UInt8]] {
        try Reference.dropcutPlanes(text, styles: styles, font: regular)
    }

    static func libass(_ tags: String = "") throws -> [[UInt8]] {
        let fontSize = try Reference.assFontSize(em: Reference.textSize * Double(Reference.size.height), font: regular)
        return try Reference.libassPlanes(dialogues: [tags + text], fonts: family, family: "DejaVu Sans", bold: false, fontSize: fontSize).planes
    }

    /// The ink box of the cue's one line.
    static func box(_ luma: [UInt8]) throws -> Reference.Box {
        let lines = Reference.lines(luma, wordGap: 8)
        try #require(lines.count == 1, "\(lines.count) lines")
        return lines[0].box
    }

    static func width(_ luma: [UInt8]) throws -> Int {
        let box = try box(luma)
        return box.right - box.left + 1
    }

    @Test func boldIsDrawnInTheBoldFaceAsLibassDrawsIt() throws {
        let plain = try Self.width(Self.dropcut()[0]), bold = try Self.width(Self.dropcut(Self.whole(CaptionTextStyle(bold: true)))[0])
        let libassPlain = try Self.width(Self.libass()[0]), libassBold = try Self.width(Self.libass("{\\b1}")[0])
        print("bold: dropcut \(plain) -> \(bold) px, libass \(libassPlain) -> \(libassBold) px")
        #expect(bold - plain > 20, "bold drawn as plain")
        #expect(abs(bold - libassBold) <= 3)
        #expect(abs(plain - libassPlain) <= 3)
    }

    /// How far the ink leans: the mean column of the ink in the top third of the line
    /// less that of the bottom third (italic leans right: positive).
    static func lean(_ luma: [UInt8]) throws -> Double {
        let box = try box(luma)
        let third = (box.bottom - box.top + 1) / 3
        func meanColumn(_ rows: ClosedRange<Int>) -> Double {
            var sum = 0.0, count = 0.0
            for row in rows {
                for x in box.left...box.right where luma[row * Reference.size.width + x] >= Reference.inkThreshold {
                    sum += Double(x)
                    count += 1
                }
            }
            return count > 0 ? sum / count : 0
        }
        return meanColumn(box.top...(box.top + third)) - meanColumn((box.bottom - third)...box.bottom)
    }

    @Test func italicLeansAsLibassDrawsIt() throws {
        let plain = try Self.lean(Self.dropcut()[0]), italic = try Self.lean(Self.dropcut(Self.whole(CaptionTextStyle(italic: true)))[0])
        let libassPlain = try Self.lean(Self.libass()[0]), libassItalic = try Self.lean(Self.libass("{\\i1}")[0])
        print(String(format: "italic lean: dropcut %.2f -> %.2f px, libass %.2f -> %.2f px", plain, italic, libassPlain, libassItalic))
        // The lean the slant adds (the letters' own shapes lean too, alike in both).
        #expect(italic - plain > 2, "italic drawn upright")
        #expect(abs((italic - plain) - (libassItalic - libassPlain)) <= 1)
        let width = try Self.width(Self.dropcut(Self.whole(CaptionTextStyle(italic: true)))[0])
        #expect(try abs(width - Self.width(Self.libass("{\\i1}")[0])) <= 3)
    }

    /// The rows under the text that are ink across most of its width: the underline.
    static func underlineRows(_ luma: [UInt8]) throws -> [Int] {
        let box = try box(luma)
        let span = box.right - box.left + 1
        return (box.top...box.bottom).filter { row in
            let inked = (box.left...box.right).filter { luma[row * Reference.size.width + $0] >= Reference.inkThreshold }.count
            return Double(inked) >= 0.8 * Double(span)
        }
    }

    @Test func underlineSitsWhereLibassDrawsIt() throws {
        #expect(try Self.underlineRows(Self.dropcut()[0]).isEmpty)
        let rows = try Self.underlineRows(Self.dropcut(Self.whole(CaptionTextStyle(underline: true)))[0])
        let libassRows = try Self.underlineRows(Self.libass("{\\u1}")[0])
        print("underline rows: dropcut \(rows), libass \(libassRows)")
        let first = try #require(rows.first), libassFirst = try #require(libassRows.first)
        #expect(abs(first - libassFirst) <= 2)
        #expect(abs(rows.count - libassRows.count) <= 1)
    }

    /// Chroma samples of red text (BT.709 limited: Cr 240 for pure red, 128 for white).
    static func redSamples(_ planes: [[UInt8]]) -> (count: Int, left: Int, right: Int) {
        let columns = Reference.size.width / 2
        var count = 0, left = Int.max, right = Int.min
        for (i, value) in planes[2].enumerated() where value >= 190 {
            count += 1
            left = min(left, i % columns)
            right = max(right, i % columns)
        }
        return (count, left, right)
    }

    @Test func aFontColourIsDrawnAsLibassDrawsIt() throws {
        #expect(Self.redSamples(try Self.dropcut()).count == 0)
        let red = Self.redSamples(try Self.dropcut(Self.whole(CaptionTextStyle(color: Color(red: 1, green: 0, blue: 0)))))
        let libassRed = Self.redSamples(try Self.libass("{\\c&H0000FF&}"))
        print("red chroma samples: dropcut \(red), libass \(libassRed)")
        #expect(red.count > 200)
        #expect(abs(Double(red.count - libassRed.count)) <= 0.25 * Double(libassRed.count))
        #expect(abs(red.left - libassRed.left) <= 2 && abs(red.right - libassRed.right) <= 2)
    }

    /// WebVTT's `bg_` classes: a box of the colour behind the span's text, and only there.
    @Test func aBackgroundClassBoxesItsSpan() throws {
        let word = "drink"
        let start = Self.text.utf8.count - Self.text[Self.text.range(of: word)!.lowerBound...].utf8.count
        let yellow = Color(red: 1, green: 1, blue: 0)
        let planes = try Self.dropcut([CaptionStyledSpan(textRange: start..<(start + word.utf8.count), style: CaptionTextStyle(background: yellow))])
        // Yellow in BT.709 limited range: Cb well under 128.
        let columns = Reference.size.width / 2
        let boxed = planes[1].enumerated().filter { $0.element < 60 }.map { $0.offset % columns }
        let box = try Self.box(Self.dropcut()[0])
        let plainWidth = box.right - box.left + 1
        try #require(!boxed.isEmpty, "no yellow box")
        let boxWidth = 2 * (boxed.max()! - boxed.min()! + 1)
        // About the word's width: more than a sixth of the line, less than a third.
        #expect(boxWidth > plainWidth / 6 && boxWidth < plainWidth / 3, "box \(boxWidth) px of a \(plainWidth) px line")
    }

    /// A family without the face asked for is drawn synthesised (FreeType's oblique and
    /// emboldening, as libass does); a family with it uses it.
    @Test func bothStylesComeFromTheFamilyOrAreSynthesised() throws {
        let dejaVu = try FontSet(paths: [Self.regular], fallbacks: [], hinted: false)
        // (The index first: `variant` adds the face to `faces`.)
        let obliqueIndex = dejaVu.variant(of: 0, bold: false, italic: true)
        let oblique = dejaVu.faces[obliqueIndex]
        #expect(oblique.path.hasSuffix("DejaVuSans-Oblique.ttf") && !oblique.slants)
        let boldObliqueIndex = dejaVu.variant(of: 0, bold: true, italic: true)
        let boldOblique = dejaVu.faces[boldObliqueIndex]
        #expect(boldOblique.path.hasSuffix("DejaVuSans-BoldOblique.ttf") && !boldOblique.emboldens)
        #expect(dejaVu.variant(of: 0, bold: false, italic: false) == 0)
        let arabic = try FontSet(paths: [Reference.notoArabic], fallbacks: [], hinted: false)
        let slantedIndex = arabic.variant(of: 0, bold: false, italic: true)
        let slanted = arabic.faces[slantedIndex]
        #expect(slanted.path == Reference.notoArabic && slanted.slants && slanted.isItalic)
        // The synthesised face draws slanted: the same glyphs, sheared.
        let arabicText = "مرحبا بالعالم"
        func mask(italic: Bool) throws -> TextRasterizer.Mask {
            let layout = try TextLayouter.layout(arabicText, fonts: arabic, pixelSize: 36, alignment: .left,
                                                 emphasis: italic ? { _ in (false, true) } : nil)
            #expect(layout.lines.flatMap(\.glyphs).allSatisfy { ($0.font == slantedIndex) == italic })
            return try TextRasterizer.rasterize(layout, fonts: arabic, limit: PixelSize(width: 4096, height: 4096))
        }
        let upright = try mask(italic: false), sheared = try mask(italic: true)
        #expect(sheared.coverage != upright.coverage)
        #expect(sheared.width > upright.width, "a shear widens the ink: \(upright.width) -> \(sheared.width)")
    }
}
