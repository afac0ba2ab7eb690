/// Sets a text in lines, as a text engine does (Pango, CoreText): paragraphs at each
/// newline; in each, the bidi levels (FriBidi), runs of one level, one script and one font
/// (the first of the `FontSet` that has a whole character cluster), each shaped with
/// HarfBuzz in its direction; lines broken where Unicode allows (ICU) to fit a
/// width, greedily (and for captions then balanced, `Wrap.balanced`); then each line's runs put in visual order (UAX #9 rule L2) and placed
/// left to right, aligned in the layout box.
///
/// Shaping is done once per paragraph and the lines take the glyphs of their clusters, so
/// a break (always between clusters) does not change a glyph — a break at a space never
/// does; a break inside a word, the last resort, keeps the joined forms either side.
enum TextLayouter {
    /// Why a text was not set.
    enum Failure: Error {
        /// A font cannot be set at the size.
        case font(FontFace.LoadError)
        /// HarfBuzz could not allocate a buffer.
        case outOfMemory
    }

    /// How a paragraph too wide for `maxWidth` is broken into lines.
    enum Wrap: Sendable, Equatable {
        /// As many words on each line as fit (CSS, Pango, CoreText): overlays' text.
        case greedy
        /// Greedy first, then the lines' widths evened out as libass's default
        /// `WrapStyle: 0` ("smart wrapping, lines evenly broken") does, so a caption drawn
        /// by dropcut breaks after the same words as the same cue shown by ffmpeg's
        /// `subtitles` filter, mpv or VLC: for each pair of neighbouring lines, top to
        /// bottom, the first one's last word moves to the start of the second when that
        /// makes the two widths closer; passes repeat until nothing moves. The number of
        /// lines never changes, and only breaks the wrapping made move — never a newline
        /// of the text, nor a break inside a word too wide for a line.
        case balanced
    }

    /// Sets `text` in `fonts` at an em of `pixelSize` (1 ... 16384 pixels), lines at most
    /// `maxWidth` pixels wide when given (else only newlines break) and broken by `wrap`,
    /// line height the first font's times `lineSpacing`. `emphasis` says which text is bold
    /// or italic (by the UTF-8 offset of a grapheme's start): it is set in the font's bold
    /// or italic face (`FontSet.variant`), shaped as such.
    static func layout(_ text: String, fonts: FontSet, pixelSize: Double, maxWidth: Int? = nil, wrap: Wrap = .greedy,
                       alignment: TextLayout.Alignment, lineSpacing: Double = 1,
                       emphasis: ((Int) -> (bold: Bool, italic: Bool))? = nil) throws(Failure) -> TextLayout {
        if let error = fonts.setPixelSize(pixelSize) { throw .font(error) }
        guard let buffer = ShapingBuffer(language: fonts.language) else { throw .outOfMemory }
        let metrics = fonts.faces[0].lineMetrics
        let spacing = lineSpacing.isFinite ? min(4, max(0.5, lineSpacing)) : 1
        let lineHeight = max(1, Int((Double(metrics.height) * spacing).rounded()))

        // Every code point, its UTF-8 offset, whether it starts a grapheme, and the font of
        // its grapheme.
        var scalars: [UInt32] = [], offsets: [Int] = [], startsGrapheme: [Bool] = [], fontOf: [Int] = []
        var offset = 0
        for character in text {
            var font = fonts.font(for: character.unicodeScalars)
            if let emphasis {
                let style = emphasis(offset)
                if style.bold || style.italic { font = fonts.variant(of: font, bold: style.bold, italic: style.italic) }
            }
            for (n, scalar) in character.unicodeScalars.enumerated() {
                scalars.append(scalar.value)
                offsets.append(offset)
                startsGrapheme.append(n == 0)
                fontOf.append(font)
                offset += UTF8.width(scalar)
            }
        }
        offsets.append(offset)
        let context = Context(fonts: fonts, buffer: buffer, scalars: scalars, offsets: offsets,
                              startsGrapheme: startsGrapheme, fontOf: fontOf,
                              maxWidth: maxWidth.map { max(1, $0) << 6 }, wrap: wrap)

        var lines: [TextLayout.Line] = []
        var start = 0
        for (index, scalar) in scalars.enumerated() where isParagraphSeparator(scalar) {
            // CR LF ends one paragraph.
            if scalar == 0x0A, index > 0, scalars[index - 1] == 0x0D { start = index + 1; continue }
            lines += context.setParagraph(start..<index)
            start = index + 1
        }
        lines += context.setParagraph(start..<scalars.count)

        var layout = TextLayout(lines: lines, pixelSize: pixelSize, lineHeight: lineHeight, ascender: metrics.ascender)
        // Aligned in whole pixels in the box of the widest line.
        layout.align(alignment)
        return layout
    }

    static func isParagraphSeparator(_ scalar: UInt32) -> Bool {
        scalar == 0x0A || scalar == 0x0D || scalar == 0x2029
    }

