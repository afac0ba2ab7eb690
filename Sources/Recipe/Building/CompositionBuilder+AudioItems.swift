import Foundation
import DropcutTimeline

extension CompositionBuilder {
    /// Places the recipe's `audio:` items as seed 001's composer places recordings, music
    /// and sound effects: each on a composition audio track of its own at its output time
    /// (cut at the output's end), its level and fades as volume ramps, its pitch shift in
    /// its mix parameters; for a `replace` item, the item's range is removed from every
    /// clip audio track and an empty range inserted in its place, so the clips' own sound
    /// is silent there.
    func addAudioItems(total: MediaTime, to built: inout BuiltComposition) throws(CompositionBuildError) {
        var placed: [(item: Recipe.AudioItem, range: TimeRange)] = []
        for item in recipe.audio {
            let name = (item.source as NSString).lastPathComponent
            let media: ProbedMedia
            if let known = built.media[item.source] {
                media = known
            } else {
                media = try probeMedia(item.source, key: "audio source", at: item.location)
                built.media[item.source] = media
            }
            guard let audio = media.audio, audio.timeRange.duration > .zero else {
                throw recipeError("audio source \(name) has no audio", at: item.location)
            }
            guard item.at < total else {
                throw recipeError("audio item at \(item.at)s starts at or after the end of the output (\(total)s)", at: item.atLocation)
            }
            var sourceRange = audio.timeRange
            if let trim = item.trim {
                let start = trim.start.resolved(end: audio.timeRange.end), end = trim.end.resolved(end: audio.timeRange.end)
                guard start >= audio.timeRange.start, end <= audio.timeRange.end, start < end else {
                    throw recipeError("trim [\(trim.start), \(trim.end)] is outside \(name), whose audio lasts \(audio.timeRange.end)s", at: trim.location)
                }
                sourceRange = TimeRange(start: start, end: end)
            }
            // Cut at the output's end, as the seed's composer cuts at the video's.
            let length = MediaTime.min(sourceRange.duration, total - item.at)
            sourceRange = TimeRange(start: sourceRange.start, duration: length)
            let range = TimeRange(start: item.at, duration: length)
            if item.fadeIn + item.fadeOut > length {
                throw recipeError("audio item fades (\(item.fadeIn)s in + \(item.fadeOut)s out) are longer than the item as placed (\(length)s)", at: item.location)
            }
            placed.append((item, range))

            let source = SourceTrack(asset: item.source, trackID: audio.trackID, mediaType: .audio, timeRange: audio.timeRange)
            let trackID = built.composition.addTrack(.audio)
            try edit(&built.composition, trackID) { track throws(CompositionEditError) in
                try track.insert(sourceRange, of: source, at: item.at)
            }
            let levels = try Self.fadedLevels(gain: item.volume.linear, fadeIn: item.fadeIn, fadeOut: item.fadeOut, over: range)
            built.audioMix.edit(track: trackID) { parameters in
                parameters.volume = levels
                parameters.pitchShift = item.pitch
            }
            if item.mode == .replace {
                for clipTrack in built.clipAudioTrackIDs {
                    try edit(&built.composition, clipTrack) { track throws(CompositionEditError) in
                        // Only what the track covers: past its end there is nothing to
                        // silence, and an empty range there would lengthen the output.
                        guard let part = range.intersection(track.timeRange), part.duration > .zero else { return }
                        try track.remove(part)
                        try track.insertEmpty(part)
                    }
                }
            }
            built.audioItems.append(AudioItemPlacement(trackID: trackID, range: range, mode: item.mode, pitch: item.pitch,
                                                       ducksMusic: item.ducksMusic, source: item.source))
        }
        // Now every item's length is known.
        if let overlap = Recipe.replaceOverlaps(placed).first {
            throw recipeError(overlap.message, at: overlap.later.atLocation)
        }
    }
}
