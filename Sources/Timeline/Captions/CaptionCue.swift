/// One caption: text shown over a time range, as an SRT or WebVTT cue carries it.
///
/// As parsed, `timeRange` (and every word's `start`) is in the source time of the clip the
/// captions belong to; `CaptionTiming.retime` maps cues into composition time, through
/// trims, speed changes and the clips placed before it. The text is plain: the parser
/// reads the markup into `styles` (bold, italic, underline, colours) and keeps the words.
public struct CaptionCue: Sendable, Hashable {
    public var timeRange: TimeRange
    /// The cue's text; `\n` separates the lines the file gave (a renderer may break them
    /// further to fit).
    public var text: String
    /// Word timing (WebVTT timestamps inside the cue, `<00:01.500>`): each entry starts a
    /// span of `text` lit from its time until the next entry's. Empty when the cue has none.
    public var words: [CaptionWord]
    /// Where the file asked the cue to go (WebVTT cue settings); `.automatic` otherwise.
    public var placement: CuePlacement
    /// The spans of `text` its markup styled, in text order, not overlapping; text in no
    /// span is plain. Empty: none.
    public var styles: [CaptionStyledSpan]

    public init(timeRange: TimeRange, text: String, words: [CaptionWord] = [], placement: CuePlacement = .automatic,
                styles: [CaptionStyledSpan] = []) {
        self.timeRange = timeRange
        self.text = text
        self.words = words
        self.placement = placement
        self.styles = styles
    }

    /// The markup style of the text at UTF-8 offset `offset`.
    public func style(at offset: Int) -> CaptionTextStyle {
        for span in styles where span.textRange.contains(offset) { return span.style }
        return .plain
    }

    /// The word lit at `time` (the last whose start is at or before it), or nil before the
    /// first or when the cue has no word timing.
    public func word(at time: MediaTime) -> Int? {
        var lit: Int?
        for (index, word) in words.enumerated() where word.start <= time { lit = index }
        return lit
    }
}

/// A timed span of a cue's text: UTF-8 offsets `[start, end)` into `CaptionCue.text`,
/// lit from `start` time (WebVTT's cue timestamps).
public struct CaptionWord: Sendable, Hashable {
    public var textRange: Range<Int>
    public var start: MediaTime

    public init(textRange: Range<Int>, start: MediaTime) {
        self.textRange = textRange
        self.start = start
    }
}

/// WebVTT cue settings (`line`, `position`, `align`), kept as the file gave them.
public struct CuePlacement: Sendable, Hashable {
    /// WebVTT `align`: how the lines sit in the cue box.
    public enum Alignment: String, Sendable, Hashable {
        case start, center, end, left, right
    }

    /// WebVTT `line`: a percentage of the frame height (`line:10%`), or a line number
    /// (`line:-1`, counted from the bottom when negative); nil: automatic (the style's place).
    public enum Line: Sendable, Hashable {
        case percent(Double)
        case number(Int)
    }

    /// WebVTT line alignment (`line:50%,center`): which edge of the cue box the `line`
    /// percentage places — its top (`start`, WebVTT's default), its middle, or its bottom.
    /// A line number (`line:-1`) ignores it, as WebVTT's snap-to-lines placement does.
    public enum LineAlignment: String, Sendable, Hashable {
        case start, center, end
    }

    /// WebVTT position alignment (`position:42%,line-left`): which edge of the cue box the
    /// `position` is — its left (`line-left`), its centre, its right (`line-right`) — or
    /// `auto`, WebVTT's default, which follows `align`: `left` is line-left, `right`
    /// line-right, `center` centre, `start` line-left (line-right for right-to-left text),
    /// `end` line-right (line-left for right-to-left text). Older WebVTT drafts wrote
    /// `start` and `end` for line-left and line-right. Raw values are the file's keywords.
    public enum PositionAlignment: String, Sendable, Hashable {
        case lineLeft = "line-left"
        case center
        case lineRight = "line-right"
        case auto
    }

    public var line: Line?
    /// WebVTT `position`: where the cue box's alignment point is, in percent of the width.
    public var position: Double?
    public var alignment: Alignment
    /// The edge of the box a `line` percentage places (`line:…%,start|center|end`).
    public var lineAlignment: LineAlignment
    /// The edge of the box `position` places (`position:…%,line-left|center|line-right`).
    public var positionAlignment: PositionAlignment

    public init(line: Line? = nil, position: Double? = nil, alignment: Alignment = .center,
                lineAlignment: LineAlignment = .start, positionAlignment: PositionAlignment = .auto) {
        self.line = line
        self.position = position
        self.alignment = alignment
        self.lineAlignment = lineAlignment
        self.positionAlignment = positionAlignment
    }

    /// No cue settings: the style decides.
    public static let automatic = CuePlacement()
}