    /// The text and what is known of each code point, while its paragraphs are set.
    private struct Context {
        let fonts: FontSet
        let buffer: ShapingBuffer
        let scalars: [UInt32]
        /// UTF-8 offset of each code point, and of the end.
        let offsets: [Int]
        let startsGrapheme: [Bool]
        let fontOf: [Int]
        /// 26.6; nil: no wrapping.
        let maxWidth: Int?
        let wrap: Wrap

        /// A run of one level, script and font, shaped: glyphs in visual order, clusters
        /// relative to the paragraph.
        struct Run {
            var range: Range<Int>
            var level: Int8
            var font: Int
            var glyphs: [ShapingBuffer.Glyph]
        }

        /// The lines of the paragraph `range` of `scalars` (an empty paragraph: one empty line).
        func setParagraph(_ range: Range<Int>) -> [TextLayout.Line] {
            let paragraph = Array(scalars[range])
            let count = paragraph.count
            let base = range.lowerBound
            guard count > 0 else {
                return [TextLayout.Line(glyphs: [], width: 0, offset: 0, textRange: offsets[base]..<offsets[base], isRightToLeft: false)]
            }
            let bidi = BidiParagraph(paragraph)
            let runs = shapeRuns(paragraph, base: base, levels: bidi.levels)

            // The advance of each cluster, on its first code point.
            var advances = [Int](repeating: 0, count: count)
            for run in runs {
                for glyph in run.glyphs where glyph.cluster >= 0 && glyph.cluster < count { advances[glyph.cluster] += glyph.advance }
            }
            let breaks = LineBreakOpportunities.after(paragraph)
            var ranges = breakLines(count: count, base: base, advances: advances, breaks: breaks)
            if wrap == .balanced, let maxWidth, ranges.count > 1 {
                balance(&ranges, base: base, advances: advances, breaks: breaks, maxWidth: maxWidth)
            }
            return ranges.map { line in
                makeLine(line.range, runs: runs, paragraph: paragraph, base: base, rightToLeft: bidi.isRightToLeft)
            }
        }

        /// Splits the paragraph into runs of one level, one script and one font, changing
        /// only at grapheme starts (a cluster is never split), and shapes each.
        private func shapeRuns(_ paragraph: [UInt32], base: Int, levels: [Int8]) -> [Run] {
            let count = paragraph.count
            // Scripts: Common and Inherited characters (spaces, digits, marks) take the script
            // of the text before them, or at the start the first one after.
            var scripts = paragraph.map(ShapingBuffer.script(of:))
            var last: UInt32 = scripts.first { $0 != 0 } ?? 0
            for i in 0..<count {
                if scripts[i] == 0 { scripts[i] = last } else { last = scripts[i] }
            }
            var runs: [Run] = []
            var runStart = 0
            func key(_ i: Int) -> (Int8, UInt32, Int) { (levels[i], scripts[i], fontOf[base + i]) }
            for i in 1...count {
                guard i == count || (startsGrapheme[base + i] && key(i) != key(runStart)) else { continue }
                runs.append(Run(range: runStart..<i, level: levels[runStart], font: fontOf[base + runStart], glyphs: []))
                runStart = i
            }
            paragraph.withUnsafeBufferPointer { text in
                for r in runs.indices {
                    let run = runs[r]
                    runs[r].glyphs = buffer.shape(text, run: run.range, font: fonts.faces[run.font],
                                                  rightToLeft: run.level & 1 == 1, script: scripts[run.range.lowerBound])
                }
            }
            return runs
        }

        /// Greedy line filling: as many clusters as fit `maxWidth` (nil: all), the line ending
        /// at the last break opportunity; spaces at the end of a line hang (they do not count). A
        /// word wider than a line is broken between graphemes; a grapheme wider than a line
        /// gets a line of its own. Ranges are relative to the paragraph; `soft`: the line
        /// starts at a break opportunity the filling chose (not after a line separator, nor
        /// inside a word too wide for a line) — the breaks `balance` may move.
        private func breakLines(count: Int, base: Int, advances: [Int],
                                breaks: [LineBreakOpportunities.Kind]) -> [(range: Range<Int>, soft: Bool)] {
            var lines: [(range: Range<Int>, soft: Bool)] = []
            var soft = false
            var start = 0, width = 0, lastBreak: Int?
            var i = 0
            while i < count {
                // A line separator (U+2028) or vertical tab ends the line, as a newline does.
                if i < breaks.count, breaks[i] == .must, i + 1 < count {
                    lines.append((start..<(i + 1), soft))
                    soft = false
                    start = i + 1
                    i = start
                    width = 0
                    lastBreak = nil
                    continue
                }
                width += advances[i]
                let blank = Unicode.Scalar(scalars[base + i])?.properties.isWhitespace ?? false
                if let maxWidth, width > maxWidth, !blank {
                    var end: Int
                    let atOpportunity: Bool
                    if let lastBreak, lastBreak > start {
                        end = lastBreak
                        atOpportunity = true
                    } else {
                        atOpportunity = false
                        // No opportunity on the line: before this grapheme, or after it when
                        // it is the line's first.
                        end = i
                        while end > start, !startsGrapheme[base + end] { end -= 1 }
                        if end == start {
                            end = i + 1
                            while end < count, !startsGrapheme[base + end] { end += 1 }
                        }
                    }
                    lines.append((start..<end, soft))
                    soft = atOpportunity
                    start = end
                    i = end
                    width = 0
                    lastBreak = nil
                    continue
                }
                if i < breaks.count, breaks[i] == .allowed, i + 1 < count { lastBreak = i + 1 }
                i += 1
            }
            lines.append((start..<count, soft))
            return lines
        }

