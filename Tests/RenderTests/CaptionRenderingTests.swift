import Foundation
import Logging
import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutRender

/// Captions drawn by the overlay renderer on a portrait 1080x1920 canvas: inside the safe
/// area whatever the text, set once per cue (not per frame), the lit word in its colour.
@Suite struct CaptionRenderingTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let size = PixelSize(width: 1080, height: 1920)
    /// The canvas's grey (8-bit codes): black outlines and white text both change it.
    static let grey: UInt8 = 110

    static func time(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds, preferredTimescale: 600) }

    static func cue(_ start: Double, _ end: Double, _ text: String, words: [CaptionWord] = [],
                    placement: CuePlacement = .automatic) -> CaptionCue {
        CaptionCue(timeRange: TimeRange(start: time(start), end: time(end)), text: text, words: words, placement: placement)
    }

    static func layer(_ track: CaptionTrack) -> OverlayLayer {
        OverlayLayer(content: .captions(track), anchor: .bottom, margin: 0, timeRange: TimeRange(start: 0, duration: 60))
    }

    /// A grey canvas with the renderer's layers drawn at `time`: its three planes.
    static func draw(_ renderer: OverlayRenderer, at time: MediaTime) throws -> [[UInt8]] {
        let canvas = try VideoFrame(width: size.width, height: size.height, pixelFormat: .yuv420p)
        for plane in 0..<3 {
            let rows = plane == 0 ? size.height : size.height / 2, columns = plane == 0 ? size.width : size.width / 2
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns { bytes[row * stride + column] = plane == 0 ? grey : 128 } }
            }
        }
        try renderer.draw(at: time, into: canvas)
        return (0..<3).map { plane in
            let rows = plane == 0 ? size.height : size.height / 2, columns = plane == 0 ? size.width : size.width / 2
            var values = [UInt8](repeating: 0, count: rows * columns)
            canvas.withPlane(plane) { bytes, stride in
                for row in 0..<rows { for column in 0..<columns { values[row * columns + column] = bytes[row * stride + column] } }
            }
            return values
        }
    }

    static let longText = """
        This cue is far too long for two lines at the style's size: it goes on and on about the weather, \
        the traffic on the bridge, the price of bread, what the neighbours said on Tuesday and why the \
        river was so high this spring, and it still has more to say after that, much more, until the end.
        """

    /// Whether `ranges` (lines' UTF-8 ranges, top to bottom) set all of `text`: from its
    /// first byte to its last, in order, nothing between two lines but the newline that
    /// ended the first.
    static func coversAll(_ ranges: [Range<Int>], _ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard let first = ranges.first, let last = ranges.last, first.lowerBound == 0, last.upperBound == utf8.count else { return false }
        for (line, next) in zip(ranges, ranges.dropFirst()) {
            guard line.upperBound <= next.lowerBound else { return false }
            let between = String(decoding: utf8[line.upperBound..<next.lowerBound], as: UTF8.self)
            guard between.allSatisfy(\.isNewline) && between.count <= 1 else { return false }
        }
        return true
    }

    /// Two cues, one very long, on a 9:16 frame with at most two lines: every pixel drawn
    /// (text, black outline, the box) lies inside the portrait safe area; the long cue is
    /// set smaller and, at half the size still too long for two lines, drawn whole in as
    /// many lines as it takes — nothing cut; where the cues overlap in time both show, the
    /// earlier one lower.
    @Test func everyDrawnPixelStaysInsideTheSafeArea() throws {
        var style = CaptionStyle(fontPaths: [Self.dejaVu], maxLines: 2)
        style.background = Color(red: 0, green: 0, blue: 0, alpha: 0.5)
        let track = CaptionTrack(cues: [Self.cue(0, 3, "A short first cue"), Self.cue(2, 6, Self.longText)], style: style)
        let renderer = try OverlayRenderer(layers: [Self.layer(track)], renderSize: Self.size)
        let safe = style.safeRect(on: Self.size)
        print("safe area on 1080x1920: x \(safe.x)..<\(safe.maxX), y \(safe.y)..<\(safe.maxY)")
        for seconds in [1.0, 2.5, 4.0] {
            let started = Date()
            let planes = try Self.draw(renderer, at: Self.time(seconds))
            let elapsed = Date().timeIntervalSince(started)
            var changed = 0, outside = 0
            for row in 0..<Self.size.height {
                for column in 0..<Self.size.width {
                    let chroma = (row / 2) * (Self.size.width / 2) + column / 2
                    guard planes[0][row * Self.size.width + column] != Self.grey || planes[1][chroma] != 128 || planes[2][chroma] != 128 else { continue }
                    changed += 1
                    if row < safe.y || row >= safe.maxY || column < safe.x || column >= safe.maxX { outside += 1 }
                }
            }
            print("t=\(seconds): \(changed) pixels drawn, \(outside) outside the safe area (\(Int(elapsed * 1000)) ms)")
            #expect(changed > 5000, "t=\(seconds): nothing drawn")
            #expect(outside == 0, "t=\(seconds): \(outside) pixels outside the safe area")
        }
        // The long cue alone: half size, every word, more lines than `maxLines`.
        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: Self.size, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: Self.size))
        try node.place(at: Self.time(4))
        let long = try #require(node.drawn.first)
        let em = style.size * Double(Self.size.height)
        print("long cue: \(long.lineCount) lines at \(long.pixelSize) px (style \(em) px)")
        #expect(long.lineCount > 2 && abs(long.pixelSize - em / 2) < 0.001)
        #expect(Self.coversAll(long.lineRanges, Self.longText), "lines \(long.lineRanges) of \(Self.longText.utf8.count) bytes")
        // Both at 2.5 s: the earlier cue lower.
        try node.place(at: Self.time(2.5))
        try #require(node.drawn.count == 2)
        print("stacked: cue 0 at y \(node.drawn[0].y), cue 1 at y \(node.drawn[1].y) height \(node.drawn[1].raster.height)")
        #expect(node.drawn[0].shown.cue == 0 && node.drawn[0].y >= node.drawn[1].y + node.drawn[1].raster.height)
    }

    /// A cue longer than one line but fitting two at a smaller size is shrunk, not cut.
    @Test func aCueThatFitsSmallerIsShrunkNotCut() throws {
        let text = "Words that need a little more room"
        let track = CaptionTrack(cues: [Self.cue(0, 2, text)], style: CaptionStyle(fontPaths: [Self.dejaVu], size: 0.07, maxLines: 2))
        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: Self.size, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: Self.size))
        try node.place(at: Self.time(1))
        let drawn = try #require(node.drawn.first)
        print("shrunk: \(drawn.lineCount) lines at \(drawn.pixelSize) px of \(0.07 * 1920)")
        #expect(Self.coversAll(drawn.lineRanges, text) && drawn.lineCount == 2 && drawn.pixelSize < 0.07 * 1920 && drawn.pixelSize > 0.035 * 1920)
    }

    /// Cues of three and four lines as written, with `maxLines` 2: every line drawn, at the
    /// style's size (the author's lines do not count against `maxLines`, which limits what
    /// wrapping adds) — the layout has the cue's lines, each the text the author put on it,
    /// and the picture has ink in that many bands of rows. No warning: nothing was shrunk.
    @Test func cuesOfThreeAndFourLinesKeepEveryLine() throws {
        let texts = ["First line\nsecond line\nthird line", "One\nTwo\nThree\nFour, the last"]
        let style = CaptionStyle(fontPaths: [Self.dejaVu], maxLines: 2)
        let track = CaptionTrack(cues: [Self.cue(0, 1, texts[0]), Self.cue(1, 2, texts[1])], style: style)
        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: Self.size, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: Self.size))
        let em = style.size * Double(Self.size.height)
        for (n, text) in texts.enumerated() {
            try node.place(at: Self.time(Double(n) + 0.5))
            let drawn = try #require(node.drawn.first)
            let written = text.split(separator: "\n").map(String.init)
            let utf8 = Array(text.utf8)
            let lines = drawn.lineRanges.map { String(decoding: utf8[$0], as: UTF8.self) }
            // Bands of rows with ink (the outline is black, the text white: both leave the grey).
            let raster = drawn.raster
            var bands = 0, inBand = false
            for row in 0..<raster.height {
                let inked = (0..<raster.width).contains { raster.alpha[row * raster.width + $0] > 0.5 }
                if inked && !inBand { bands += 1 }
                inBand = inked
            }
            print("\(written.count) written lines: drawn \(lines) at \(drawn.pixelSize) px, \(bands) bands of ink")
            #expect(lines == written)
            #expect(drawn.lineCount == written.count && bands == written.count)
            #expect(Self.coversAll(drawn.lineRanges, text))
            #expect(drawn.pixelSize == em)
        }
        #expect(node.shrinkWarning == nil)
    }

    /// A cue of ten written lines on a small frame (320x240, a 48 px em: ten lines need
    /// twice the safe area's height) is set smaller — below half the style's size, as it
    /// must be to fit — with all ten lines, inside the safe area; the warning naming it and
    /// the size used goes to the export's log once, though a second shrunk cue follows.
    @Test func aTenLineCueOnASmallFrameIsShrunkWithEveryLineAndSaidOnce() throws {
        let output = PixelSize(width: 320, height: 240)
        let ten = (1...10).map { "Line \($0) of ten" }.joined(separator: "\n")
        let style = CaptionStyle(fontPaths: [Self.dejaVu], size: 0.2, maxLines: 2)
        let track = CaptionTrack(cues: [Self.cue(0, 1, ten), Self.cue(1, 2, "Another cue\nwith\nfour\nlines")], style: style)
        let recorder = LogRecorder()
        let logger = Logger(label: "dropcut.tests") { _ in RecordingLogHandler(recorder: recorder) }
        let renderer = try OverlayRenderer(layers: [Self.layer(track)], renderSize: output, logger: logger)
        let canvas = try VideoFrame(width: output.width, height: output.height, pixelFormat: .yuv420p)
        for seconds in [0.5, 0.6, 1.5] { try renderer.draw(at: Self.time(seconds), into: canvas) }

        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: output, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: output))
        try node.place(at: Self.time(0.5))
        let drawn = try #require(node.drawn.first)
        let safe = style.safeRect(on: output)
        let em = style.size * Double(output.height)
        print("ten lines: \(drawn.lineCount) lines at \(drawn.pixelSize) px (style \(em) px), \(drawn.raster.width)x\(drawn.raster.height) in a safe area of \(safe.width)x\(safe.height)")
        #expect(drawn.lineCount == 10 && Self.coversAll(drawn.lineRanges, ten))
        #expect(drawn.pixelSize < em / 2)
        #expect(drawn.raster.height <= safe.height && drawn.raster.width <= safe.width)
        #expect(drawn.y >= safe.y && drawn.y + drawn.raster.height <= safe.maxY)
        let warning = try #require(node.shrinkWarning)
        print("warning: \(warning)")
        #expect(warning.contains("Line 1 of ten") && warning.contains("\((drawn.pixelSize * 10).rounded() / 10) px"))

        let warnings = recorder.messages.filter { $0.level == .warning }
        print("logged: \(recorder.messages.map { "\($0.level): \($0.message)" })")
        #expect(warnings.count == 1, "\(warnings.count) warnings")
        #expect(warnings.first?.message == warning)
    }

    /// The raster is made when a cue starts and reused — the same object, nothing set
    /// again — on every frame of it; the next cue gets a new one.
    @Test func aCueIsRasterisedOnceNotPerFrame() throws {
        let track = CaptionTrack(cues: [Self.cue(0, 2, "First"), Self.cue(2, 4, "Second")], style: CaptionStyle(fontPaths: [Self.dejaVu]))
        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: Self.size, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: Self.size))
        try node.place(at: Self.time(0.1))
        let first = try #require(node.drawn.first?.raster)
        var frames = 0
        let started = Date()
        for frame in 4..<59 {   // the rest of the first cue at 30 fps
            try node.place(at: MediaTime(value: Int64(frame), timescale: 30))
            #expect(node.drawn.first?.raster === first)
            frames += 1
        }
        let perFrame = Date().timeIntervalSince(started) / Double(frames)
        print("same cue: \(frames) frames, \(node.rasterisations) rasterisation(s), \(String(format: "%.1f", perFrame * 1e6)) µs a frame")
        #expect(node.rasterisations == 1)
        try node.place(at: Self.time(2.5))
        let second = try #require(node.drawn.first?.raster)
        #expect(second !== first && node.rasterisations == 2)
        try node.place(at: Self.time(5))
        #expect(node.drawn.isEmpty && node.box == nil)
        // The node finds the same cues as the model.
        var found: [PreparedCaptions.Shown] = []
        for seconds in [0.0, 1.99, 2.0, 3.5, 4.0] {
            found.removeAll()
            node.active(at: Self.time(seconds), into: &found)
            #expect(found.map(\.cue) == track.activeCues(at: Self.time(seconds)))
        }
    }

    /// With a highlight colour, only the lit word's pixels take it: "one two three" with
    /// "two" lit has red ink only in the columns of the middle word (the words told apart
    /// by the gaps in the ink), none in the others; when "three" lights, the cue is set
    /// again and the red moves to the last word.
    @Test func highlightColoursOnlyTheLitWord() throws {
        let words = [CaptionWord(textRange: 0..<3, start: Self.time(0)), CaptionWord(textRange: 4..<7, start: Self.time(1)),
                     CaptionWord(textRange: 8..<13, start: Self.time(2))]
        let style = CaptionStyle(fontPaths: [Self.dejaVu], color: .white, highlightColor: Color(red: 1, green: 0, blue: 0, alpha: 1), outline: 0)
        let track = CaptionTrack(cues: [Self.cue(0, 3, "one two three", words: words)], style: style)
        let renderer = try OverlayRenderer(layers: [Self.layer(track)], renderSize: Self.size)
        for (seconds, lit) in [(1.5, 1), (2.5, 2)] {
            let planes = try Self.draw(renderer, at: Self.time(seconds))
            // Ink columns (luma well off the grey: white text is brighter, red darker) grouped
            // into words by gaps of 24 px (DejaVuSans's space is 30 px at this em, the gaps
            // between letters under 20).
            let inked = (0..<Self.size.width).filter { column in
                (0..<Self.size.height).contains { abs(Int(planes[0][$0 * Self.size.width + column]) - Int(Self.grey)) > 20 }
            }
            var wordColumns: [ClosedRange<Int>] = []
            for column in inked {
                if let last = wordColumns.last, column - last.upperBound < 24 {
                    wordColumns[wordColumns.count - 1] = last.lowerBound...column
                } else {
                    wordColumns.append(column...column)
                }
            }
            try #require(wordColumns.count == 3, "t=\(seconds): \(wordColumns.count) words of ink: \(wordColumns)")
            // Red at a chroma site: Cr well above neutral.
            var redPerWord = [0, 0, 0], redElsewhere = 0
            let chromaWidth = Self.size.width / 2
            for row in 0..<(Self.size.height / 2) {
                for column in 0..<chromaWidth where planes[2][row * chromaWidth + column] > 170 {
                    if let word = wordColumns.firstIndex(where: { $0.overlaps(2 * column...(2 * column + 1)) }) {
                        redPerWord[word] += 1
                    } else {
                        redElsewhere += 1
                    }
                }
            }
            print("t=\(seconds): words at columns \(wordColumns); red chroma sites per word \(redPerWord), elsewhere \(redElsewhere)")
            #expect(redPerWord[lit] > 100, "the lit word is not red")
            #expect(redPerWord.enumerated().allSatisfy { $0.offset == lit || $0.element == 0 } && redElsewhere == 0)
        }
    }

    /// WebVTT settings are honoured inside the safe area and never outside it: `line:0%`
    /// would put the box on the frame's top edge (it goes to the safe top), `position:0%`
    /// with `align:start` on the left edge (the safe left); a right-to-left cue's `start`
    /// is its right side.
    @Test func cueSettingsAreClampedToTheSafeArea() {
        let safe = CaptionStyle.SafeArea.automatic(for: Self.size).rect(on: Self.size)
        func item(_ placement: CuePlacement, rtl: Bool = false) -> CaptionPlacer.Item {
            CaptionPlacer.Item(width: 301, height: 120, placement: placement, isRightToLeft: rtl, lineHeight: 60)
        }
        let placed = CaptionPlacer.place([
            item(CuePlacement(line: .percent(0), position: 0, alignment: .start)),
            item(CuePlacement(line: .percent(50), position: 50, alignment: .center)),
            item(CuePlacement(line: .number(-1), alignment: .start), rtl: true),
            item(CuePlacement(line: .percent(100), position: 100, alignment: .end)),
        ], safe: safe, position: .bottom, output: Self.size)
        print("placed: \(placed) in \(safe)")
        #expect(placed[0].x == safe.x && placed[0].y == safe.y)
        #expect(abs(placed[1].x - (540 - 150)) <= 2 && abs(placed[1].y - 960) <= 2)
        #expect(placed[2].x + 301 <= safe.maxX && placed[2].x + 301 >= safe.maxX - 2 && placed[2].y + 120 <= safe.maxY && placed[2].y + 120 >= safe.maxY - 2)
        #expect(placed[3].x + 301 <= safe.maxX && placed[3].y + 120 <= safe.maxY)
        #expect(placed.allSatisfy { $0.x % 2 == 0 && $0.y % 2 == 0 && $0.x >= safe.x && $0.y >= safe.y })
    }

    /// WebVTT's line and position alignment (`line:50%,center`, `position:50%,line-left`),
    /// every value, on a 1920x1080 frame where the safe area does not move the boxes: a
    /// 300x120 box at `line:50%` has its top (start), middle (center) or bottom (end) on
    /// row 540; at `position:50%` its left (line-left), centre or right (line-right) on
    /// column 960. Position alignment `auto` follows `align` — left and right as named,
    /// center centred, start the side lines start on (line-left for English, line-right
    /// for Arabic), end the other — and is what a position without alignment gets. A line
    /// number places by whole lines and ignores the line alignment; without a position
    /// the box goes against the safe edge its position alignment names.
    @Test func lineAndPositionAlignmentPlaceTheNamedEdge() {
        let output = PixelSize(width: 1920, height: 1080)
        let safe = CaptionStyle.SafeArea.automatic(for: output).rect(on: output)
        func corner(_ placement: CuePlacement, rtl: Bool = false) -> (x: Int, y: Int) {
            let item = CaptionPlacer.Item(width: 300, height: 120, placement: placement, isRightToLeft: rtl, lineHeight: 60)
            return CaptionPlacer.place([item], safe: safe, position: .bottom, output: output)[0]
        }
        // Line alignment, with a percentage.
        let rows: [(CuePlacement.LineAlignment, Int)] = [(.start, 540), (.center, 480), (.end, 420)]
        for (alignment, top) in rows {
            let placed = corner(CuePlacement(line: .percent(50), position: 50, lineAlignment: alignment))
            #expect(placed.y == top, "line:50%,\(alignment.rawValue): top \(placed.y), expected \(top)")
        }
        // With a line number: the same row whatever the line alignment.
        let numbered = [CuePlacement.LineAlignment.start, .center, .end].map { corner(CuePlacement(line: .number(2), lineAlignment: $0)).y }
        #expect(numbered == [safe.y + 120, safe.y + 120, safe.y + 120], "line:2 rows \(numbered)")
        // Position alignment, explicit: it wins over `align`.
        let explicit: [(CuePlacement.PositionAlignment, Int)] = [(.lineLeft, 960), (.center, 810), (.lineRight, 660)]
        for (alignment, left) in explicit {
            for align in [CuePlacement.Alignment.start, .center, .end, .left, .right] {
                for rtl in [false, true] {
                    let placed = corner(CuePlacement(line: .percent(50), position: 50, alignment: align, positionAlignment: alignment), rtl: rtl)
                    #expect(placed.x == left, "position:50%,\(alignment.rawValue) align:\(align.rawValue) rtl \(rtl): left \(placed.x), expected \(left)")
                }
            }
        }
        // Position alignment auto: from `align` and the text's direction.
        let automatic: [(CuePlacement.Alignment, Bool, Int)] = [
            (.left, false, 960), (.left, true, 960), (.right, false, 660), (.right, true, 660),
            (.center, false, 810), (.center, true, 810),
            (.start, false, 960), (.start, true, 660), (.end, false, 660), (.end, true, 960),
        ]
        for (align, rtl, left) in automatic {
            let placed = corner(CuePlacement(line: .percent(50), position: 50, alignment: align, positionAlignment: .auto), rtl: rtl)
            #expect(placed.x == left, "position:50% align:\(align.rawValue) rtl \(rtl): left \(placed.x), expected \(left)")
            #expect(CuePlacement(position: 50, alignment: align) == CuePlacement(position: 50, alignment: align, positionAlignment: .auto))
        }
        // No position: against the safe edge the alignment names.
        let edges: [(CuePlacement.PositionAlignment, Int)] = [
            (.lineLeft, safe.x), (.center, safe.x + (safe.width - 300) / 2), (.lineRight, safe.maxX - 300),
        ]
        for (alignment, left) in edges {
            let placed = corner(CuePlacement(line: .percent(50), positionAlignment: alignment))
            #expect(abs(placed.x - left) <= 1 && placed.x % 2 == 0, "no position, \(alignment.rawValue): left \(placed.x), expected \(left)")
        }
    }

    /// WebVTT's `align:start` is the side a line starts on: the left for English, the right
    /// for Arabic (its paragraph runs right to left) — the cue box against that side of
    /// the safe area.
    @Test func startAlignmentFollowsTheTextDirection() throws {
        let start = CuePlacement(alignment: .start)
        let track = CaptionTrack(cues: [Self.cue(0, 1, "Hello there", placement: start), Self.cue(1, 2, "مرحبا بالعالم", placement: start)],
                                 style: CaptionStyle(fontPaths: [Self.dejaVu]))
        let node = try PreparedCaptions(layer: Self.layer(track), track: track, renderSize: Self.size, hlg: nil,
                                        limit: OverlayLimits.largestPicture(on: Self.size))
        let safe = track.style.safeRect(on: Self.size)
        try node.place(at: Self.time(0.5))
        let latin = try #require(node.drawn.first)
        try node.place(at: Self.time(1.5))
        let arabic = try #require(node.drawn.first)
        print("start-aligned: latin x \(latin.x)..<\(latin.x + latin.raster.width), arabic x \(arabic.x)..<\(arabic.x + arabic.raster.width), safe \(safe.x)..<\(safe.maxX)")
        #expect(latin.x == safe.x)
        #expect(arabic.x + arabic.raster.width <= safe.maxX && arabic.x + arabic.raster.width >= safe.maxX - 2)
    }

    /// A style out of range is refused with its field named, before anything is drawn.
    @Test func anOutOfRangeStyleIsRefused() {
        let track = CaptionTrack(cues: [Self.cue(0, 1, "x")], style: CaptionStyle(fontPaths: [Self.dejaVu], size: 50))
        #expect(throws: OverlayRenderer.PreparationError.self) {
            try OverlayRenderer(layers: [Self.layer(track)], renderSize: Self.size)
        }
        do {
            _ = try OverlayRenderer(layers: [Self.layer(track)], renderSize: Self.size)
        } catch {
            print("refused: \(error)")
            #expect("\(error)".contains("size"))
        }
    }
}

/// What a `Logger` was told, kept for a test to read.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [(level: Logger.Level, message: String)] = []
    var messages: [(level: Logger.Level, message: String)] { lock.withLock { kept } }
    func append(_ level: Logger.Level, _ message: String) { lock.withLock { kept.append((level, message)) } }
}

/// A swift-log handler that hands every message to a `LogRecorder`.
struct RecordingLogHandler: LogHandler {
    let recorder: LogRecorder
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { recorder.append(event.level, event.message.description) }
}
