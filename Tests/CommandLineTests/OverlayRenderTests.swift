import Foundation
import Testing
import TestSupport

/// Overlays drawn by `dropcut render`, end to end: logos and text burnt into clips made by
/// the `ffmpeg` CLI, found again in `ffmpeg`'s decode of the output, and compared with what
/// `ffmpeg`'s own `overlay` and `drawtext` filters draw.
///
/// Backgrounds are solid dark clips (BT.709-tagged, so no BT.601 conversion is involved)
/// and the outputs are encoded at a low crf, so a logo's edges are clean and it can be
/// found by thresholding the decoded luma.
@Suite(.tags(.slow)) struct OverlayRenderTests {
    /// The nine anchors, as the recipe spells them.
    static let anchors = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]

    /// Background of most tests: dark grey, luma ≈ 43.
    static let dark = "0x202020"
    /// 0x00ff00 in BT.709 video range: Y = 16 + 219·0.7152, Cb = 128 − 224·0.7152/1.8556,
    /// Cr = 128 − 224·0.7152/1.5748.
    static let green = (y: 172.6, u: 41.7, v: 26.3)

    // MARK: 1. Anchors

    /// Where the output canvas comes from: the source as it is, a source turned a quarter
    /// by its display matrix, or a square output the source is cropped to fill.
    enum Canvas: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case plain, rotated, filled
        var testDescription: String { rawValue }

        var outputSize: (width: Int, height: Int) {
            switch self {
            case .plain: (320, 240)
            case .rotated: (240, 320)
            case .filled: (240, 240)
            }
        }

        /// Recipe lines for the canvas and the overlay's size and margin (after `anchor:`).
        var recipe: (output: String, overlay: String) {
            switch self {
            case .plain: ("{ video: { crf: 10 } }", "margin: 7")
            case .rotated: ("{ video: { crf: 10 } }", "margin: 3%")   // 7.2 px of 240
            case .filled: ("{ size: 240x240, fit: fill, video: { crf: 10 } }", "margin: 9, width: 25%")   // 60 px wide
            }
        }

        /// The logo's drawn size and the margin in pixels, as the recipe asks.
        var drawn: (width: Int, height: Int, margin: Double) {
            switch self {
            case .plain: (40, 24, 7)
            case .rotated: (40, 24, 7.2)
            case .filled: (60, 36, 9)   // 40x24 at 60 wide
            }
        }
    }

    /// One render per canvas with the logo at all nine anchors (apart from each other on
    /// every canvas here): each is found as a separate bright rectangle in the decoded frame.
    @Test(arguments: Canvas.allCases)
    func solidLogoLandsAtEachAnchor(canvas: Canvas) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        var clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        if canvas == .rotated {
            clip = try await OverlayFixture.rotated(clip, by: 90, to: dir.file("turned.mp4"))
            #expect(try FFprobe.videoSideData(of: clip).contains("Display Matrix"), "the fixture carries no display matrix")
        }
        try await OverlayFixture.solidLogo(dir.file("logo.png"), color: "0x00ff00", width: 40, height: 24)
        let overlays = Self.anchors.map { "  - { image: logo.png, anchor: \($0), \(canvas.recipe.overlay) }" }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "logo.yaml", contents: """
        version: 1
        output: \(canvas.recipe.output)
        overlays:
        \(overlays.joined(separator: "\n"))
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let (width, height) = canvas.outputSize
        let video = try #require(try FFprobe.stream("video", of: output))
        try #require(video.width == width && video.height == height, "output \(video.width ?? 0)x\(video.height ?? 0)")
        let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: width, height: height)
        let blobs = Self.brightRegions(picture.y, width: width, height: height, above: 108)
        #expect(blobs.count == 9, "\(blobs.count) bright regions, expected 9 logos: \(blobs.map(\.box))")
        let drawn = canvas.drawn
        for anchor in Self.anchors {
            let expected = Self.expectedOrigin(anchor: anchor, content: (Double(drawn.width), Double(drawn.height)),
                                               margin: drawn.margin, canvas: (Double(width), Double(height)))
            let nearest = blobs.min { a, b in
                hypot(Double(a.box.x) - expected.x, Double(a.box.y) - expected.y) < hypot(Double(b.box.x) - expected.x, Double(b.box.y) - expected.y)
            }
            guard let (box, area) = nearest else { Issue.record("\(canvas) \(anchor): no logo"); continue }
            print("\(canvas) \(anchor): logo at (\(box.x), \(box.y)) \(box.width)x\(box.height), expected (\(expected.x), \(expected.y)) \(drawn.width)x\(drawn.height)")
            #expect(abs(Double(box.x) - expected.x) <= 1 && abs(Double(box.y) - expected.y) <= 1,
                    "\(canvas) \(anchor): logo at (\(box.x), \(box.y)), expected (\(expected.x), \(expected.y)) ± 1")
            #expect(abs(box.width - drawn.width) <= 1 && abs(box.height - drawn.height) <= 1,
                    "\(canvas) \(anchor): logo \(box.width)x\(box.height), expected \(drawn.width)x\(drawn.height)")
            // A solid rectangle, green (BT.709) inside.
            #expect(Double(area) >= 0.97 * Double(box.width * box.height), "\(canvas) \(anchor): \(area) bright pixels in a \(box.width)x\(box.height) box")
            let inside = Self.mean(picture, x: box.x + 2, y: box.y + 2, width: box.width - 4, height: box.height - 4, canvasWidth: width)
            #expect(abs(inside.y - Self.green.y) <= 3 && abs(inside.u - Self.green.u) <= 3 && abs(inside.v - Self.green.v) <= 3,
                    "\(canvas) \(anchor): logo colour Y/U/V \(inside), expected \(Self.green)")
        }
    }

    /// An odd-sized logo with no margin at the bottom-right corner: the formula puts it at
    /// (279, 215), wholly inside the canvas; rounding to an even pixel may move it by one,
    /// but must not push its last column and row off the picture.
    @Test func oddSizedLogoFlushWithTheCornerIsDrawnWhole() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        try await OverlayFixture.solidLogo(dir.file("odd.png"), color: "0x00ff00", width: 41, height: 25)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "corner.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { image: odd.png, anchor: bottom-right, margin: 0 }
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
        let box = try #require(Self.boundingBox(picture.y, width: 320, height: 240, above: 108), "no logo in the frame")
        print("41x25 logo at bottom-right, margin 0: drawn at (\(box.x), \(box.y)) \(box.width)x\(box.height), expected (279, 215) 41x25")
        #expect(abs(box.x - 279) <= 1 && abs(box.y - 215) <= 1, "logo at (\(box.x), \(box.y))")
        #expect(box.width == 41 && box.height == 25, "logo cut to \(box.width)x\(box.height) by the canvas edge")
    }

    // MARK: 2. During

    @Test func logoIsAbsentBeforeItsDuringRangeStarts() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        try await OverlayFixture.solidLogo(dir.file("logo.png"), color: "0x00ff00", width: 40, height: 24)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "late.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { image: logo.png, anchor: center, during: [0.5, end] }
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let frames = try await OverlayFixture.frames(of: output, width: 320, height: 240)
        try #require(frames.count == 30, "\(frames.count) frames")
        let lit = frames.map { frame in frame.y.filter { $0 > 108 }.count }
        print("during [0.5, end]: bright pixels per frame \(lit)")
        // 0.5 s is frame 15 exactly: frames 0-14 without the logo, 15-29 with all of it.
        for index in [0, 5, 14] { #expect(lit[index] == 0, "frame \(index): \(lit[index]) logo pixels before 0.5 s") }
        for index in [15, 20, 29] { #expect(abs(lit[index] - 40 * 24) <= 40, "frame \(index): \(lit[index]) logo pixels, expected 960") }
    }

    // MARK: 3. Opacity

    @Test func halfOpacityBlendsHalfwayBetweenLogoAndBackground() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        // A coloured background, so chroma is mixed as well as luma.
        let clip = try await OverlayFixture.solidClip(dir.file("brown.mp4"), color: "0x806040")
        try await OverlayFixture.solidLogo(dir.file("logo.png"), color: "0x00ff00", width: 40, height: 24)
        func recipe(_ opacity: String) throws -> String {
            try Fixtures.makeFile(in: dir.path, name: "o\(opacity).yaml", contents: """
            version: 1
            output: { video: { crf: 10 } }
            overlays:
              - { image: logo.png, anchor: center, opacity: \(opacity) }
            """)
        }

        let opaque = dir.file("opaque.mp4"), half = dir.file("half.mp4")
        let opaqueResult = try await DropcutProcess.run(["render", "--recipe", try recipe("1"), "--output", opaque, clip])
        let halfResult = try await DropcutProcess.run(["render", "--recipe", try recipe("0.5"), "--output", half, clip])

        try #require(opaqueResult.status == 0 && halfResult.status == 0, "\(opaqueResult.stderr)\(halfResult.stderr)")
        // The logo covers (140, 108)-(180, 132); measure 4 px inside it, the background far from it.
        let full = try DecodedMedia.yuvFrame(of: opaque, index: 15, width: 320, height: 240)
        let mixed = try DecodedMedia.yuvFrame(of: half, index: 15, width: 320, height: 240)
        let logo = Self.mean(full, x: 144, y: 112, width: 32, height: 16, canvasWidth: 320)
        let background = Self.mean(mixed, x: 20, y: 20, width: 80, height: 60, canvasWidth: 320)
        let blended = Self.mean(mixed, x: 144, y: 112, width: 32, height: 16, canvasWidth: 320)
        let expected = (y: (logo.y + background.y) / 2, u: (logo.u + background.u) / 2, v: (logo.v + background.v) / 2)
        print("opacity 0.5: logo Y/U/V \(logo), background \(background), blended \(blended), expected \(expected)")
        #expect(abs(logo.y - Self.green.y) <= 3, "the opaque logo is not green: \(logo)")
        #expect(abs(blended.y - expected.y) <= 3 && abs(blended.u - expected.u) <= 3 && abs(blended.v - expected.v) <= 3,
                "blended \(blended), expected \(expected) ± 3")
        // Every pixel, not just the mean.
        let worst = (112..<128).flatMap { row in (144..<176).map { abs(Double(mixed.y[row * 320 + $0]) - expected.y) } }.max() ?? 0
        #expect(worst <= 3, "a blended pixel is \(worst) levels off")
    }

    // MARK: 4. Fade in

    @Test func fadeInRisesSteadilyToFullAtItsEnd() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        try await OverlayFixture.solidLogo(dir.file("logo.png"), color: "0x00ff00", width: 40, height: 24)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "fade.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { image: logo.png, anchor: center, fade: { in: 0.5 } }
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let frames = try await OverlayFixture.frames(of: output, width: 320, height: 240)
        try #require(frames.count == 30, "\(frames.count) frames")
        let background = Self.mean(frames[25], x: 20, y: 20, width: 80, height: 60, canvasWidth: 320).y
        let full = Self.mean(frames[25], x: 144, y: 112, width: 32, height: 16, canvasWidth: 320).y
        // Strength: how far the logo's interior has moved from the background towards full.
        let strength = (0...20).map { index in
            (Self.mean(frames[index], x: 144, y: 112, width: 32, height: 16, canvasWidth: 320).y - background) / (full - background)
        }
        print("fade in 0.5 s: strength per frame 0...20: \(strength.map { String(format: "%.3f", $0) }.joined(separator: " "))")
        #expect(abs(full - Self.green.y) <= 3, "the faded-in logo is not green: Y \(full)")
        #expect(strength[0] <= 0.02, "frame 0 already shows the logo at \(strength[0])")
        let drops = (1..<strength.count).filter { strength[$0] < strength[$0 - 1] - 0.005 }
        #expect(drops.isEmpty, "strength falls at frames \(drops): \(strength)")
        let firstFull = try #require(strength.firstIndex { $0 >= 0.97 }, "never reaches full: \(strength)")
        #expect((14...16).contains(firstFull), "full at frame \(firstFull), expected 15 (0.5 s) ± 1")
    }

    // MARK: 5. ffmpeg's overlay filter as oracle

    @Test func softEdgedLogoMatchesFfmpegsOverlayFilter() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.textureClip(dir.file("texture.mp4"))
        // 64x48: a colour gradient, alpha rising from 0.25 to 1 across, inside a 6 px border at 0.5.
        let logo = dir.file("soft.png")
        try await OverlayFixture.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=64x48,format=rgba",
                                   "-vf", "geq=r='255*X/W':g='200-150*Y/H':b='60+120*X/W'"
                                       + ":a='if(lt(X\\,6)+lt(Y\\,6)+gt(X\\,W-7)+gt(Y\\,H-7)\\,128\\,255*(0.25+0.75*X/W))'",
                                   "-frames:v", "1", logo])
        let recipe = try Fixtures.makeFile(in: dir.path, name: "soft.yaml", contents: """
        version: 1
        output: { video: { crf: 4 } }
        overlays:
          - { image: soft.png, anchor: bottom-right, margin: 16 }
        """)
        // bottom-right, margin 16: x = 320 − 16 − 64 = 240, y = 240 − 16 − 48 = 176.
        let region = "crop=64:48:240:176"

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        // The oracle. ffmpeg's overlay would turn the RGBA logo into YUV with the BT.601
        // matrix (swscale's default for untagged RGB) over a BT.709 video; converting it with
        // the BT.709 matrix first is what dropcut is asked to do.
        func reference(x: Int, y: Int) async throws -> String {
            let path = dir.file("reference-\(x)-\(y).mp4")
            try await OverlayFixture.ffmpeg(["-i", clip, "-i", logo, "-filter_complex",
                                       "[1]format=rgba,scale=out_color_matrix=bt709:out_range=tv,format=yuva420p[logo];"
                                           + "[0][logo]overlay=\(x):\(y):format=yuv420",
                                       "-c:v", "libx264", "-qp", "0"] + OverlayFixture.bt709Tags + [path])
            return path
        }
        let oracle = try await reference(x: 240, y: 176)
        let psnr = try PSNR.compare(output, oracle, filterA: region, filterB: region)
        let whole = try PSNR.compare(output, oracle)
        print("soft-edged logo vs ffmpeg overlay: over the logo \(psnr); whole frame \(whole)")
        #expect(psnr.frames.count == 30)
        #expect(psnr.min >= 40, "\(psnr)")
        // The comparison can tell: the same logo 2 px to the right is far off.
        let shifted = try PSNR.compare(output, try await reference(x: 242, y: 176), filterA: region, filterB: region)
        print("soft-edged logo vs ffmpeg overlay 2 px to the right: \(shifted)")
        #expect(shifted.average < psnr.average - 8, "\(shifted)")
    }

    // MARK: 6. Text

    /// DejaVuSans "Hello" at 40 px, white: its ink is where the anchor and margin put the
    /// text's box, and as large as ffmpeg's drawtext (FreeType too) draws it.
    @Test(arguments: ["top-left", "center", "bottom-right"])
    func textInkLiesInsideItsAnchoredBox(anchor: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "text.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { text: "Hello", font: DejaVuSans.ttf, size: 40px, color: "#ffffffff", anchor: \(anchor), margin: 10 }
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
        let ink = try #require(Self.boundingBox(picture.y, width: 320, height: 240, above: 100), "no text drawn")
        let oracle = try await #require(try OverlayFixture.drawtextInk("Hello", size: 40, background: Self.dark), "drawtext drew nothing")
        // The text's box: the ink plus its side bearings across, the font's line height
        // (ascender + descender = 1.164 em for DejaVuSans) down.
        let boxWidth = Double(oracle.width + 6), boxHeight = (1.164 * 40).rounded(.up)
        let origin = Self.expectedOrigin(anchor: anchor, content: (boxWidth, boxHeight), margin: 10, canvas: (320, 240))
        let slack = 4.0
        print("text at \(anchor): ink (\(ink.x), \(ink.y)) \(ink.width)x\(ink.height); drawtext's ink \(oracle.width)x\(oracle.height); predicted box (\(origin.x), \(origin.y)) \(boxWidth)x\(boxHeight)")
        #expect(abs(ink.width - oracle.width) <= 2 && abs(ink.height - oracle.height) <= 2,
                "ink \(ink.width)x\(ink.height), drawtext's \(oracle.width)x\(oracle.height)")
        #expect(Double(ink.x) >= origin.x - slack && Double(ink.x + ink.width) <= origin.x + boxWidth + slack
                    && Double(ink.y) >= origin.y - slack && Double(ink.y + ink.height) <= origin.y + boxHeight + slack,
                "ink (\(ink.x), \(ink.y)) \(ink.width)x\(ink.height) outside the box (\(origin.x), \(origin.y)) \(boxWidth)x\(boxHeight)")
        // The box is filled, not just touched: the ink spans most of it.
        #expect(Double(ink.height) >= 0.6 * 40, "ink only \(ink.height) px tall")
    }

    /// Lines of a text are aligned as its anchor's column says: left edges together on the
    /// left, centres together in the middle, right edges together on the right.
    @Test func multilineTextIsAlignedByItsAnchorColumn() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        let overlays = ["top-left", "top", "top-right"].map {
            "  - { text: \"Hi\\nHello\", font: DejaVuSans.ttf, size: 24px, color: \"#ffffffff\", anchor: \($0), margin: 10 }"
        }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "lines.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
        \(overlays.joined(separator: "\n"))
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
        // Each text in its third of the width; its two lines are the two bands of inked rows.
        for (third, alignment) in ["left", "centre", "right"].enumerated() {
            let columns = (third * 320 / 3)..<((third + 1) * 320 / 3)
            let inkedRows = (0..<120).filter { row in columns.contains { picture.y[row * 320 + $0] > 100 } }
            let bands = inkedRows.reduce(into: [[Int]]()) { bands, row in
                if let last = bands.last?.last, row == last + 1 { bands[bands.count - 1].append(row) } else { bands.append([row]) }
            }
            try #require(bands.count == 2, "\(alignment): \(bands.count) bands of ink rows, expected 2 lines")
            let extents = bands.map { rows -> (Int, Int) in
                let inked = columns.filter { column in rows.contains { picture.y[$0 * 320 + column] > 100 } }
                return (inked.min() ?? 0, inked.max() ?? 0)
            }
            let (hi, hello) = (extents[0], extents[1])
            print("\(alignment): \"Hi\" ink columns \(hi.0)...\(hi.1), \"Hello\" \(hello.0)...\(hello.1)")
            #expect(hello.1 - hello.0 > hi.1 - hi.0 + 20, "\(alignment): the second line is not the longer one")
            switch alignment {
            case "left": #expect(abs(hi.0 - hello.0) <= 2, "left: lines start at \(hi.0) and \(hello.0)")
            case "right": #expect(abs(hi.1 - hello.1) <= 2, "right: lines end at \(hi.1) and \(hello.1)")
            default: #expect(abs((hi.0 + hi.1) - (hello.0 + hello.1)) <= 4, "centre: lines centred at \(Double(hi.0 + hi.1) / 2) and \(Double(hello.0 + hello.1) / 2)")
            }
        }
    }

    /// Ink outside the font's box is drawn whole, as large as ffmpeg's drawtext (FreeType
    /// too) draws it: a first glyph reaching left of its origin (the hook of a serif "j"),
    /// and a glyph taller than the font's ascender (Vietnamese "Ẫ": tilde over circumflex).
    @Test(arguments: [("jump", "DejaVuSerif.ttf"), ("Ẫ", "DejaVuSans.ttf")])
    func glyphInkBeyondTheFontBoxIsNotCut(text: String, font: String) async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "overhang.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { text: "\(text)", font: \(font), size: 100px, color: "#ffffffff", anchor: top-left, margin: 20 }
        """)

        let output = dir.file("out.mp4")
        try await OverlayFixture.render(recipe: recipe, clip: clip, to: output)
        let picture = try DecodedMedia.yuvFrame(of: output, index: 15, width: 320, height: 240)
        let ink = try #require(Self.boundingBox(picture.y, width: 320, height: 240, above: 100), "no text drawn")
        let oracle = try await #require(try OverlayFixture.drawtextInk(text, font: font, size: 100, background: Self.dark), "drawtext drew nothing")
        print("\"\(text)\" \(font) 100 px: ink (\(ink.x), \(ink.y)) \(ink.width)x\(ink.height); drawtext's ink \(oracle.width)x\(oracle.height)")
        #expect(abs(ink.width - oracle.width) <= 2 && abs(ink.height - oracle.height) <= 2,
                "\"\(text)\": ink \(ink.width)x\(ink.height), drawtext's \(oracle.width)x\(oracle.height): cut at the edge of the text's box")
    }

    @Test func missingFontIsARecipeErrorNamingIt() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "nofont.yaml", contents: """
        version: 1
        overlays:
          - { text: "Hello", font: NoSuchFont-Bold.ttf, size: 40px, color: "#ffffffff" }
        """)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))

        let output = dir.file("out.mp4")
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])

        print("missing font: status \(result.status), stderr: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("NoSuchFont-Bold.ttf"), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == before, "a render left files behind")
    }

    /// U+0378 (unassigned) is in no installed font — not in DejaVuSans, the Noto fallbacks
    /// of `FontSet.fallbackPaths`, nor any font fontconfig knows: the chosen font's .notdef
    /// glyph (a box) is drawn in its place, the same every time. (The Runic "ᚠ" this test
    /// used before is now found by fontconfig in NotoSansRunic: see
    /// TextLayoutTests.fontconfigFindsAnInstalledFontForAnyScript.)
    @Test func glyphMissingFromEveryFontDrawsItsNotdefBoxDeterministically() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try await OverlayFixture.solidClip(dir.file("dark.mp4"), color: Self.dark)
        let recipe = try Fixtures.makeFile(in: dir.path, name: "unassigned.yaml", contents: """
        version: 1
        output: { video: { crf: 10 } }
        overlays:
          - { text: "A\\u0378B", font: DejaVuSans.ttf, size: 40px, color: "#ffffffff", anchor: top-left, margin: 10 }
        """)

        let first = dir.file("first.mp4"), second = dir.file("second.mp4")
        let firstResult = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", first, clip])
        let secondResult = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", second, clip])

        try #require(firstResult.status == 0 && secondResult.status == 0, "\(firstResult.stderr)\(secondResult.stderr)")
        let picture = try DecodedMedia.yuvFrame(of: first, index: 15, width: 320, height: 240)
        // Columns with ink, in runs: A, the .notdef box, B.
        let inked = (0..<320).map { column in (0..<240).contains { picture.y[$0 * 320 + column] > 100 } }
        var runs: [Range<Int>] = []
        for column in 0..<320 where inked[column] {
            if let last = runs.last, last.upperBound == column { runs[runs.count - 1] = last.lowerBound..<column + 1 } else { runs.append(column..<column + 1) }
        }
        print("A U+0378 B: ink column runs \(runs)")
        #expect(runs.count == 3, "expected A, a .notdef box and B: \(runs)")
        if runs.count == 3 {
            #expect(runs[1].count >= 12, "the middle glyph is only \(runs[1].count) px wide")
            // A box, not a blot: its inside is dark.
            let box = runs[1]
            let rows = (0..<240).filter { row in box.contains { picture.y[row * 320 + $0] > 100 } }
            if let top = rows.first, let bottom = rows.last, bottom - top > 8, box.count > 8 {
                let middle = picture.y[(top + bottom) / 2 * 320 + (box.lowerBound + box.upperBound) / 2]
                #expect(middle < 100, "the .notdef box is filled (luma \(middle) at its centre)")
            }
        }
        let same = try PSNR.compare(first, second)
        print("AᚠB: two renders compared: \(same)")
        #expect(same.average == .infinity && same.frames.count == 30, "two renders differ: \(same)")
    }

    // MARK: Helpers

    /// Where the anchor formula puts `content` on `canvas`: margin + (canvas − 2·margin −
    /// content)·u across and ·v down, u and v 0, 0.5 or 1 by the anchor's column and row.
    static func expectedOrigin(anchor: String, content: (Double, Double), margin: Double,
                               canvas: (Double, Double)) -> (x: Double, y: Double) {
        let u = anchor.hasSuffix("left") ? 0.0 : anchor.hasSuffix("right") ? 1 : 0.5
        let v = anchor.hasPrefix("top") ? 0.0 : anchor.hasPrefix("bottom") ? 1 : 0.5
        return (margin + (canvas.0 - 2 * margin - content.0) * u, margin + (canvas.1 - 2 * margin - content.1) * v)
    }

    /// The smallest rectangle holding every pixel of `plane` brighter than `threshold`.
    static func boundingBox(_ plane: [UInt8], width: Int, height: Int, above threshold: UInt8) -> (x: Int, y: Int, width: Int, height: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for row in 0..<height {
            for column in 0..<width where plane[row * width + column] > threshold {
                minX = min(minX, column); maxX = max(maxX, column)
                minY = min(minY, row); maxY = max(maxY, row)
            }
        }
        return maxX < 0 ? nil : (minX, minY, maxX - minX + 1, maxY - minY + 1)
    }

    /// The 4-connected regions of pixels brighter than `threshold`: each one's bounding box
    /// and pixel count.
    static func brightRegions(_ plane: [UInt8], width: Int, height: Int, above threshold: UInt8)
        -> [(box: (x: Int, y: Int, width: Int, height: Int), area: Int)] {
        var seen = [Bool](repeating: false, count: plane.count)
        var regions: [(box: (x: Int, y: Int, width: Int, height: Int), area: Int)] = []
        for start in plane.indices where plane[start] > threshold && !seen[start] {
            var stack = [start], area = 0
            var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
            seen[start] = true
            while let i = stack.popLast() {
                let x = i % width, y = i / width
                area += 1
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < width && ny < height {
                    let j = ny * width + nx
                    if plane[j] > threshold && !seen[j] { seen[j] = true; stack.append(j) }
                }
            }
            regions.append(((minX, minY, maxX - minX + 1, maxY - minY + 1), area))
        }
        return regions
    }

    /// Mean Y, U and V over a rectangle (even origin and size: chroma at half).
    static func mean(_ picture: (y: [UInt8], u: [UInt8], v: [UInt8]), x: Int, y: Int, width: Int, height: Int,
                     canvasWidth: Int) -> (y: Double, u: Double, v: Double) {
        func average(_ plane: [UInt8], _ stride: Int, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Double {
            let values = (y..<y + h).flatMap { row in (x..<x + w).map { Double(plane[row * stride + $0]) } }
            return values.reduce(0, +) / Double(max(1, values.count))
        }
        let chromaStride = (canvasWidth + 1) / 2
        return (average(picture.y, canvasWidth, x, y, width, height),
                average(picture.u, chromaStride, x / 2, y / 2, width / 2, height / 2),
                average(picture.v, chromaStride, x / 2, y / 2, width / 2, height / 2))
    }
}