        /// libass's rebalancing (`WrapStyle: 0`, ass_render.c's `wrap_lines_rebalance`) of
        /// greedy lines, in place. For each pair of neighbouring lines whose break the
        /// filling chose, top to bottom, the first line's last word — from its last break
        /// opportunity to its end, with the spaces after it — moves to the start of the
        /// second when the two widths are then strictly closer; passes repeat until one
        /// moves nothing. Words only ever move down, so it ends. A line of one word keeps
        /// it. Widths are what the line filling measures: the advances, trailing spaces
        /// hanging (libass measures ink, first glyph's left to last glyph's right: the
        /// same but for two side bearings, less than a pixel at caption sizes).
        ///
        /// libass has no width check here; with widths that add up, a move that brings
        /// the widths closer leaves the second line narrower than the first was, so it
        /// cannot overflow — the check below only guards the odd case (runs of spaces)
        /// where hanging spaces make the sums not add up.
        private func balance(_ lines: inout [(range: Range<Int>, soft: Bool)], base: Int, advances: [Int],
                             breaks: [LineBreakOpportunities.Kind], maxWidth: Int) {
            // Prefix sums of the advances: any span's width in one subtraction.
            var sums = [Int](repeating: 0, count: advances.count + 1)
            for i in advances.indices { sums[i + 1] = sums[i] + advances[i] }
            func width(_ range: Range<Int>) -> Int {
                var end = range.upperBound
                while end > range.lowerBound, Unicode.Scalar(scalars[base + end - 1])?.properties.isWhitespace ?? false { end -= 1 }
                return sums[end] - sums[range.lowerBound]
            }
            var moved = true
            while moved {
                moved = false
                for k in 0..<(lines.count - 1) where lines[k + 1].soft {
                    let first = lines[k].range, second = lines[k + 1].range
                    // The last break opportunity inside the first line: its last word starts there.
                    var word = first.upperBound - 1
                    while word > first.lowerBound, !(word - 1 < breaks.count && breaks[word - 1] == .allowed) { word -= 1 }
                    guard word > first.lowerBound else { continue }
                    let before = abs(width(first) - width(second))
                    let newFirst = first.lowerBound..<word, newSecond = word..<second.upperBound
                    let after = abs(width(newFirst) - width(newSecond))
                    guard after < before, width(newSecond) <= maxWidth else { continue }
                    lines[k].range = newFirst
                    lines[k + 1].range = newSecond
                    moved = true
                }
            }
        }

        /// One line: the glyphs of its clusters from each run it crosses (trailing spaces
        /// dropped), runs reordered by rule L2 — from the highest level to the lowest odd
        /// one, every sequence of runs at that level or above reversed — and placed.
        private func makeLine(_ line: Range<Int>, runs: [Run], paragraph: [UInt32], base: Int, rightToLeft: Bool) -> TextLayout.Line {
            var end = line.upperBound
            while end > line.lowerBound, Unicode.Scalar(paragraph[end - 1])?.properties.isWhitespace ?? false { end -= 1 }
            let visible = line.lowerBound..<end
            var pieces: [(level: Int8, font: Int, glyphs: [ShapingBuffer.Glyph])] = []
            for run in runs where run.range.overlaps(visible) {
                let glyphs = run.glyphs.filter { visible.contains($0.cluster) }
                if !glyphs.isEmpty { pieces.append((run.level, run.font, glyphs)) }
            }
            if let highest = pieces.map(\.level).max() {
                let lowestOdd = pieces.map(\.level).filter { $0 & 1 == 1 }.min() ?? highest + 1
                var level = highest
                while level >= lowestOdd {
                    var i = 0
                    while i < pieces.count {
                        guard pieces[i].level >= level else { i += 1; continue }
                        var j = i
                        while j < pieces.count, pieces[j].level >= level { j += 1 }
                        pieces[i..<j].reverse()
                        i = j
                    }
                    level -= 1
                }
            }
            var glyphs: [TextLayout.Glyph] = []
            var pen = 0
            for piece in pieces {
                for glyph in piece.glyphs {
                    glyphs.append(TextLayout.Glyph(font: piece.font, id: glyph.id, x: pen + glyph.offsetX, y: glyph.offsetY,
                                                   advance: glyph.advance, cluster: offsets[base + glyph.cluster]))
                    pen += glyph.advance
                }
            }
            return TextLayout.Line(glyphs: glyphs, width: pen, offset: 0,
                                   textRange: offsets[base + line.lowerBound]..<offsets[base + line.upperBound],
                                   isRightToLeft: rightToLeft)
        }
    }
}
