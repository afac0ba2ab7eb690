import Foundation
import DropcutTimeline

extension CompositionBuilder {
    func probeClips(input: String, sidecars: inout [SlowMotionSidecar]) throws(CompositionBuildError) -> [PlacedClip] {
        var placed: [PlacedClip] = []
        for (index, var spec) in recipe.clips.enumerated() {
            let path = spec.source == "{input}" ? input : spec.source
            let media = try probeMedia(path, key: "clips[\(index)].source", at: spec.source == "{input}" ? nil : spec.location)
            guard let video = media.video else {
                let codecs = media.undecodableVideoCodecs
                throw .media(path: path, reason: codecs.isEmpty ? "has no video track"
                    : "its video uses a codec this build of FFmpeg cannot decode (\(codecs.joined(separator: ", ")))")
            }
            // A length is a number from the file: longer than any time a recipe may state
            // (24 hours) is a damaged or hostile header, not a clip to render for days.
            for range in [video.timeRange, media.audio?.timeRange].compactMap({ $0 }) where range.duration > RecipeLimits.maximumTime {
                throw .media(path: path, reason: "it lasts \(Int(range.duration.seconds.rounded())) s by its timestamps; dropcut reads clips of at most \(RecipeLimits.maximumTimeText)")
            }
            if video.isStillImage, !PictureLimits.allow(video.encodedSize) {
                throw .media(path: path, reason: "its picture is \(video.encodedSize) pixels; dropcut reads pictures of \(PictureLimits.description)")
            }
            for size in [video.encodedSize, video.naturalSize] where !video.isStillImage {
                guard (1...RecipeLimits.maximumSourceSide).contains(size.width), (1...RecipeLimits.maximumSourceSide).contains(size.height) else {
                    let shown = size == video.encodedSize ? "" : " shown (pixel aspect \(video.pixelAspectRatio))"
                    throw .media(path: path, reason: "its video is \(size) pixels\(shown); dropcut reads at most \(RecipeLimits.maximumSourceSide) a side")
                }
            }
            if video.isStillImage {
                placed.append(try placeStill(spec, index: index, media: media, video: video))
                continue
            }
            if let location = spec.durationLocation {
                throw recipeError("clips[\(index)].duration is for still images: \((path as NSString).lastPathComponent) is a video (use trim: [start, end])",
                                  at: location)
            }
            guard video.timeRange.duration > .zero else {
                throw .media(path: path, reason: "its video lasts 0 s (no frame could be timed)")
            }
            let available = Self.playableRange(of: media, video: video, keepsAudio: keepsAudio(spec))
            var trim = available
            if let spec = spec.trim {
                let start = spec.start.resolved(end: available.end), end = spec.end.resolved(end: available.end)
                guard end <= available.end, start < end else {
                    throw recipeError("trim [\(spec.start), \(spec.end)] is outside the clip \((path as NSString).lastPathComponent), which lasts \(available.end)s", at: spec.location)
                }
                trim = TimeRange(start: start, end: end)
                // Times mean frames (`FrameGrid`): the cut moves to the frame it keeps first
                // and the first one it leaves out, so each output frame shows a source frame
                // at its own time (and a copy can keep it as it is). A clip with a grid
                // only: a constant rate, or a variable one whose frames all lie on its
                // nominal grid (frames left out); another variable rate has none to snap
                // to. Never past what can play (an
                // end past it stays where the clip ends: a phone's clock may end the last
                // frame a tick before the grid does); a trim between two frames' starts
                // keeps its times (it shows the one frame).
                if video.hasFrameGrid, video.fieldOrder == nil,
                   let grid = FrameGrid(origin: video.timeRange.start, frameDuration: video.frameDuration),
                   let snapped = grid.snapped(trim) {
                    if snapped.end <= available.end {
                        trim = snapped
                    } else if snapped.start < trim.end {
                        trim = TimeRange(start: snapped.start, end: trim.end)
                    }
                }
            }
            // An iPhone original keeps its slow motion in a sidecar; the recipe's own
            // speeds win.
            if spec.source == "{input}", spec.speed.isEmpty, let sidecarPath = SlowMotionSidecar.path(besides: input) {
                let sidecar: SlowMotionSidecar
                do { sidecar = try SlowMotionSidecar(contentsOf: sidecarPath) } catch {
                    throw .media(path: sidecarPath, reason: error.reason)
                }
                spec.speed = Self.speedRanges(of: sidecar, within: trim)
                sidecars.append(sidecar)
            }
            var duration = trim.duration
            for speed in spec.speed {
                let range = resolvedSpeedRange(speed, trim: trim)
                guard range.start >= trim.start, range.end <= trim.end else {
                    throw recipeError("speed range [\(speed.range.start), \(speed.range.end)] is outside the clip's trim \(trim)", at: speed.location)
                }
                duration += Self.scaled(range.duration, by: speed.rate) - range.duration
            }
            placed.append(PlacedClip(media: media, video: video, spec: spec, trim: trim, start: .zero, duration: duration))
        }
        return placed
    }

