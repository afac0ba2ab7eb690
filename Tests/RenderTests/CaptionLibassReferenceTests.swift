import Foundation
import MediaIO
import Testing
import TestSupport
import Timeline
@testable import Render

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
/// - `WrapStyle 1`: libass's end-of-line (greedy) wrapping, which is dropcut's line
///   filling. (`WrapStyle 0`, the default, balances the lines' widths instead; 2 never
///   wraps.) The wrap width is the same: the frame less the side margins.
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
/// **PSNR.** Measured with libass 0.17.1 / FreeType 2.12 (Debian 12): boxes within 1 px
/// on every edge; text-region PSNR 38.4 dB (Latin) and 37.4 dB (Arabic) with libass
/// drawing each line where dropcut put it — the issue's 30 dB, asserted. Against
/// libass's own placement it is 20.6 and 15.3 dB, and only a regression guard (measured
/// less 0.5 dB) is asserted there, because the two renderers place lines to different
/// grids, each within the 2 px the issue allows for positions:
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

    // MARK: - The two renderers

    /// dropcut's picture: the cue drawn by the overlay renderer's captions layer on a black
    /// canvas; its luma plane.
    static func dropcutLuma(_ text: String, font: String) throws -> [UInt8] {
        let style = CaptionStyle(fontPaths: [font], size: textSize, color: .white, outline: 0, shadow: 0, background: nil,
                                 position: .bottom, safeArea: safeArea, maxLines: 2)
        let cue = CaptionCue(timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)), text: text)
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
        var luma = [UInt8](repeating: 0, count: size.width * size.height)
        canvas.withPlane(0) { bytes, stride in
            for row in 0..<size.height { for column in 0..<size.width { luma[row * size.width + column] = bytes[row * stride + column] } }
        }
        return luma
    }

    /// The font's units per em and OS/2 usWinAscent, usWinDescent, read from the file's
    /// tables (independently of FreeType and of dropcut).
    static func winMetrics(_ path: String) throws -> (unitsPerEm: Int, winAscent: Int, winDescent: Int) {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u16(_ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }
        func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
        var tables: [String: Int] = [:]
        for n in 0..<u16(4) {
            let record = 12 + 16 * n
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
                           wrapStyle: Int = 1) throws -> (luma: [UInt8], log: String) {
        try libassLuma(dialogues: [text], font: font, family: family, bold: bold, fontSize: fontSize, wrapStyle: wrapStyle)
    }

    /// The same with one Dialogue line per text (override tags allowed).
    static func libassLuma(dialogues: [String], font: String, family: String, bold: Bool, fontSize: Double,
                           wrapStyle: Int = 1) throws -> (luma: [UInt8], log: String) {
        let directory = try TemporaryDirectory(prefix: "dropcut-libass")
        defer { withExtendedLifetime(directory) {} }
        let fonts = directory.file("fonts")
        try FileManager.default.createDirectory(atPath: fonts, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: font, toPath: (fonts as NSString).appendingPathComponent((font as NSString).lastPathComponent))
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
        return (Array(bytes[0..<(size.width * size.height)]), log)
    }

    /// Where dropcut put each line of the cue: its text, the left end of its pen line and
    /// its baseline, in frame pixels (fractions: the glyphs are at subpixel positions).
    static func dropcutLines(_ text: String, font: String) throws -> [(text: String, x: Double, baseline: Double)] {
        let style = CaptionStyle(fontPaths: [font], size: textSize, color: .white, outline: 0, shadow: 0, background: nil,
                                 position: .bottom, safeArea: safeArea, maxLines: 2)
        let cue = CaptionCue(timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)), text: text)
        let track = CaptionTrack(cues: [cue], style: style)
        let layer = OverlayLayer(content: .captions(track), anchor: .bottom, margin: 0,
                                 timeRange: TimeRange(start: 0, duration: MediaTime(seconds: 10, preferredTimescale: 600)))
        let limit = OverlayLimits.largestPicture(on: size)
        let node = try PreparedCaptions(layer: layer, track: track, renderSize: size, hlg: nil, limit: limit)
        try node.place(at: MediaTime(seconds: 1, preferredTimescale: 600))
        let drawn = try #require(node.drawn.first)
        // The layout CaptionPicture made (no outline, box or shadow: the mask is the picture).
        let resolved = try ResolvedCaptionStyle(style, output: size)
        let fonts = try FontSet(paths: [font], hinted: false)
        var layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: drawn.pixelSize, maxWidth: resolved.wrapWidth(at: drawn.pixelSize), wrap: .balanced,
                                             alignment: .center, lineSpacing: style.lineSpacing)
        layout.align(.center)
        let mask = try TextRasterizer.rasterize(layout, fonts: fonts, limit: limit)
        try #require(mask.width == drawn.raster.width && mask.height == drawn.raster.height)
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

    /// Draws `text` with both, prints what was measured, and checks lines, words, boxes
    /// and PSNR.
    static func compare(_ text: String, font: String, family: String, bold: Bool, expectedWords: [Int],
                        wordGap: Int, tolerance: Int = 2, minimumPSNR: Double, minimumPlacedPSNR: Double) throws {
        let em = textSize * Double(size.height)
        let fontSize = try assFontSize(em: em, font: font)
        let ours = try dropcutLuma(text, font: font)
        let (theirs, log) = try libassLuma(text, font: font, family: family, bold: bold, fontSize: fontSize)
        print("libass: \(log)")
        // libass must have used the file we gave it, not a fallback.
        #expect(log.contains((font as NSString).lastPathComponent.replacingOccurrences(of: ".ttf", with: "")), "\(log)")
        let ourLines = lines(ours, wordGap: wordGap), theirLines = lines(theirs, wordGap: wordGap)
        print("em \(em) px, ASS Fontsize \(fontSize): dropcut \(ourLines.count) lines, libass \(theirLines.count)")
        #expect(ourLines.map(\.words) == expectedWords, "dropcut's words per line: \(ourLines.map(\.words))")
        #expect(theirLines.map(\.words) == expectedWords, "libass's words per line: \(theirLines.map(\.words))")
        try #require(ourLines.count == theirLines.count)
        var union: Box?
        for (n, (ours, theirs)) in zip(ourLines, theirLines).enumerated() {
            let d = (left: ours.box.left - theirs.box.left, right: ours.box.right - theirs.box.right,
                     top: ours.box.top - theirs.box.top, bottom: ours.box.bottom - theirs.box.bottom)
            print("line \(n + 1): dropcut \(ours.box), libass \(theirs.box); dropcut − libass: left \(d.left), right \(d.right), top \(d.top), bottom \(d.bottom)")
            #expect(abs(d.left) <= tolerance && abs(d.right) <= tolerance && abs(d.top) <= tolerance && abs(d.bottom) <= tolerance,
                    "line \(n + 1): dropcut \(ours.box), libass \(theirs.box)")
            for box in [ours.box, theirs.box] {
                union = union.map { Box(left: min($0.left, box.left), right: max($0.right, box.right),
                                        top: min($0.top, box.top), bottom: max($0.bottom, box.bottom)) } ?? box
            }
        }
        let region = try #require(union)
        let grown = Box(left: max(0, region.left - 4), right: min(size.width - 1, region.right + 4),
                        top: max(0, region.top - 4), bottom: min(size.height - 1, region.bottom + 4))
        let placedValue = psnr(ours, theirs, in: grown)
        print("text region \(grown): PSNR \(String(format: "%.2f", placedValue)) dB against libass's own placement")
        #expect(placedValue >= minimumPlacedPSNR, "PSNR \(placedValue) dB in \(grown) against libass's own placement")

        // The same lines drawn by libass where dropcut put them: `\an7\pos` puts a line's
        // top-left (the pen's start, the top of the line's box: its font's winAscent above
        // the baseline) at a point, to 1/8 px.
        let metrics = try winMetrics(font)
        let ascent = fontSize * Double(metrics.winAscent) / Double(metrics.winAscent + metrics.winDescent)
        let placed = try dropcutLines(text, font: font)
        let dialogues = placed.map { line in
            "{\\an7\\pos(\(String(format: "%.3f", line.x)),\(String(format: "%.3f", line.baseline - ascent)))}\(line.text)"
        }
        let (aligned, _) = try libassLuma(dialogues: dialogues, font: font, family: family, bold: bold, fontSize: fontSize)
        let alignedLines = lines(aligned, wordGap: wordGap)
        for (n, theirs) in alignedLines.prefix(ourLines.count).enumerated() {
            print("line \(n + 1) \"\(placed[n].text)\" at x \(placed[n].x), baseline \(placed[n].baseline): libass there \(theirs.box)")
        }
        let value = psnr(ours, aligned, in: grown)
        print("text region \(grown): PSNR \(String(format: "%.2f", value)) dB against libass at dropcut's line positions")
        #expect(value >= minimumPSNR, "PSNR \(value) dB in \(grown)")
    }

    // MARK: - Tests

    /// A Latin cue too wide for one line: both break it after the same word ("dog") and
    /// set both lines on the same pixels.
    @Test func latinCueWrappedToTwoLinesMatchesLibass() throws {
        try Self.compare("The quick brown fox jumps over the lazy dog while the band plays on",
                         font: Self.dejaVuBold, family: "DejaVu Sans", bold: true, expectedWords: [9, 5], wordGap: 8,
                         minimumPSNR: 30, minimumPlacedPSNR: 20.1)
    }

    /// An Arabic cue on one line (joined forms, right to left) matches libass's.
    @Test func arabicCueMatchesLibass() throws {
        try Self.compare("مرحبا بالعالم، هذا اختبار", font: Self.notoArabic, family: "Noto Sans Arabic", bold: false,
                         expectedWords: [4], wordGap: 8, minimumPSNR: 30, minimumPlacedPSNR: 14.8)
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
