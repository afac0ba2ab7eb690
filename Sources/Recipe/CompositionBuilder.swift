import Foundation
import Timeline

/// What the builder makes of a recipe and its media: the composition, how its video is
/// drawn and its audio mixed, the overlay layers, and where the output goes.
public struct BuiltComposition: Sendable, Hashable {
    public var composition: Composition
    public var videoComposition: VideoComposition
    public var audioMix: AudioMix
    public var overlays: [OverlayLayer]
    public var output: Recipe.Output
    /// The output file name, template filled in.
    public var outputFilename: String
    /// The composition audio tracks carrying the clips' own sound, in clip order.
    public var clipAudioTrackIDs: [TrackID]
    /// The music bed, if the recipe has music. With `duck`, its volumes are final only
    /// after `applyDucking` (the caller measures the clips' sound: `AudioActivity`).
    public var music: MusicBed?
    /// iPhone slow-motion sidecars (`.AAE`) whose regions were applied, for `plan` and
    /// the logs to mention.
    public var slowMotionSidecars: [SlowMotionSidecar] = []
}

/// Why a recipe could not be built for particular media.
public enum CompositionBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The recipe asks for something these media cannot give (a trim past the clip's
    /// end, a transition longer than a clip...), at a position in the recipe.
    case recipe(RecipeError)
    /// A media file could not be used.
    case media(path: String, reason: String)

    public var description: String {
        switch self {
        case let .recipe(error): return error.description
        case let .media(path, reason): return "\(path): \(reason)"
        }
    }
}

/// Turns a recipe plus probed media into the Timeline model, the way an AVFoundation app
/// builds a composition: a video and an audio composition track per clip — video
/// alternating between tracks A and B so transitions can overlap them (pass-through
/// instructions, then transition instructions whose layers ramp opacity, transform or
/// crop) — speed ranges applied with `scale`, an audio mix with crossfades and the music
/// bed, and the overlay layers.
public struct CompositionBuilder: Sendable {
    public var recipe: Recipe
    public var probe: any MediaProbing

    public init(recipe: Recipe, probe: any MediaProbing) {
        self.recipe = recipe
        self.probe = probe
    }

    /// One clip, placed.
    private struct PlacedClip {
        var media: ProbedMedia
        var video: ProbedMedia.Video
        var spec: Recipe.Clip
        var trim: TimeRange
        var start: MediaTime
        var duration: MediaTime
        var videoTrack: TrackID = 0
        var audioTrack: TrackID?
        var transform: Timeline.AffineTransform = .identity
        var end: MediaTime { start + duration }
    }

    /// Builds the composition for `input` (the dropped clip that `{input}` stands for).
    public func build(input: String, date: Date = Date()) throws(CompositionBuildError) -> BuiltComposition {
        var sidecars: [SlowMotionSidecar] = []
        var clips = try probeClips(input: input, sidecars: &sidecars)
        let transition = clips.count > 1 && recipe.transition.kind != .cut ? recipe.transition.duration : .zero
        try checkTransitionFits(transition, clips)

        // Place clips one after another, overlapping by the transition.
        var cursor = MediaTime.zero
        for i in clips.indices {
            clips[i].start = cursor
            cursor = cursor + clips[i].duration - transition
        }
        let total = clips.last!.end

        var composition = Composition()
        let trackA = composition.addTrack(.video)
        let trackB = clips.count > 1 ? composition.addTrack(.video) : trackA
        var audioMix = AudioMix()
        for i in clips.indices {
            clips[i].videoTrack = i % 2 == 0 ? trackA : trackB
            try insert(&clips[i], into: &composition)
            if let audioTrack = clips[i].audioTrack {
                try rampEdit {
                    try audioMix.edit(track: audioTrack) { parameters in
                        parameters.timePitchAlgorithm = clips[i].spec.audio == .varispeed ? .varispeed : .preservePitch
                        if i > 0, transition > .zero {
                            try parameters.setVolumeRamp(from: 0, to: 1, range: TimeRange(start: clips[i].start, duration: transition))
                        }
                        if i < clips.count - 1, transition > .zero {
                            try parameters.setVolumeRamp(from: 1, to: 0, range: TimeRange(start: clips[i + 1].start, duration: transition))
                        }
                        let volume = clips[i].spec.volume.linear
                        if volume != 1 {
                            var gain = Ramp<Double>(defaultValue: 1)
                            try gain.set(volume, at: .zero)
                            parameters.volume = parameters.volume.multiplied(by: gain, until: total)
                        }
                    }
                }
            }
        }

        let renderSize = recipe.output.size ?? Self.evenSize(clips[0].video.naturalSize.applying(orientation(of: clips[0].video)))
        for i in clips.indices {
            clips[i].transform = Timeline.AffineTransform.placing(naturalSize: clips[i].video.naturalSize, preferredTransform: orientation(of: clips[i].video),
                                          in: renderSize, mode: recipe.output.fit)
        }
        let videoComposition = try makeVideoComposition(clips, transition: transition, renderSize: renderSize)

        var built = BuiltComposition(
            composition: composition, videoComposition: videoComposition, audioMix: audioMix, overlays: [],
            output: recipe.output,
            outputFilename: recipe.output.filename.render(.init(inputPath: input, recipeName: recipe.name, date: date)),
            clipAudioTrackIDs: clips.compactMap(\.audioTrack), slowMotionSidecars: sidecars)
        if let music = recipe.music {
            try addMusic(music, total: total, to: &built)
        }
        built.overlays = try recipe.overlays.map { overlay throws(CompositionBuildError) in
            try makeOverlay(overlay, total: total, renderSize: renderSize, input: input, date: date)
        }
        return built
    }

