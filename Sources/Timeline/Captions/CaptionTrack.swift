/// The captions of a composition: cues in composition time, sorted by start, and the
/// style they are drawn in. An overlay layer carries it (`OverlayLayer.Content.captions`)
/// so every renderer that draws overlays draws captions, on top.
public struct CaptionTrack: Sendable, Hashable {
    public private(set) var cues: [CaptionCue]
    public var style: CaptionStyle
    /// For each cue, the latest end of it and every cue before it: never decreasing, so
    /// the first cue that can still show at a time is found by binary search.
    private let reach: [MediaTime]

    public init(cues: [CaptionCue], style: CaptionStyle) {
        self.cues = cues.sorted { $0.timeRange.start < $1.timeRange.start }
        self.style = style
        var latest = MediaTime.negativeInfinity
        reach = self.cues.map { cue in
            latest = MediaTime.max(latest, cue.timeRange.end)
            return latest
        }
    }

    /// Calls `body` with the index of each cue showing at `time`, in start order (WebVTT
    /// lets cues overlap: they are stacked, the earliest lowest). Allocates nothing: a
    /// renderer asks every frame. Only the cues between the first that reaches past `time`
    /// and the last that starts by it are looked at, not the whole file.
    public func forEachActiveCue(at time: MediaTime, _ body: (Int) -> Void) {
        // The first cue whose reach passes `time`: none before it can show.
        var low = 0, high = cues.count
        while low < high {
            let mid = (low + high) / 2
            if reach[mid] <= time { low = mid + 1 } else { high = mid }
        }
        let first = low
        // The first cue starting after `time`: none from it on can show.
        high = cues.count
        while low < high {
            let mid = (low + high) / 2
            if cues[mid].timeRange.start <= time { low = mid + 1 } else { high = mid }
        }
        for index in first..<low where cues[index].timeRange.contains(time) { body(index) }
    }

    /// The indices of the cues showing at `time`, in start order.
    public func activeCues(at time: MediaTime) -> [Int] {
        var found: [Int] = []
        forEachActiveCue(at: time) { found.append($0) }
        return found
    }
}
