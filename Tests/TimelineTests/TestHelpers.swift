import DropcutTimeline

/// Exact seconds from a decimal literal string: `t("87.785")`.
func t(_ text: String) -> MediaTime {
    guard let time = MediaTime(exactly: text) else { fatalError("bad time literal \(text)") }
    return time
}

/// `[start, start + duration)` from decimal strings.
func range(_ start: String, _ duration: String) -> TimeRange {
    TimeRange(start: t(start), duration: t(duration))
}

/// The segment lines of a description, without their "  N: " prefixes.
func segmentLines(_ track: CompositionTrack) -> [String] {
    track.segments.map(\.description)
}
