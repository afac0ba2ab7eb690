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
        let segments = composition.tracks(of: .video).flatMap(\.segments).filter { segment in
            guard let source = segment.source else { return false }
            return source.track.asset == asset && !source.track.isStillImage && source.timeRange.duration > .zero
        }.sorted { $0.target.start < $1.target.start }
        var mapped: [CaptionCue] = []
        for cue in cues where cue.timeRange.isValid && cue.timeRange.duration > .zero {
            var pieces: [CaptionCue] = []
            for segment in segments {
                guard let source = segment.source, let part = cue.timeRange.intersection(source.timeRange),
                      let start = segment.targetTime(forSourceTime: part.start),
                      let end = segment.targetTime(forSourceTime: part.end), start < end else { continue }
                let words = cue.words.compactMap { word -> CaptionWord? in
                    // A word starting before the part is lit from the part's start.
                    let at = MediaTime.max(word.start, part.start)
                    guard at < part.end, let target = segment.targetTime(forSourceTime: at) else { return nil }
                    return CaptionWord(textRange: word.textRange, start: target)
                }
                let piece = CaptionCue(timeRange: TimeRange(start: start, end: end), text: cue.text, words: words, placement: cue.placement)
                if let last = pieces.last, last.timeRange.end >= piece.timeRange.start, last.timeRange.start <= piece.timeRange.start {
                    pieces[pieces.count - 1] = merge(last, piece)
                } else {
                    pieces.append(piece)
                }
            }
            mapped += pieces
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
