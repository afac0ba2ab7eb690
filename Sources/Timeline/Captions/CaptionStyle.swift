/// How captions are drawn (`captions.style` in a recipe), in output pixels once resolved for
/// an output size (`resolved(for:)`); fractions are of the output's height or width as noted.
public struct CaptionStyle: Sendable, Hashable {
    /// Where the caption block sits in the safe area when a cue does not say.
    public enum Position: String, Sendable, Hashable, CaseIterable {
        case bottom, top, middle
    }

    /// The font files to set text in, first choice first; the renderer falls back over
    /// these, then over the system's Noto fonts, for characters a font lacks.
    public var fontPaths: [String]
    /// Text size (the em), as a fraction of the output height.
    public var size: Double
    public var color: Color
    /// The colour of the word being spoken when the cue has word timing; nil: no highlight.
    public var highlightColor: Color?
    /// Outline thickness, as a fraction of the text size (0: none).
    public var outline: Double
    public var outlineColor: Color
    /// Drop shadow offset down and right, as a fraction of the text size (0: none).
    public var shadow: Double
    public var shadowColor: Color
    /// The box behind the text; nil: none.
    public var background: Color?
    /// Space between the text and the box's edge, as a fraction of the text size.
    public var padding: Double
    /// The box's corner radius, as a fraction of the text size.
    public var cornerRadius: Double
    public var position: Position
    /// The area text must stay in, as fractions of the output's sides; nil: chosen by the
    /// output's shape (`SafeArea.automatic(for:)`).
    public var safeArea: SafeArea?
    /// At most this many lines per cue: a longer text is set smaller until it fits.
    public var maxLines: Int
    /// The widest a line may be, as a fraction of the safe area's width.
    public var maxWidth: Double
    /// Line height, as a multiple of the font's own.
    public var lineSpacing: Double
    /// The captions' language (a BCP 47 tag, `zh-Hant`), for the forms that differ by
    /// language: which Noto Sans CJK face sets Han characters (Japanese, Korean,
    /// Simplified or Traditional Chinese, Hong Kong) and HarfBuzz's language-specific
    /// forms. Nil: the system's language, and the Japanese CJK face.
    public var language: String?

    public init(fontPaths: [String], size: Double = 0.05, color: Color = .white, highlightColor: Color? = nil,
                outline: Double = 0.06, outlineColor: Color = .black, shadow: Double = 0, shadowColor: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.6),
                background: Color? = nil, padding: Double = 0.25, cornerRadius: Double = 0.2, position: Position = .bottom,
                safeArea: SafeArea? = nil, maxLines: Int = 2, maxWidth: Double = 1, lineSpacing: Double = 1, language: String? = nil) {
        self.fontPaths = fontPaths
        self.size = size
        self.color = color
        self.highlightColor = highlightColor
        self.outline = outline
        self.outlineColor = outlineColor
        self.shadow = shadow
        self.shadowColor = shadowColor
        self.background = background
        self.padding = padding
        self.cornerRadius = cornerRadius
        self.position = position
        self.safeArea = safeArea
        self.maxLines = maxLines
        self.maxWidth = maxWidth
        self.lineSpacing = lineSpacing
        self.language = language
    }

    /// Margins text keeps from the frame's edges, as fractions of the height (top, bottom)
    /// and width (left, right).
    public struct SafeArea: Sendable, Hashable {
        public var top: Double
        public var right: Double
        public var bottom: Double
        public var left: Double

        public init(top: Double, right: Double, bottom: Double, left: Double) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }

        /// The broadcast graphics-safe area (EBU R 95: 5 % in from every edge) for
        /// landscape and square frames. For portrait (9:16) frames, what the short-video
        /// apps keep clear of their own buttons and text: 10 % at the top (account name,
        /// tabs), 25 % at the bottom (description, music), 12 % on the right (like, comment,
        /// share), 6 % on the left.
        public static func automatic(for size: PixelSize) -> SafeArea {
            if size.height > size.width {
                return SafeArea(top: 0.10, right: 0.12, bottom: 0.25, left: 0.06)
            }
            return SafeArea(top: 0.05, right: 0.05, bottom: 0.05, left: 0.05)
        }

        /// The area in pixels on a frame of `size`, in whole even pixels (never empty).
        public func rect(on size: PixelSize) -> PixelBox {
            func even(_ value: Double) -> Int { Int((value / 2).rounded()) * 2 }
            let x0 = even(left * Double(size.width)), x1 = size.width - even(right * Double(size.width))
            let y0 = even(top * Double(size.height)), y1 = size.height - even(bottom * Double(size.height))
            return PixelBox(x: x0, y: y0, width: max(2, x1 - x0), height: max(2, y1 - y0))
        }
    }

    /// The safe area on a frame of `size`: the style's, or the automatic one.
    public func safeRect(on size: PixelSize) -> PixelBox {
        (safeArea ?? .automatic(for: size)).rect(on: size)
    }
}

/// A rectangle of whole pixels (origin top-left).
public struct PixelBox: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
}