    /// A still image as a clip: shown for its `duration:`, which it needs; it has no time
    /// of its own to trim or change the speed of.
    private func placeStill(_ spec: Recipe.Clip, index: Int, media: ProbedMedia,
                            video: ProbedMedia.Video) throws(CompositionBuildError) -> PlacedClip {
        let name = (media.path as NSString).lastPathComponent
        if let trim = spec.trim {
            throw recipeError("clips[\(index)].trim: \(name) is a still image, with no time to trim (give it duration: SECONDS)", at: trim.location)
        }
        if let speed = spec.speed.first {
            throw recipeError("clips[\(index)] speed or ramp: \(name) is a still image, with no time to play faster or slower", at: speed.location)
        }
        guard let duration = spec.duration else {
            guard let location = spec.location else {
                // The identity recipe's clip: there is no recipe line to point at.
                throw .media(path: media.path, reason: "is a still image (\(video.naturalSize)): give it a recipe clip with duration: SECONDS")
            }
            throw recipeError("clips[\(index)]: \(name) is a still image (\(video.naturalSize)): it needs duration: SECONDS (how long it is shown)",
                              at: location)
        }
        return PlacedClip(media: media, video: video, spec: spec, trim: TimeRange(start: .zero, duration: .zero), start: .zero, duration: duration)
    }

    /// How long an iPhone slow-motion region takes to slow down and to speed up again, in
    /// source time: the seed's iPhone segment table ramps over about 0.2 s at each end
    /// (2.475 → 2.675 s in, 13.268 → 13.465 s out).
    package static let slowMotionEdge = MediaTime(value: 1, timescale: 5)

    /// A sidecar's regions (clipped to the trim) as speed ranges: the rate in the middle,
    /// ramped in steps from and back to normal speed over each edge (a quarter of the
    /// region at most).
    static func speedRanges(of sidecar: SlowMotionSidecar, within trim: TimeRange) -> [Recipe.SpeedRange] {
        let location = SourceLocation(file: sidecar.path, line: 1, column: 1)
        var ranges: [Recipe.SpeedRange] = [], end = trim.start
        for region in sidecar.regions.sorted(by: { $0.start < $1.start }) {
            guard let part = region.intersection(trim), part.start >= end, part.duration > .zero else { continue }
            let edge = MediaTime.min(slowMotionEdge, part.duration.multiplied(by: 1, dividedBy: 4))
            ranges += SpeedRamp.ranges([
                .init(at: part.start, rate: 1, location: location),
                .init(at: part.start + edge, rate: sidecar.rate, location: location),
                .init(at: part.end - edge, rate: sidecar.rate, location: location),
                .init(at: part.end, rate: 1, location: location),
            ])
            end = part.end
        }
        return ranges
    }

    /// The clip's time: its video, or — when its kept audio runs on for more than a frame
    /// after the picture ends (a camera that stopped the picture first) — through the
    /// audio's end, the last picture held, so no sound is lost. A few milliseconds of AAC
    /// padding do not count.
    static func playableRange(of media: ProbedMedia, video: ProbedMedia.Video, keepsAudio: Bool) -> TimeRange {
        guard keepsAudio, let audio = media.audio, audio.timeRange.end > video.timeRange.end + video.frameDuration else {
            return video.timeRange
        }
        return TimeRange(start: video.timeRange.start, end: audio.timeRange.end)
    }

    func keepsAudio(_ spec: Recipe.Clip) -> Bool {
        recipe.originalAudio == .keep && spec.audio != .mute
    }

    func resolvedSpeedRange(_ speed: Recipe.SpeedRange, trim: TimeRange) -> TimeRange {
        TimeRange(start: speed.range.start.resolved(end: trim.end), end: speed.range.end.resolved(end: trim.end))
    }

