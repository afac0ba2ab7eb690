/// The captions of a composition: cues in composition time, sorted by start, and the
/// style they are drawn in. An overlay layer carries it (`OverlayLayer.Content.captions`)
/// so every renderer that draws overlays draws captions, on top.
public struct CaptionTrack: Sendable, Hashable {
    public var cues: [CaptionCue]
    public var style: CaptionStyle

    public init(cues: [CaptionCue], style: CaptionStyle) {
        self.cues = cues.sorted { $0.timeRange.start < $1.timeRange.start }
        self.style = style
    }

    /// The indices of the cues showing at `time`, in start order (WebVTT lets cues overlap:
    /// they are stacked, the earliest lowest).
    public func activeCues(at time: MediaTime) -> [Int] {
        // Cues are sorted by start: those starting after `time` cannot show.
        var low = 0, high = cues.count
        while low < high {
            let mid = (low + high) / 2
            if cues[mid].timeRange.start <= time { low = mid + 1 } else { high = mid }
        }
        return (0..<low).filter { cues[$0].timeRange.contains(time) }
    }
}
