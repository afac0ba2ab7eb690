import Foundation
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// Captions checked against an independent renderer: libass, through the ffmpeg CLI's
/// `ass` filter, setting the same cue in the same font file on a black 1280x720
/// frame. White text, no outline, shadow or box, at the bottom of a fixed safe area; the
/// ASS script is written to ask libass for exactly what dropcut's style asks for:
///
/// - `PlayResX`/`PlayResY` = the frame, so script pixels are frame pixels.
/// - `MarginL`/`MarginR`/`MarginV` = the safe area's left, right and bottom insets;
///   `Alignment 2` (bottom centre): libass centres each line between the side margins and
///   puts the block's bottom at `MarginV` above the frame's bottom, as dropcut centres in
///   the safe width and stands the block on the safe bottom.
/// - `WrapStyle 0`, libass's default (what players use): greedy filling, then each line's
///   last word moved to the next line while that brings the two widths closer — dropcut's
///   captions wrap the same way (`TextLayouter.Wrap.balanced`). The wrap width is the
///   same: the frame less the side margins. Debian's libass 0.17.1 is built without
///   libunibreak, so it breaks lines only at spaces (U+0020): CJK text without spaces is
///   not wrapped at all (it runs off the frame), where dropcut breaks between any two
///   ideographs as Unicode allows. The CJK cues are written as Chinese and Japanese
///   subtitles often are, phrases of about equal length separated by spaces, where the
///   two agree.
/// - `Kerning: yes`: the font's kerning, as HarfBuzz applies by default and dropcut sets
///   text. libass leaves kerning off unless the script asks (VSFilter's default), and
///   only the `ass` filter passes that header through: the `subtitles` filter rebuilds the
///   script header through ffmpeg's ASS decoder, and libass then drops the font's kerning
///   (the `a`–`y` of "plays": 1.1 px). Measured on 18 × "AV": 500 px wide with `subtitles`
///   either way, 499 with `ass` and `Kerning: no`, 458 with `ass` and `Kerning: yes`.
/// - `BorderStyle 1, Outline 0, Shadow 0`: plain text. `Encoding -1` lets libass take the
///   paragraph's direction from its text (FriBidi's auto), as dropcut does.
/// - **Font size.** ASS's `Fontsize` is not the em. libass (ass_font.c, `set_font_metrics`
///   and `ass_face_set_size`) replaces the face's ascender and descender with the OS/2
///   table's usWinAscent and usWinDescent (VSFilter's convention) and asks FreeType for
///   `FT_SIZE_REQUEST_TYPE_REAL_DIM` with the height = Fontsize: the font's
///   winAscent + winDescent spans `Fontsize` pixels. So for an em of E pixels,
///   Fontsize = E × (winAscent + winDescent) / unitsPerEm: 41.906 for DejaVu Sans Bold at
///   36 px (2384 / 2048), 76.032 for Noto Sans Arabic (2112 / 1000). Checked by
///   measurement with libass 0.17.1 (`libassScalesFontsByTheirWinMetrics`): an "H" of
///   DejaVu Sans Bold set by libass at that Fontsize has the height FreeType gives the
///   glyph at the em (1493/2048 em), and at Fontsize = E (the naive reading) it is 16 %
///   short.
///
/// Compared, on the luma planes: the lines (bands of rows with ink), each line's ink box
/// (left, right, top, bottom: within 2 px), the words on each line (runs of ink separated
/// by gaps wider than any inside a word: the break falls after the same word), and the
/// PSNR of the text region (both ink boxes' union grown by 4 px).
///
/// **PSNR.** Measured with libass 0.17.1 / FreeType 2.12 (Debian 12), over the 24 wrapped
/// cues (`wrappedCuesBreakWhereLibassBreaksThem`), with libass drawing each line where
/// dropcut put it: Latin 35.5–36.5 dB (mean 35.9), Arabic 35.9–38.4 (mean 37.0), boxes
/// within 2 px (Latin) and 1 px (Arabic) on every edge — the issue's 30 dB, asserted; CJK
/// 30.4–33.9 (mean 32.0), asserted less 0.5 dB. (CJK was 10.5–11.8 dB while the em was
/// set in whole pixels: at a 57.6 px em the face was set to 58 and the pen moved 0.4 px
/// further per ideograph than libass's, which asks FreeType for the fractional size.)
/// Against libass's own placement: Latin 14.6–19.5, Arabic 17.1–23.2, CJK 14.8–22.7 dB, only guarded
/// (measured less 0.5 dB), because the two renderers place lines to different grids, each
/// within the 2 px the issue allows for positions:
///
/// - libass places lines to 1/8 px (centred at a fraction, the baseline a fraction above
///   MarginV, lines `Fontsize` apart); dropcut aligns lines in whole pixels, sets them a
///   whole number of pixels apart and puts every caption corner on an even pixel (4:2:0
///   chroma sites, CaptionPlacer), so it lands up to 1 px across and 1.5 px down from
///   libass. Text PSNR is steep in position: libass against *itself* moved by 1/8 px
///   gives 32.3 dB, 1/4 px 26.5 dB, 1/2 px 20.8 dB, 1 px 15.7 dB (the Latin cue's first
///   line, `textPSNRFallsSteeplyWithPosition`). So PSNR is a measure of the drawing only
///   with the lines registered.
/// - Along the line the two pens agree (`captionPenMovesAsLibassMovesIt`): libass shapes
///   at `Fontsize` 256 with FreeType's grid-fitted advances and scales the line down, and
///   dropcut's captions take the same advances (`FontFace.subtitleAdvance`). With the
///   design's advances instead (hb-shape's) a 40-glyph line drifted up to half a pixel
///   from libass's and the registered PSNR was 28.0 and 26.6 dB.
@Suite struct CaptionLibassReferenceTests {
    static let size = PixelSize(width: 1280, height: 720)
    /// 10 % in at the sides, 5 % at the top and bottom: 128 px and 36 px.
    static let safeArea = CaptionStyle.SafeArea(top: 0.05, right: 0.1, bottom: 0.05, left: 0.1)
    /// 5 % of 720: a 36 px em.
    static let textSize = 0.05
    /// Luma of the black canvas (BT.709 limited range) and of full white text.
    static let black: UInt8 = 16
    static let white: UInt8 = 235
    /// Ink is a pixel at least half-way from black to white: the same threshold for both
    /// pictures, so anti-aliasing differences move an edge less than a pixel.
    static let inkThreshold: UInt8 = 126

