/// Maps captions from the source time of their clip into composition time, as every other
/// layer is placed: through the clip's trim (cues in cut parts are dropped, cues across a
/// cut are shortened), its speed changes and ramps (a cue inside a 0.5× segment lasts twice
/// as long), and whatever comes before it (an intro pushes every cue back).
///
/// A cue is mapped through each video segment that plays `asset`: the part of the cue
/// inside the segment's source range lands at the segment's target times. Pieces that
/// touch or overlap (consecutive speed steps, the two sides of a crossfade) become one cue;
/// pieces apart (the clip used twice) become one cue each.
public enum CaptionTiming {
    /// `cues` (in `asset`'s source time) in the composition time of `composition`, sorted.
    public static func retime(_ cues: [CaptionCue], asset: String, in composition: Composition) -> [CaptionCue] {
        // By source start, so each cue looks only at the segments its range overlaps (a
        // ramp is thousands of 50 ms steps; a subtitle file may hold 100,000 cues).
        let segments = composition.tracks(of: .video).flatMap(\.segments).filter { segment in
            guard let source = segment.source else { return false }
            return source.track.asset == asset && !source.track.isStillImage && source.timeRange.duration > .zero
        }.sorted { ($0.source!.timeRange.start, $0.target.start) < ($1.source!.timeRange.start, $1.target.start) }
        // The longest source range, bounding how far before a cue's start an overlapping
        // segment may begin.
        let longest = segments.reduce(MediaTime.zero) { MediaTime.max($0, $1.source!.timeRange.duration) }
        var mapped: [CaptionCue] = []
        for cue in cues where cue.timeRange.isValid && cue.timeRange.duration > .zero {
            // The first segment that could overlap: its source starts after cue.start - longest.
            let from = cue.timeRange.start - longest
            var low = 0, high = segments.count
            while low < high {
                let mid = (low + high) / 2
                if segments[mid].source!.timeRange.start <= from { low = mid + 1 } else { high = mid }
            }
            var pieces: [CaptionCue] = []
            var index = max(0, low - 1)
            while index < segments.count, segments[index].source!.timeRange.start < cue.timeRange.end {
                let segment = segments[index]
                index += 1
                guard let source = segment.source, let part = cue.timeRange.intersection(source.timeRange),
                      let start = segment.targetTime(forSourceTime: part.start),
                      let end = segment.targetTime(forSourceTime: part.end), start < end else { continue }
                let words = cue.words.compactMap { word -> CaptionWord? in
                    // A word starting before the part is lit from the part's start.
                    let at = MediaTime.max(word.start, part.start)
                    guard at < part.end, let target = segment.targetTime(forSourceTime: at) else { return nil }
                    return CaptionWord(textRange: word.textRange, start: target)
                }
                pieces.append(CaptionCue(timeRange: TimeRange(start: start, end: end), text: cue.text, words: words, placement: cue.placement))
            }
            // Pieces in output order; those that touch or overlap are one cue.
            pieces.sort { $0.timeRange.start < $1.timeRange.start }
            var merged: [CaptionCue] = []
            for piece in pieces {
                if let last = merged.last, last.timeRange.end >= piece.timeRange.start {
                    merged[merged.count - 1] = merge(last, piece)
                } else {
                    merged.append(piece)
                }
            }
            mapped += merged
        }
        return mapped.sorted { $0.timeRange.start < $1.timeRange.start }
    }

    /// One cue covering both pieces of the same cue; each word keeps its earliest start.
    private static func merge(_ a: CaptionCue, _ b: CaptionCue) -> CaptionCue {
        var words: [CaptionWord] = []
        for word in a.words + b.words {
            if let i = words.firstIndex(where: { $0.textRange == word.textRange }) {
                words[i].start = MediaTime.min(words[i].start, word.start)
            } else {
                words.append(word)
            }
        }
        return CaptionCue(timeRange: a.timeRange.union(b.timeRange), text: a.text,
                          words: words.sorted { $0.start < $1.start }, placement: a.placement)
    }
}