    /// A length of source time played at `rate`: `length / rate`, exactly.
    static func scaled(_ length: MediaTime, by rate: MediaTime) -> MediaTime {
        length.multiplied(by: (MediaTime(value: Int64(rate.timescale), timescale: 1), MediaTime(value: rate.value, timescale: 1)))
    }

    func checkTransitionFits(_ transition: MediaTime, _ clips: [PlacedClip]) throws(CompositionBuildError) {
        guard transition > .zero else { return }
        for (i, clip) in clips.enumerated() {
            let overlaps = (i > 0 ? 1 : 0) + (i < clips.count - 1 ? 1 : 0)
            if clip.duration < transition.multiplied(by: Int64(overlaps), dividedBy: 1) {
                throw recipeError("transition.duration \(transition)s is too long for clip \(i + 1) (\(clip.duration)s): it needs at least \(transition.multiplied(by: Int64(overlaps), dividedBy: 1))s",
                                  at: recipe.transition.location ?? SourceLocation(file: recipe.name, line: 1, column: 1))
            }
        }
    }

    /// Inserts a clip's video (and audio) at its start and applies its speed ranges.
    func insert(_ clip: inout PlacedClip, into composition: inout Composition) throws(CompositionBuildError) {
        if clip.video.isStillImage {
            // One picture held for the clip's duration (a zero-length source range), and
            // no sound: other clips' sound lies on tracks of its own, silent here.
            let picture = SourceTrack(asset: clip.media.path, trackID: clip.video.trackID, mediaType: .video,
                                      timeRange: clip.video.timeRange, isStillImage: true)
            try edit(&composition, clip.videoTrack) { track throws(CompositionEditError) in
                try track.insertHold(at: .zero, of: picture, at: clip.start, duration: clip.duration)
            }
            return
        }
        // The field order travels with the source: the renderer deinterlaces the clips the
        // frame grid was given a field rate for (`shownFrameDuration`), and no others.
        let source = SourceTrack(asset: clip.media.path, trackID: clip.video.trackID, mediaType: .video,
                                 timeRange: clip.video.timeRange, fieldOrder: clip.video.fieldOrder)
        let pictured = clip.trim.intersection(clip.video.timeRange)
        try edit(&composition, clip.videoTrack) { track throws(CompositionEditError) in
            if let pictured { try track.insert(pictured, of: source, at: clip.start) }
            // Past the picture's end (audio running on): hold the last frame — the one
            // covering the track's last millisecond. (A frame duration back from the end can
            // land before the last frame when the track's end is not on the frame grid, as
            // in transport streams timed by fields: reading would then have to seek back.)
            let heldFrom = pictured?.end ?? clip.trim.start
            if heldFrom < clip.trim.end {
                let lastFrame = MediaTime.max(clip.video.timeRange.start, clip.video.timeRange.end - MediaTime(value: 1, timescale: 1000))
                try track.insertHold(at: lastFrame, of: source, at: clip.start + (heldFrom - clip.trim.start),
                                     duration: clip.trim.end - heldFrom)
            }
            try applySpeeds(clip, to: &track, within: clip.trim)
        }
        guard keepsAudio(clip.spec), let audio = clip.media.audio else { return }
        // Audio can end a little before video; take what overlaps the trim.
        guard let audioRange = clip.trim.intersection(audio.timeRange) else { return }
        let audioSource = SourceTrack(asset: clip.media.path, trackID: audio.trackID, mediaType: .audio, timeRange: audio.timeRange)
        let trackID = composition.addTrack(.audio)
        clip.audioTrack = trackID
        try edit(&composition, trackID) { track throws(CompositionEditError) in
            try track.insert(audioRange, of: audioSource, at: clip.start + (audioRange.start - clip.trim.start))
            try applySpeeds(clip, to: &track, within: audioRange)
        }
    }

    /// Scales each speed range, in source order, keeping track of how far earlier ranges
    /// moved what follows.
    func applySpeeds(_ clip: PlacedClip, to track: inout CompositionTrack, within available: TimeRange) throws(CompositionEditError) {
        var shift = MediaTime.zero
        let ranges = clip.spec.speed.map { resolvedSpeedRange($0, trim: clip.trim) }
        for (speed, range) in zip(clip.spec.speed, ranges).sorted(by: { $0.1.start < $1.1.start }) {
            guard let part = range.intersection(available) else { continue }
            let newLength = Self.scaled(part.duration, by: speed.rate)
            try track.scale(TimeRange(start: clip.start + (part.start - clip.trim.start) + shift, duration: part.duration), toDuration: newLength)
            shift += newLength - part.duration
        }
    }
}