    static let dejaVuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    static let notoArabic = "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf"
    static let notoCJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

    // MARK: - The two renderers

    /// The captions style both renderers are asked for: white text, nothing around it, at
    /// the bottom of the safe area. `maxLines` 4, so no 2- or 3-line cue is set smaller to
    /// fit it (libass never shrinks text).
    static func captionStyle(font: String, textSize: Double = textSize, language: String? = nil) -> CaptionStyle {
        CaptionStyle(fontPaths: [font], size: textSize, color: .white, outline: 0, shadow: 0, background: nil,
                     position: .bottom, safeArea: safeArea, maxLines: 4, language: language)
    }

    /// dropcut's picture: the cue drawn by the overlay renderer's captions layer on a black
    /// canvas; its luma plane.
    static func dropcutLuma(_ text: String, font: String, textSize: Double = textSize, language: String? = nil) throws -> [UInt8] {
        try dropcutPlanes(text, font: font, textSize: textSize, language: language)[0]
    }

    /// The same, with the cue's markup `styles`: the Y, U and V planes (4:2:0).
    static func dropcutPlanes(_ text: String, styles: [CaptionStyledSpan] = [], font: String, textSize: Double = textSize,
                              language: String? = nil) throws -> [[UInt8]] {
        let style = captionStyle(font: font, textSize: textSize, language: language)
        let cue = CaptionCue(timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)), text: text, styles: styles)
        let layer = OverlayLayer(content: .captions(CaptionTrack(cues: [cue], style: style)), anchor: .bottom, margin: 0,
                                 timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)))
        let renderer = try OverlayRenderer(layers: [layer], renderSize: size)
        let canvas = try VideoFrame(width: size.width, height: size.height, pixelFormat: .yuv420p)
        for plane in 0..<3 {
            let rows = plane == 0 ? size.height : size.height / 2, columns = plane == 0 ? size.width : size.width / 2
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns { bytes[row * stride + column] = plane == 0 ? black : 128 } }
            }
        }
        try renderer.draw(at: MediaTime(seconds: 1, preferredTimescale: 600), into: canvas)
        return (0..<3).map { plane in
            let rows = plane == 0 ? size.height : size.height / 2, columns = plane == 0 ? size.width : size.width / 2
            var out = [UInt8](repeating: 0, count: rows * columns)
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns { out[row * columns + column] = bytes[row * stride + column] } }
            }
            return out
        }
    }

    /// The font's units per em and OS/2 usWinAscent, usWinDescent, read from the file's
    /// tables (independently of FreeType and of dropcut).
    static func winMetrics(_ path: String) throws -> (unitsPerEm: Int, winAscent: Int, winDescent: Int) {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u16(_ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }
        func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
        // A collection (`ttcf`) lists its fonts' table directories; the first font's is used
        // (the face dropcut and libass both take: Noto Sans CJK JP).
        let directory = String(decoding: data[0..<4], as: UTF8.self) == "ttcf" ? u32(12) : 0
        var tables: [String: Int] = [:]
        for n in 0..<u16(directory + 4) {
            let record = directory + 12 + 16 * n
            tables[String(decoding: data[record..<record + 4], as: UTF8.self)] = u32(record + 8)
        }
        let head = try #require(tables["head"]), os2 = try #require(tables["OS/2"])
        return (u16(head + 18), u16(os2 + 74), u16(os2 + 76))
    }

    /// The ASS `Fontsize` that gives an em of `em` pixels in libass (see the suite's comment).
    static func assFontSize(em: Double, font: String) throws -> Double {
        let metrics = try winMetrics(font)
        return em * Double(metrics.winAscent + metrics.winDescent) / Double(metrics.unitsPerEm)
    }

    /// libass's picture: the cue in an ASS script rendered by the ffmpeg CLI's `ass`
    /// filter on a black frame, the font file given as the only file of `fontsdir`; its luma
    /// plane (yuv420p throughout: no conversion touches it).
    static func libassLuma(_ text: String, font: String, family: String, bold: Bool, fontSize: Double,
                           wrapStyle: Int = 0) throws -> (luma: [UInt8], log: String) {
        try libassLuma(dialogues: [text], font: font, family: family, bold: bold, fontSize: fontSize, wrapStyle: wrapStyle)
    }

    /// The same with one Dialogue line per text (override tags allowed).
    static func libassLuma(dialogues: [String], font: String, family: String, bold: Bool, fontSize: Double,
                           wrapStyle: Int = 0) throws -> (luma: [UInt8], log: String) {
        let frame = try libassPlanes(dialogues: dialogues, fonts: [font], family: family, bold: bold, fontSize: fontSize, wrapStyle: wrapStyle)
        return (frame.planes[0], frame.log)
    }

    /// libass's picture of the dialogues, `fonts` the files of its `fontsdir`: the Y, U and V
    /// planes (4:2:0).
    static func libassPlanes(dialogues: [String], fonts fontFiles: [String], family: String, bold: Bool, fontSize: Double,
                             wrapStyle: Int = 0) throws -> (planes: [[UInt8]], log: String) {
        let directory = try TemporaryDirectory(prefix: "dropcut-libass")
        defer { withExtendedLifetime(directory) {} }
        let fonts = directory.file("fonts")
        try FileManager.default.createDirectory(atPath: fonts, withIntermediateDirectories: false)
        for font in fontFiles {
            try FileManager.default.copyItem(atPath: font, toPath: (fonts as NSString).appendingPathComponent((font as NSString).lastPathComponent))
        }
        let safe = CaptionStyle(fontPaths: [], safeArea: safeArea).safeRect(on: size)
        let script = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: \(size.width)
            PlayResY: \(size.height)
            WrapStyle: \(wrapStyle)
            Kerning: yes
            ScaledBorderAndShadow: yes

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,\(family),\(String(format: "%.4f", fontSize)),&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,\(bold ? -1 : 0),0,0,0,100,100,0,0,1,0,0,2,\(safe.x),\(size.width - safe.maxX),\(size.height - safe.maxY),-1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            \(dialogues.map { "Dialogue: 0,0:00:00.00,0:00:05.00,Default,,0,0,0,,\($0)" }.joined(separator: "\n"))

            """
        let ass = directory.file("cue.ass"), raw = directory.file("frame.yuv")
        try script.write(toFile: ass, atomically: true, encoding: .utf8)
        let result = try Command.run("ffmpeg", [
            "-hide_banner", "-nostdin", "-loglevel", "verbose", "-y",
            "-f", "lavfi", "-i", "color=black:s=\(size.width)x\(size.height):r=25:d=1",
            "-vf", "format=yuv420p,ass=cue.ass:fontsdir=fonts", "-frames:v", "1",
            "-pix_fmt", "yuv420p", "-f", "rawvideo", "frame.yuv",
        ], directory: directory.path)
        guard result.status == 0 else { throw CommandError(command: ["ffmpeg"], status: result.status, stderr: result.stderr) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        try #require(bytes.count == size.width * size.height * 3 / 2)
        let log = result.stderr.split(separator: "\n").filter { $0.contains("fontselect") }.joined(separator: "\n")
        let luma = size.width * size.height, chroma = luma / 4
        return ([Array(bytes[0..<luma]), Array(bytes[luma..<luma + chroma]), Array(bytes[luma + chroma..<luma + 2 * chroma])], log)
    }

    /// Where dropcut put each line of the cue: its text, the left end of its pen line and
    /// its baseline, in frame pixels (fractions: the glyphs are at subpixel positions).
    static func dropcutLines(_ text: String, font: String, textSize: Double = textSize,
                             language: String? = nil) throws -> [(text: String, x: Double, baseline: Double)] {
        let style = captionStyle(font: font, textSize: textSize, language: language)
        let cue = CaptionCue(timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)), text: text)
        let track = CaptionTrack(cues: [cue], style: style)
        let layer = OverlayLayer(content: .captions(track), anchor: .bottom, margin: 0,
                                 timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)))
        let limit = OverlayLimits.largestPicture(on: size)
        let node = try PreparedCaptions(layer: layer, track: track, renderSize: size, hlg: nil, limit: limit)
        try node.place(at: MediaTime(seconds: 1, preferredTimescale: 600))
        let drawn = try #require(node.drawn.first)
        // Set at the style's size (libass never shrinks a cue), in lines found again below.
        try #require(drawn.pixelSize == textSize * Double(size.height), "the cue was set at \(drawn.pixelSize) px")
        // The layout CaptionPicture made (no outline, box or shadow: the mask is the picture).
        let resolved = try ResolvedCaptionStyle(style, output: size)
        let fonts = try FontSet(paths: [font], hinted: false, language: language)
        var layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: drawn.pixelSize, maxWidth: resolved.wrapWidth(at: drawn.pixelSize), wrap: .balanced,
                                             alignment: .center, lineSpacing: style.lineSpacing)
        layout.align(.center)
        let mask = try TextRasterizer.rasterize(layout, fonts: fonts, limit: limit)
        try #require(mask.width == drawn.raster.width && mask.height == drawn.raster.height)
        try #require(layout.lines.map(\.textRange) == drawn.lineRanges)
        let utf8 = Array(text.utf8)
        return layout.lines.enumerated().map { n, line in
            let words = String(decoding: utf8[line.textRange], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            return (words, Double(drawn.x + mask.originX) + Double(line.offset) / 64,
                    Double(drawn.y + mask.originY + n * layout.lineHeight + layout.ascender))
        }
    }

    // MARK: - Measuring a picture

    struct Box: CustomStringConvertible {
        var left: Int, right: Int, top: Int, bottom: Int   // inclusive
        var description: String { "x \(left)...\(right) y \(top)...\(bottom)" }
    }

    struct Line {
        var box: Box
        /// Runs of ink columns separated by gaps of at least `wordGap` columns.
        var words: Int
    }

    /// The text's lines: bands of rows holding ink (separated by inkless rows), each with
    /// its ink box and its number of words.
    static func lines(_ luma: [UInt8], wordGap: Int) -> [Line] {
        let width = size.width
        func inked(_ row: Int) -> Bool { luma[row * width..<(row + 1) * width].contains { $0 >= inkThreshold } }
        var bands: [(Int, Int)] = []
        for row in 0..<size.height where inked(row) {
            if let last = bands.last, last.1 == row - 1 { bands[bands.count - 1].1 = row } else { bands.append((row, row)) }
        }
        return bands.map { top, bottom in
            var columns = [Bool](repeating: false, count: width)
            for row in top...bottom { for x in 0..<width where luma[row * width + x] >= inkThreshold { columns[x] = true } }
            let left = columns.firstIndex(of: true)!, right = columns.lastIndex(of: true)!
            var words = 1, gap = 0
            for x in left...right {
                if columns[x] { if gap >= wordGap { words += 1 }; gap = 0 } else { gap += 1 }
            }
            return Line(box: Box(left: left, right: right, top: top, bottom: bottom), words: words)
        }
    }

    /// PSNR (dB, 8-bit peak) of `a` against `b` over `box`.
    static func psnr(_ a: [UInt8], _ b: [UInt8], in box: Box) -> Double {
        var sum = 0.0, count = 0
        for y in box.top...box.bottom {
            for x in box.left...box.right {
                let d = Double(a[y * size.width + x]) - Double(b[y * size.width + x])
                sum += d * d
                count += 1
            }
        }
        let mse = sum / Double(max(1, count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// A script's test setting: its font (the same file for both renderers), the family
    /// libass looks it up by, the text size, and the ink gap that separates its words
    /// (nil for CJK, whose characters have gaps as wide as its spaces: lines are compared
    /// by their ink boxes alone — one character more or less moves an edge by a whole em).
    struct Script: Sendable, CustomStringConvertible {
        var name: String
        var font: String
        var family: String
        var bold: Bool
        var textSize: Double
        var language: String?
        var wordGap: Int?
        /// The name libass's font selection logs for the font (its PostScript name).
        var postScriptName: String
        var description: String { name }
    }

    static let latin = Script(name: "Latin", font: dejaVuBold, family: "DejaVu Sans", bold: true, textSize: textSize, wordGap: 8,
                              postScriptName: "DejaVuSans-Bold")
    static let arabic = Script(name: "Arabic", font: notoArabic, family: "Noto Sans Arabic", bold: false, textSize: textSize, wordGap: 8,
                               postScriptName: "NotoSansArabic-Regular")
    /// An 8 % em (57.6 px): a line holds 17 characters of the 1024 px wrap width.
    static let cjk = Script(name: "CJK", font: notoCJK, family: "Noto Sans CJK JP", bold: false, textSize: 0.08, language: "ja",
                            wordGap: nil, postScriptName: "NotoSansCJKjp-Regular")

    /// What `measure` found: each renderer's lines, their ink boxes' differences, and the
    /// text region's PSNR against libass's own placement and against libass drawing each
    /// line where dropcut put it.
    struct Measurement {
        var ours: [Line]
        var theirs: [Line]
        var worstEdge: Int
        var placedPSNR: Double
        var alignedPSNR: Double
        /// dropcut's lines filled greedily (libass's `WrapStyle: 1`) would have broken
        /// elsewhere: the cue tests the balancing.
        var balancingMoved: Bool
    }

    /// Draws `text` with both, prints what was measured and returns it: lines (bands of
    /// ink), their boxes, the words on each, the PSNRs.
    static func measure(_ text: String, script: Script) throws -> Measurement {
        let em = script.textSize * Double(size.height)
        let fontSize = try assFontSize(em: em, font: script.font)
        let wordGap = script.wordGap ?? size.width
        let ours = try dropcutLuma(text, font: script.font, textSize: script.textSize, language: script.language)
        let (theirs, log) = try libassLuma(text, font: script.font, family: script.family, bold: script.bold, fontSize: fontSize)
        // libass must have used the font we gave it, not a fallback.
        #expect(log.contains(script.postScriptName), "\(log)")
        let ourLines = lines(ours, wordGap: wordGap), theirLines = lines(theirs, wordGap: wordGap)
        print("\(script) \"\(text)\": em \(em) px, ASS Fontsize \(String(format: "%.3f", fontSize)): dropcut \(ourLines.count) lines, words \(ourLines.map(\.words)); libass \(theirLines.count), words \(theirLines.map(\.words))")
        var union: Box?, worst = 0
        for (n, (ours, theirs)) in zip(ourLines, theirLines).enumerated() {
            let d = (left: ours.box.left - theirs.box.left, right: ours.box.right - theirs.box.right,
                     top: ours.box.top - theirs.box.top, bottom: ours.box.bottom - theirs.box.bottom)
            worst = max(worst, abs(d.left), abs(d.right), abs(d.top), abs(d.bottom))
            print("  line \(n + 1): dropcut \(ours.box), libass \(theirs.box); dropcut − libass: left \(d.left), right \(d.right), top \(d.top), bottom \(d.bottom)")
            for box in [ours.box, theirs.box] {
                union = union.map { Box(left: min($0.left, box.left), right: max($0.right, box.right),
                                        top: min($0.top, box.top), bottom: max($0.bottom, box.bottom)) } ?? box
            }
        }
        let region = try #require(union)
        let grown = Box(left: max(0, region.left - 4), right: min(size.width - 1, region.right + 4),
                        top: max(0, region.top - 4), bottom: min(size.height - 1, region.bottom + 4))
        let placedValue = psnr(ours, theirs, in: grown)

        // The same lines drawn by libass where dropcut put them: `\an7\pos` puts a line's
        // top-left (the pen's start, the top of the line's box: its font's winAscent above
        // the baseline) at a point, to 1/8 px.
        let metrics = try winMetrics(script.font)
        let ascent = fontSize * Double(metrics.winAscent) / Double(metrics.winAscent + metrics.winDescent)
        let placed = try dropcutLines(text, font: script.font, textSize: script.textSize, language: script.language)
        let greedyFonts = try FontSet(paths: [script.font], hinted: false, language: script.language)
        let resolved = try ResolvedCaptionStyle(captionStyle(font: script.font, textSize: script.textSize, language: script.language), output: size)
        let greedy = try TextLayouter.layout(text, fonts: greedyFonts, pixelSize: em, maxWidth: resolved.wrapWidth(at: em), alignment: .center)
        let utf8 = Array(text.utf8)
        let greedyLines = greedy.lines.map { String(decoding: utf8[$0.textRange], as: UTF8.self).trimmingCharacters(in: .whitespaces) }
        let dialogues = placed.map { line in
            "{\\an7\\pos(\(String(format: "%.3f", line.x)),\(String(format: "%.3f", line.baseline - ascent)))}\(line.text)"
        }
        let (aligned, _) = try libassLuma(dialogues: dialogues, font: script.font, family: script.family, bold: script.bold, fontSize: fontSize)
        let value = psnr(ours, aligned, in: grown)
        print("  text region \(grown): PSNR \(String(format: "%.2f", placedValue)) dB against libass's own placement, \(String(format: "%.2f", value)) dB against libass at dropcut's line positions")
        return Measurement(ours: ourLines, theirs: theirLines, worstEdge: worst, placedPSNR: placedValue, alignedPSNR: value,
                           balancingMoved: greedyLines != placed.map(\.text))
    }

    /// Draws `text` with both and checks lines, words, boxes and PSNR.
    static func compare(_ text: String, script: Script, expectedWords: [Int], tolerance: Int = 2,
                        minimumPSNR: Double, minimumPlacedPSNR: Double) throws {
        let measured = try measure(text, script: script)
        #expect(measured.ours.map(\.words) == expectedWords, "dropcut's words per line: \(measured.ours.map(\.words))")
        #expect(measured.theirs.map(\.words) == expectedWords, "libass's words per line: \(measured.theirs.map(\.words))")
        try #require(measured.ours.count == measured.theirs.count)
        #expect(measured.worstEdge <= tolerance, "an ink box edge \(measured.worstEdge) px from libass's")
        #expect(measured.placedPSNR >= minimumPlacedPSNR, "PSNR \(measured.placedPSNR) dB against libass's own placement")
        #expect(measured.alignedPSNR >= minimumPSNR, "PSNR \(measured.alignedPSNR) dB against libass at dropcut's line positions")
    }

    // MARK: - Tests

    /// A Latin cue too wide for one line: both break it after the same word ("over",
    /// balanced: greedy filling broke after "dog", 9 words and 5) and set both lines on the
    /// same pixels.
    @Test func latinCueWrappedToTwoLinesMatchesLibass() throws {
        try Self.compare("The quick brown fox jumps over the lazy dog while the band plays on", script: Self.latin,
                         expectedWords: [7, 7], minimumPSNR: 30, minimumPlacedPSNR: 14.1)
    }

    /// An Arabic cue on one line (joined forms, right to left) matches libass's.
    @Test func arabicCueMatchesLibass() throws {
        try Self.compare("مرحبا بالعالم، هذا اختبار", script: Self.arabic, expectedWords: [4], minimumPSNR: 30, minimumPlacedPSNR: 14.8)
    }

    /// Cues of two and three wrapped lines, in each script.
    static let wrappedCues: [(Script, String)] = [
        (latin, "The quick brown fox jumps over the lazy dog while the band plays on"),
        (latin, "We left the harbour before sunrise and sailed north along the rocky coast until the wind dropped"),
        (latin, "Never drink liquid nitrogen, it will perforate your stomach and you could die"),
        (latin, "She said the train would be late again, so we walked to the old bridge and waited there"),
        (latin, "If you want to learn how to cook rice properly, start by rinsing it three times in cold water and then let it rest for half an hour"),
        (latin, "Thank you all for watching, and remember to subscribe so you never miss a new episode of the show"),
        (latin, "The museum opens at nine in the morning, but the best time to visit is late in the afternoon when the light is soft"),
        (latin, "Our grandmother kept every letter she ever received in a wooden box under her bed"),
        (arabic, "ذهبنا إلى السوق في الصباح الباكر واشترينا الخبز والجبن والزيتون ثم عدنا إلى البيت قبل أن يشتد الحر"),
        (arabic, "قال المعلم إن الامتحان سيكون يوم الخميس القادم وعلى الجميع أن يراجعوا الدروس من البداية حتى النهاية"),
        (arabic, "كانت الرحلة طويلة ومتعبة لكننا استمتعنا كثيرا بالمناظر الجميلة على طول الطريق الساحلي"),
        (arabic, "هل تتذكر اليوم الذي التقينا فيه أول مرة في المكتبة القديمة وسط المدينة قبل عشر سنوات"),
        (arabic, "سوف نبدأ الاجتماع بعد عشر دقائق فأرجو من الجميع الحضور في الوقت المحدد وإغلاق الهواتف المحمولة"),
        (arabic, "الطقس اليوم مشمس في معظم المناطق مع رياح خفيفة وتتوقع الأرصاد هطول أمطار غزيرة في المساء على المرتفعات الشمالية والغربية من البلاد"),
        (arabic, "لم أكن أعرف أن هذا الطريق يؤدي إلى البحر ولو عرفت ذلك لأتيت إلى هنا منذ سنوات طويلة مع أصدقائي القدامى من المدرسة"),
        (arabic, "شكرا لكم جميعا على المشاهدة ولا تنسوا الاشتراك في القناة ومشاركة الفيديو مع من تحبون"),
        (cjk, "我们明天早上八点在火车站集合 记得带上护照和机票还有雨伞"),
        (cjk, "今天的会议推迟到下午三点开始 请大家提前准备好各自的报告"),
        (cjk, "这家餐厅的饺子非常有名 每天中午都有很多人排队"),
        (cjk, "東京の桜は今週末が見頃です 天気が良ければ公園に行こう"),
        (cjk, "我们明天早上八点在火车站集合 记得带上护照和机票还有雨伞 路上注意安全到了给我打电话"),
        (cjk, "感谢大家一直以来的支持和鼓励 我们会继续努力做出更好的作品 下一期视频我们下周同一时间见"),
        (cjk, "电影院今天晚上有一场特别放映 票价是平时的一半而且送爆米花 想去的朋友请尽快在网上订票"),
        (cjk, "今天的会议推迟到下午三点开始 请大家提前准备好各自的报告 会后我们还要讨论明年的计划"),
    ]

    /// The cues of `wrappedCues`, each drawn by both with libass's default `WrapStyle: 0`:
    /// the same number of lines (two or three), the same words on each (Latin, Arabic: the
    /// ink's word gaps; CJK: the lines' ink boxes, where a character more or less moves an
    /// edge by a whole em), every ink box edge within 2 px of libass's. The text region's
    /// PSNR is printed per script, with libass at dropcut's line positions and at its own.
    @Test func wrappedCuesBreakWhereLibassBreaksThem() throws {
        var results: [String: [Measurement]] = [:]
        for (script, text) in Self.wrappedCues {
            let measured = try Self.measure(text, script: script)
            results[script.name, default: []].append(measured)
            #expect((2...3).contains(measured.theirs.count), "\(script) \"\(text)\": libass set \(measured.theirs.count) lines")
            #expect(measured.ours.count == measured.theirs.count, "\(script) \"\(text)\": \(measured.ours.count) lines, libass \(measured.theirs.count)")
            if script.wordGap != nil {
                #expect(measured.ours.map(\.words) == measured.theirs.map(\.words),
                        "\(script) \"\(text)\": words per line \(measured.ours.map(\.words)), libass \(measured.theirs.map(\.words))")
                #expect(measured.worstEdge <= 2, "\(script) \"\(text)\": an ink box edge \(measured.worstEdge) px from libass's")
            } else {
                // CJK: each line as wide as libass's to within 2 px (a character more or less
                // is 57.6) and centred on the same column.
                for (n, (ours, theirs)) in zip(measured.ours, measured.theirs).enumerated() {
                    let widths = (ours.box.right - ours.box.left, theirs.box.right - theirs.box.left)
                    let centres = (ours.box.left + ours.box.right - theirs.box.left - theirs.box.right)
                    #expect(abs(widths.0 - widths.1) <= 2 && abs(centres) <= 4 && abs(ours.box.top - theirs.box.top) <= 2
                            && abs(ours.box.bottom - theirs.box.bottom) <= 2,
                            "\(script) \"\(text)\" line \(n + 1): dropcut \(ours.box), libass \(theirs.box)")
                }
            }
        }
        for script in [Self.latin, Self.arabic, Self.cjk] {
            let measured = results[script.name] ?? []
            func summary(_ values: [Double]) -> String {
                String(format: "mean %.1f, min %.1f, max %.1f dB", values.reduce(0, +) / Double(max(1, values.count)),
                       values.min() ?? .nan, values.max() ?? .nan)
            }
            let moved = measured.filter(\.balancingMoved).count
            print("\(script): \(measured.count) cues, \(measured.map(\.ours.count)) lines, \(moved) broken elsewhere than greedy filling would; text-region PSNR at dropcut's line positions \(summary(measured.map(\.alignedPSNR))); at libass's own \(summary(measured.map(\.placedPSNR)))")
            // The balancing is what is tested: most cues break elsewhere than greedy filling.
            #expect(moved * 2 >= measured.count, "\(script): only \(moved) of \(measured.count) cues balanced differently from greedy")
            // The drawing, with the lines registered: the issue's 30 dB for Latin and Arabic,
            // for CJK the least measured less 0.5 dB; against libass's own placement a
            // regression guard: the least measured (libass 0.17.1) less 0.5 dB.
            let bounds: (aligned: Double, placed: Double)
            switch script.name {
            case "Latin": bounds = (30, 14.1)
            case "Arabic": bounds = (30, 16.6)
            default: bounds = (29.9, 14.3)
            }
            #expect(measured.allSatisfy { $0.alignedPSNR >= bounds.aligned && $0.placedPSNR >= bounds.placed },
                    "\(script): PSNR \(measured.map(\.alignedPSNR)) / \(measured.map(\.placedPSNR))")
        }
    }

    /// Why the PSNR is taken with the lines registered: libass against *itself*, the Latin
    /// cue's first line drawn at a point and again 1/8, 1/4, 1/2 and 1 px to the right.
    /// Every one of those is a position within the 2 px the issue allows, yet a whole
    /// pixel takes text PSNR below 20 dB — so a PSNR bound says something about the
    /// drawing only where the positions are the same.
    @Test func textPSNRFallsSteeplyWithPosition() throws {
        let em = Self.textSize * Double(Self.size.height)
        let fontSize = try Self.assFontSize(em: em, font: Self.dejaVuBold)
        let text = "The quick brown fox jumps over the lazy dog"
        func drawn(at x: Double) throws -> [UInt8] {
            try Self.libassLuma(dialogues: ["{\\an7\\pos(\(String(format: "%.3f", x)),600)}\(text)"], font: Self.dejaVuBold,
                                family: "DejaVu Sans", bold: true, fontSize: fontSize).luma
        }
        let reference = try drawn(at: 184)
        let box = try #require(Self.lines(reference, wordGap: 8).first).box
        let region = Box(left: box.left - 4, right: box.right + 6, top: box.top - 4, bottom: box.bottom + 4)
        var values: [Double] = []
        for shift in [0.125, 0.25, 0.5, 1] {
            values.append(Self.psnr(try drawn(at: 184 + shift), reference, in: region))
        }
        print("libass against itself moved 1/8, 1/4, 1/2, 1 px: \(values.map { String(format: "%.1f", $0) }.joined(separator: ", ")) dB")
        #expect(values == values.sorted(by: >), "PSNR falls as the shift grows: \(values)")
        #expect(values[3] < 20, "a 1 px shift: \(values[3]) dB")
    }

    /// libass's pen, measured: 40 copies of a letter set by libass in a row, each glyph's
    /// ink centroid found, and the mean step between them is the advance libass moved its
    /// pen by. dropcut's caption advance for the letter (a caption's `FontSet`, unhinted)
    /// is within 0.01 px of it, for letters libass moves ahead of the design ("n": 25.70
    /// px against the design's 25.63 at a 36 px em, as hb-shape gives the design) and
    /// behind it ("o"). The design advance itself is 0.05 px or more off for "n", so the
    /// check can tell the two pens apart.
    @Test(arguments: ["n", "o", "H"])
    func captionPenMovesAsLibassMovesIt(letter: String) throws {
        let em = Self.textSize * Double(Self.size.height), count = 40
        let text = String(repeating: letter, count: count)
        let fontSize = try Self.assFontSize(em: em, font: Self.dejaVuBold)
        let luma = try Self.libassLuma(dialogues: ["{\\an7\\pos(10,100)}\(text)"], font: Self.dejaVuBold,
                                       family: "DejaVu Sans", bold: true, fontSize: fontSize).luma
        // Ink per column, then one centroid per run of inked columns (one glyph each).
        var ink = [Double](repeating: 0, count: Self.size.width)
        for row in 0..<Self.size.height {
            for x in 0..<Self.size.width where luma[row * Self.size.width + x] > Self.black {
                ink[x] += Double(luma[row * Self.size.width + x] - Self.black)
            }
        }
        var centroids: [Double] = [], start: Int?
        for x in 0...Self.size.width {
            let inked = x < Self.size.width && ink[x] > 0
            if inked, start == nil { start = x }
            if !inked, let first = start {
                let weight = ink[first..<x].reduce(0, +)
                centroids.append((first..<x).reduce(0) { $0 + Double($1) * ink[$1] } / weight)
                start = nil
            }
        }
        try #require(centroids.count == count, "libass drew \(centroids.count) separate glyphs of \(count)")
        let libass = (centroids[count - 1] - centroids[0]) / Double(count - 1)

        let fonts = try FontSet(paths: [Self.dejaVuBold], fallbacks: [], hinted: false)
        let layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: em, alignment: .left)
        let dropcut = Double(try #require(layout.lines.first).width) / 64 / Double(count)

        let shaped = try Command.runChecked("hb-shape", ["--output-format=json", "--no-glyph-names", Self.dejaVuBold, letter])
        let units = try #require(try JSONSerialization.jsonObject(with: Data(shaped.utf8)) as? [[String: Any]]).first?["ax"] as? Int
        let design = Double(try #require(units)) * em / 2048
        print("\(letter): libass's pen \(String(format: "%.4f", libass)) px, dropcut's \(String(format: "%.4f", dropcut)), the design's \(String(format: "%.4f", design))")
        #expect(abs(dropcut - libass) <= 0.01, "dropcut \(dropcut) px, libass \(libass) px")
        if letter == "n" { #expect(abs(design - libass) >= 0.05, "design \(design) px, libass \(libass) px") }
    }

    /// The font size conversion, measured: libass sets the winAscent + winDescent of the
    /// font in `Fontsize` pixels. An "H" of DejaVu Sans Bold (1493 units tall of 2048) at
    /// the converted Fontsize is as tall as at a 36 px em (26.2 px); at Fontsize 36 it is
    /// 36 × 2048/2384 of that (22.5 px).
    @Test func libassScalesFontsByTheirWinMetrics() throws {
        let em = Self.textSize * Double(Self.size.height)
        func height(_ fontSize: Double) throws -> Int {
            let luma = try Self.libassLuma("H", font: Self.dejaVuBold, family: "DejaVu Sans", bold: true, fontSize: fontSize).luma
            let line = try #require(Self.lines(luma, wordGap: 8).first)
            return line.box.bottom - line.box.top + 1
        }
        let converted = try height(try Self.assFontSize(em: em, font: Self.dejaVuBold)), naive = try height(em)
        let expected = em * 1493 / 2048
        print("H of DejaVu Sans Bold: \(converted) px at the converted Fontsize, \(naive) px at Fontsize = em; the em gives \(expected)")
        #expect(abs(Double(converted) - expected) <= 1)
        #expect(abs(Double(naive) - expected * 2048 / 2384) <= 1)
    }
}