    // MARK: Clips

    private func probeClips(input: String, sidecars: inout [SlowMotionSidecar]) throws(CompositionBuildError) -> [PlacedClip] {
        var placed: [PlacedClip] = []
        for var spec in recipe.clips {
            let path = spec.source == "{input}" ? input : spec.source
            let media: ProbedMedia
            do { media = try probe.probe(path) } catch {
                throw .media(path: path, reason: Self.reason(error, about: path))
            }
            guard let video = media.video else { throw .media(path: path, reason: "has no video track") }
            let available = Self.playableRange(of: media, video: video, keepsAudio: keepsAudio(spec))
            var trim = available
            if let spec = spec.trim {
                let start = spec.start.resolved(end: available.end), end = spec.end.resolved(end: available.end)
                guard end <= available.end, start < end else {
                    throw recipeError("trim [\(spec.start), \(spec.end)] is outside the clip \((path as NSString).lastPathComponent), which lasts \(available.end)s", at: spec.location)
                }
                trim = TimeRange(start: start, end: end)
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

    /// How long an iPhone slow-motion region takes to slow down and to speed up again, in
    /// source time: the seed's iPhone segment table ramps over about 0.2 s at each end
    /// (2.475 → 2.675 s in, 13.268 → 13.465 s out).
    public static let slowMotionEdge = MediaTime(value: 1, timescale: 5)

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

    private func keepsAudio(_ spec: Recipe.Clip) -> Bool {
        recipe.originalAudio == .keep && spec.audio != .mute
    }

    private func resolvedSpeedRange(_ speed: Recipe.SpeedRange, trim: TimeRange) -> TimeRange {
        TimeRange(start: speed.range.start.resolved(end: trim.end), end: speed.range.end.resolved(end: trim.end))
    }

    /// A length of source time played at `rate`: `length / rate`, exactly.
    static func scaled(_ length: MediaTime, by rate: MediaTime) -> MediaTime {
        length.multiplied(by: (MediaTime(value: Int64(rate.timescale), timescale: 1), MediaTime(value: rate.value, timescale: 1)))
    }

    private func checkTransitionFits(_ transition: MediaTime, _ clips: [PlacedClip]) throws(CompositionBuildError) {
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
    private func insert(_ clip: inout PlacedClip, into composition: inout Composition) throws(CompositionBuildError) {
        let source = SourceTrack(asset: clip.media.path, trackID: clip.video.trackID, mediaType: .video, timeRange: clip.video.timeRange)
        let pictured = clip.trim.intersection(clip.video.timeRange)
        try edit(&composition, clip.videoTrack) { track throws(CompositionEditError) in
            if let pictured { try track.insert(pictured, of: source, at: clip.start) }
            // Past the picture's end (audio running on): hold the last frame.
            let heldFrom = pictured?.end ?? clip.trim.start
            if heldFrom < clip.trim.end {
                let lastFrame = MediaTime.max(clip.video.timeRange.start, clip.video.timeRange.end - clip.video.frameDuration)
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
    private func applySpeeds(_ clip: PlacedClip, to track: inout CompositionTrack, within available: TimeRange) throws(CompositionEditError) {
        var shift = MediaTime.zero
        let ranges = clip.spec.speed.map { resolvedSpeedRange($0, trim: clip.trim) }
        for (speed, range) in zip(clip.spec.speed, ranges).sorted(by: { $0.1.start < $1.1.start }) {
            guard let part = range.intersection(available) else { continue }
            let newLength = Self.scaled(part.duration, by: speed.rate)
            try track.scale(TimeRange(start: clip.start + (part.start - clip.trim.start) + shift, duration: part.duration), toDuration: newLength)
            shift += newLength - part.duration
        }
    }

    private func edit(_ composition: inout Composition, _ trackID: TrackID,
                      _ body: (inout CompositionTrack) throws(CompositionEditError) -> Void) throws(CompositionBuildError) {
        do {
            try composition.edit(track: trackID) { track in try body(&track) }
        } catch {
            // Edits only fail here when a probe reported ranges that contradict each other.
            throw .media(path: "composition", reason: "cannot place the clip: \(error)")
        }
    }

    private func rampEdit(_ body: () throws -> Void) throws(CompositionBuildError) {
        do { try body() } catch {
            throw .media(path: "composition", reason: "cannot set the ramps: \(error)")
        }
    }

    private func orientation(of video: ProbedMedia.Video) -> Timeline.AffineTransform {
        switch recipe.orientation {
        case .auto: return video.preferredTransform
        case let .degrees(degrees): return .orientation(quarterTurns: degrees / 90, naturalSize: video.naturalSize)
        }
    }

    static func evenSize(_ size: PixelSize) -> PixelSize {
        PixelSize(width: max(2, size.width - size.width % 2), height: max(2, size.height - size.height % 2))
    }

    // MARK: Video composition

    private func makeVideoComposition(_ clips: [PlacedClip], transition: MediaTime,
                                      renderSize: PixelSize) throws(CompositionBuildError) -> VideoComposition {
        let frameDuration: MediaTime
        if let fps = recipe.output.fps {
            frameDuration = MediaTime(value: Int64(fps.timescale), timescale: Int32(clamping: fps.value))
        } else {
            // The highest source rate, capped at 60 fps.
            let shortest = clips.map(\.video.frameDuration).filter { $0 > .zero }.min() ?? MediaTime(value: 1, timescale: 30)
            frameDuration = MediaTime.max(shortest, MediaTime(value: 1, timescale: 60))
        }
        var instructions: [VideoCompositionInstruction] = []
        for (i, clip) in clips.enumerated() {
            let passStart = clip.start + (i > 0 ? transition : .zero)
            let passEnd = clip.end - (i < clips.count - 1 ? transition : .zero)
            if passStart < passEnd {
                var layer = LayerInstruction(trackID: clip.videoTrack)
                layer.frameSampling = clip.spec.frames
                try rampEdit { try layer.setTransform(clip.transform, at: passStart) }
                instructions.append(VideoCompositionInstruction(timeRange: TimeRange(start: passStart, end: passEnd), layerInstructions: [layer]))
            }
            if i < clips.count - 1, transition > .zero {
                instructions.append(try transitionInstruction(from: clip, to: clips[i + 1], duration: transition, renderSize: renderSize))
            }
        }
        return VideoComposition(renderSize: renderSize, frameDuration: frameDuration, instructions: instructions)
    }

    /// The outgoing clip over the incoming one, with the ramps of the recipe's kind:
    /// crossfade fades the outgoing layer out, push slides both left by the canvas width,
    /// wipe crops the outgoing layer away from the right.
    private func transitionInstruction(from a: PlacedClip, to b: PlacedClip, duration: MediaTime,
                                       renderSize: PixelSize) throws(CompositionBuildError) -> VideoCompositionInstruction {
        let range = TimeRange(start: b.start, duration: duration)
        var from = LayerInstruction(trackID: a.videoTrack), to = LayerInstruction(trackID: b.videoTrack)
        from.frameSampling = a.spec.frames
        to.frameSampling = b.spec.frames
        try rampEdit {
            switch recipe.transition.kind {
            case .crossfade:
                try from.setTransform(a.transform, at: range.start)
                try to.setTransform(b.transform, at: range.start)
                try from.setOpacityRamp(from: 1, to: 0, range: range)
            case .push:
                let width = Double(renderSize.width)
                try from.setTransformRamp(from: a.transform, to: a.transform.concatenating(Timeline.AffineTransform(translationX: -width, y: 0)), range: range)
                try to.setTransformRamp(from: b.transform.concatenating(Timeline.AffineTransform(translationX: width, y: 0)), to: b.transform, range: range)
            case .wipe:
                let w = Double(a.video.naturalSize.width), h = Double(a.video.naturalSize.height)
                try from.setTransform(a.transform, at: range.start)
                try to.setTransform(b.transform, at: range.start)
                try from.setCropRectangleRamp(from: Rect(x: 0, y: 0, width: w, height: h), to: Rect(x: 0, y: 0, width: 0, height: h), range: range)
            case .cut:
                break
            }
        }
        return VideoCompositionInstruction(timeRange: range, layerInstructions: [from, to])
    }

    // MARK: Music and overlays

    /// How long each loop point of a looped music bed crossfades.
    static let loopCrossfade = MediaTime(value: 1, timescale: 20)

    /// The bed's gain with its fades, as ramps: the fades follow power curves in eight
    /// linear pieces — the fade-in squared, the fade-out cubed — so they sound even
    /// rather than hanging on and then dropping (a straight line spends most of its
    /// length within a few dB of full level), and the fade-out is below −60 dB for its
    /// last few milliseconds: the music is gone when the video ends.
    static func musicLevels(gain: Double, fadeIn: MediaTime, fadeOut: MediaTime, total: MediaTime) throws(CompositionBuildError) -> Ramp<Double> {
        let pieces = 8
        var points: [(time: MediaTime, value: Double)] = []
        func fade(_ range: TimeRange, power: Double, rising: Bool) {
            for i in 0...pieces {
                let x = Double(i) / Double(pieces)
                let time = range.start + range.duration.multiplied(by: Int64(i), dividedBy: Int64(pieces))
                points.append((time, gain * pow(rising ? x : 1 - x, power)))
            }
        }
        if fadeIn > .zero { fade(TimeRange(start: .zero, duration: fadeIn), power: 2, rising: true) } else { points.append((.zero, gain)) }
        if fadeOut > .zero { fade(TimeRange(start: total - fadeOut, end: total), power: 3, rising: false) }
        do { return try Ramp(polyline: points) } catch {
            throw .media(path: "composition", reason: "cannot set the music's fades: \(error)")
        }
    }

    /// The music bed: from `offset` into the file, once (cut at the end, silence after it
    /// if shorter) or looped — passes alternating between two tracks, overlapping by
    /// `loopCrossfade` with linear fades, so the loop point is seamless. Gain and fades
    /// are set as volume ramps; ducking is multiplied in later (`applyDucking`).
    private func addMusic(_ music: Recipe.Music, total: MediaTime, to built: inout BuiltComposition) throws(CompositionBuildError) {
        let name = (music.source as NSString).lastPathComponent
        let media: ProbedMedia
        do { media = try probe.probe(music.source) } catch {
            throw .media(path: music.source, reason: Self.reason(error, about: music.source))
        }
        guard let audio = media.audio, audio.timeRange.duration > .zero else {
            throw recipeError("music.source \(name) has no audio", at: music.location)
        }
        guard music.offset < audio.timeRange.duration else {
            throw recipeError("music.offset \(music.offset)s is past the end of \(name), which lasts \(audio.timeRange.duration)s", at: music.location)
        }
        if music.fadeIn + music.fadeOut > total {
            throw recipeError("music fades (\(music.fadeIn)s + \(music.fadeOut)s) are longer than the output (\(total)s)", at: music.location)
        }
        let body = TimeRange(start: audio.timeRange.start + music.offset, end: audio.timeRange.end)
        // Passes in output time; a body too short to fade in and out loops without fades.
        let crossfade = music.loop && body.duration > Self.loopCrossfade.multiplied(by: 2, dividedBy: 1) ? Self.loopCrossfade : .zero
        var passes: [TimeRange] = []
        var cursor = MediaTime.zero
        while cursor < total {
            let pass = TimeRange(start: cursor, duration: MediaTime.min(body.duration, total - cursor))
            passes.append(pass)
            guard music.loop, pass.end < total else { break }
            cursor = pass.end - crossfade
        }
        let source = SourceTrack(asset: music.source, trackID: audio.trackID, mediaType: .audio, timeRange: audio.timeRange)
        let trackIDs = passes.count > 1 ? [built.composition.addTrack(.audio), built.composition.addTrack(.audio)]
                                        : [built.composition.addTrack(.audio)]
        var crossfades = [TrackID: Ramp<Double>]()
        for (k, pass) in passes.enumerated() {
            let trackID = trackIDs[k % trackIDs.count]
            try edit(&built.composition, trackID) { track throws(CompositionEditError) in
                try track.insert(TimeRange(start: body.start, duration: pass.duration), of: source, at: pass.start)
            }
            guard crossfade > .zero else { continue }
            try rampEdit {
                var ramp = crossfades[trackID] ?? Ramp(defaultValue: 1)
                if k > 0 { try ramp.setRamp(from: 0, to: 1, range: TimeRange(start: pass.start, duration: crossfade)) }
                if k < passes.count - 1 { try ramp.setRamp(from: 1, to: 0, range: TimeRange(start: pass.end - crossfade, end: pass.end)) }
                crossfades[trackID] = ramp
            }
        }
        let levels = try Self.musicLevels(gain: music.gain.linear, fadeIn: music.fadeIn, fadeOut: music.fadeOut, total: total)
        var bed = MusicBed(trackIDs: trackIDs, baseVolumes: [:], duck: music.duck, duration: total)
        for trackID in trackIDs {
            let volume = crossfades[trackID].map { levels.multiplied(by: $0, until: total) } ?? levels
            bed.baseVolumes[trackID] = volume
            built.audioMix.edit(track: trackID) { $0.volume = volume }
        }
        built.music = bed
    }

    private func makeOverlay(_ overlay: Recipe.Overlay, total: MediaTime, renderSize: PixelSize,
                             input: String, date: Date) throws(CompositionBuildError) -> OverlayLayer {
        var range = TimeRange(start: .zero, end: total)
        if let during = overlay.during {
            let start = during.start.resolved(end: total), end = MediaTime.min(during.end.resolved(end: total), total)
            guard start < end else {
                throw recipeError("overlay during [\(during.start), \(during.end)] starts after the output ends (\(total)s)", at: during.location)
            }
            range = TimeRange(start: start, end: end)
        }
        if overlay.fadeIn + overlay.fadeOut > range.duration {
            throw recipeError("overlay fades (\(overlay.fadeIn)s + \(overlay.fadeOut)s) are longer than the time it is shown (\(range.duration)s)", at: overlay.location)
        }
        let content: OverlayLayer.Content
        switch overlay.content {
        case let .image(path):
            content = .image(path: path)
        case let .imageSequence(paths, fps):
            content = .imageSequence(paths: paths, frameDuration: MediaTime(seconds: 1 / fps, preferredTimescale: 60_000))
        case let .text(template, font, size, color):
            let text = template.render(.init(inputPath: input, recipeName: recipe.name, date: date))
            content = .text(text, fontPath: font, pixelSize: size.pixels(of: Double(renderSize.height)), color: color)
        }
        let shorter = Double(min(renderSize.width, renderSize.height))
        var layer = OverlayLayer(content: content, anchor: overlay.anchor, margin: overlay.margin.pixels(of: shorter),
                                 width: overlay.width?.pixels(of: Double(renderSize.width)), timeRange: range)
        try rampEdit {
            if overlay.fadeIn > .zero {
                try layer.opacity.setRamp(from: 0, to: overlay.opacity, range: TimeRange(start: range.start, duration: overlay.fadeIn))
            } else {
                try layer.opacity.set(overlay.opacity, at: range.start)
            }
            if overlay.fadeOut > .zero {
                try layer.opacity.setRamp(from: overlay.opacity, to: 0, range: TimeRange(start: range.end - overlay.fadeOut, end: range.end))
            }
        }
        if let move = overlay.move {
            // The glide starts when the overlay appears and lasts `duration` (at most the
            // time it is shown), then it rests at `to`.
            let length = MediaTime.min(move.duration ?? range.duration, range.duration)
            var motion = Ramp<Timeline.Point>(defaultValue: move.from.unitPoint)
            try rampEdit { try motion.setRamp(from: move.from.unitPoint, to: move.to.unitPoint, range: TimeRange(start: range.start, duration: length)) }
            layer.motion = motion
        }
        let height = Double(renderSize.height)
        if let outline = overlay.outline {
            layer.textEffects.outlineWidth = outline.size.pixels(of: height)
            layer.textEffects.outlineColor = outline.color
        }
        if let shadow = overlay.shadow {
            layer.textEffects.shadowOffset = shadow.size.pixels(of: height)
            layer.textEffects.shadowColor = shadow.color
        }
        return layer
    }

    /// A probe error's text without the path it starts with (the error names it already).
    static func reason(_ error: any Error, about path: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }

    private func recipeError(_ message: String, at location: SourceLocation) -> CompositionBuildError {
        .recipe(RecipeError(message, at: location))
    }
}
