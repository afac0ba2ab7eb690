import DropcutTimeline

extension Recipe {
    /// `captions:` — subtitles burnt into the picture: where the cues come from and how
    /// they look.
    public struct Captions: Sendable, Hashable {
        /// Where the cues come from.
        public enum Source: Sendable, Hashable {
            /// The dropped clip's sidecar `<stem>.srt` or `<stem>.vtt` (any letter case),
            /// found beside it.
            case sidecar
            /// A subtitle file named in the recipe (resolved path).
            case file(String)
            /// The clip's own subtitle stream (`mov_text` in MP4/MOV, WebVTT or SubRip in
            /// Matroska).
            case embedded
        }

        /// The font captions are set in when the recipe names none.
        public static let defaultFont = "DejaVuSans-Bold.ttf"

        public var source: Source = .sidecar
        /// The font file (resolved path).
        public var font: String
        /// Text size: px, or % of the output height.
        public var size: Length = .percent(5)
        public var color: Color = .white
        /// The spoken word's colour when cues carry word timing; nil: off.
        public var highlight: Color?
        /// Outline width and shadow offset: px, or % of the text size.
        public var outline = Overlay.Stroke(size: .percent(6), color: .black)
        public var shadow: Overlay.Stroke?
        public var background: Color?
        /// px, or % of the text size.
        public var padding: Length = .percent(25)
        public var cornerRadius: Length = .percent(20)
        public var position: CaptionStyle.Position = .bottom
        /// Percentages of the frame (top, right, bottom, left); nil: by the output's shape.
        public var safeArea: CaptionStyle.SafeArea?
        public var maxLines = 2
        /// % of the safe area's width.
        public var maxWidth: Double = 100
        /// A BCP 47 tag; nil: the system's.
        public var language: String?
        public var location: SourceLocation

        /// The style on an output `height` pixels tall: lengths made fractions.
        public func style(outputHeight height: Int) -> CaptionStyle {
            let textPixels = max(1, size.pixels(of: Double(height)))
            func ofText(_ length: Length) -> Double { length.pixels(of: textPixels) / textPixels }
            return CaptionStyle(fontPaths: [font], size: textPixels / Double(max(1, height)), color: color, highlightColor: highlight,
                                outline: ofText(outline.size), outlineColor: outline.color,
                                shadow: shadow.map { ofText($0.size) } ?? 0, shadowColor: shadow?.color ?? Color(red: 0, green: 0, blue: 0, alpha: 0.6),
                                background: background, padding: ofText(padding), cornerRadius: ofText(cornerRadius), position: position,
                                safeArea: safeArea, maxLines: maxLines, maxWidth: maxWidth / 100, language: language)
        }
    }
}