/// Fixtures for these tests, made with the `ffmpeg` CLI.
fileprivate enum OverlayFixture {
    static let bt709Tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    static func ffmpeg(_ args: [String]) async throws {
        try await Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + args)
    }

    /// A 1 s, 30 fps clip of one colour, 320x240, BT.709 video range and tagged so.
    @discardableResult
    static func solidClip(_ path: String, color: String, width: Int = 320, height: Int = 240) async throws -> String {
        try await ffmpeg(["-f", "lavfi", "-i", "color=c=\(color):s=\(width)x\(height):r=30:d=1,format=rgb24",
                    "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                    "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0"] + bt709Tags + [path])
        return path
    }

    /// A 1 s, 30 fps testsrc2 clip, 320x240, BT.709: detail for a blend to be judged on.
    static func textureClip(_ path: String) async throws -> String {
        try await ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1",
                    "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                    "-c:v", "libx264", "-preset", "ultrafast"] + bt709Tags + [path])
        return path
    }

    /// `dropcut render --recipe recipe --output output clip`, which must succeed.
    static func render(recipe: String, clip: String, to output: String) async throws {
        let result = try await DropcutProcess.run(["render", "--recipe", recipe, "--output", output, clip])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// An opaque RGBA PNG of one colour.
    static func solidLogo(_ path: String, color: String, width: Int, height: Int) async throws {
        try await ffmpeg(["-f", "lavfi", "-i", "color=c=\(color):s=\(width)x\(height),format=rgba", "-frames:v", "1", path])
    }

    /// `source` stream-copied with its video tagged `rotate=degrees` (a display matrix).
    static func rotated(_ source: String, by degrees: Int, to path: String) async throws -> String {
        try await ffmpeg(["-i", source, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", path])
        return path
    }

    /// Every frame of `path`'s first video stream as yuv420p planes, in one decode.
    static func frames(of path: String, width: Int, height: Int) async throws -> [(y: [UInt8], u: [UInt8], v: [UInt8])] {
        let raw = NSTemporaryDirectory() + "dropcut-overlay-frames-\(UUID().uuidString).yuv"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try await ffmpeg(["-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw])
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let luma = width * height, chroma = ((width + 1) / 2) * ((height + 1) / 2), size = luma + 2 * chroma
        return stride(from: 0, to: data.count - size + 1, by: size).map { start in
            (Array(data[start..<start + luma]), Array(data[start + luma..<start + luma + chroma]),
             Array(data[start + luma + chroma..<start + size]))
        }
    }

    /// The size of the ink ffmpeg's drawtext (FreeType) draws for `text` in `font` (DejaVu) at
    /// `size` px, white on `background`, thresholded as the tests threshold dropcut's.
    static func drawtextInk(_ text: String, font: String = "DejaVuSans.ttf", size: Int, background: String) async throws -> (width: Int, height: Int)? {
        let raw = NSTemporaryDirectory() + "dropcut-drawtext-\(UUID().uuidString).gray"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try await ffmpeg(["-f", "lavfi", "-i", "color=c=\(background):s=320x240:d=0.04",
                    "-vf", "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/\(font):text=\(text):fontsize=\(size):fontcolor=white:x=20:y=20",
                    "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", raw])
        let plane = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        guard plane.count == 320 * 240 else { return nil }
        return OverlayRenderTests.boundingBox(plane, width: 320, height: 240, above: 100).map { ($0.width, $0.height) }
    }
}
