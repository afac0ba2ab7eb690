/// How a span of a cue's text is styled by its markup: SRT's `<b>`, `<i>`, `<u>`,
/// `<font color>`; WebVTT's `<b>`, `<i>`, `<u>` and its default colour classes (`<c.red>`,
/// `<c.bg_yellow>`). Nil colours: the caption style's.
public struct CaptionTextStyle: Sendable, Hashable {
    public var bold: Bool
    public var italic: Bool
    public var underline: Bool
    public var color: Color?
    /// The box behind the span's text.
    public var background: Color?

    public init(bold: Bool = false, italic: Bool = false, underline: Bool = false, color: Color? = nil, background: Color? = nil) {
        self.bold = bold
        self.italic = italic
        self.underline = underline
        self.color = color
        self.background = background
    }

    /// No markup: the caption style alone.
    public static let plain = CaptionTextStyle()
}

/// A styled span of a cue's text: UTF-8 offsets `[start, end)` into `CaptionCue.text`.
public struct CaptionStyledSpan: Sendable, Hashable {
    public var textRange: Range<Int>
    public var style: CaptionTextStyle

    public init(textRange: Range<Int>, style: CaptionTextStyle) {
        self.textRange = textRange
        self.style = style
    }
}
