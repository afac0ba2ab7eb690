import Foundation
import DropcutSupport
import DropcutTimeline

/// Turns a recipe plus probed media into the Timeline model, the way an AVFoundation app
/// builds a composition: a video and an audio composition track per clip — video
/// alternating between tracks A and B so transitions can overlap them (pass-through
/// instructions, then transition instructions whose layers ramp opacity, transform or
/// crop) — speed ranges applied with `scale`, an audio mix with crossfades and the music
/// bed, and the overlay layers.
///
/// Building is complete in one call: the media are probed through `probe` and, when the
/// music ducks under the clips' sound, that sound is measured through `levels`, so what
/// `build` returns is ready to render.
package struct CompositionBuilder: Sendable {
    package var recipe: Recipe
    package var probe: any MediaProbing
    package var levels: any SoundLevelMeasuring
    /// Analyses clips for `fit: smart` (asked only then).
    package var subjects: any SubjectAnalyzing

    package init(recipe: Recipe, probe: any MediaProbing, levels: any SoundLevelMeasuring,
                subjects: any SubjectAnalyzing = NoSubjectAnalysis()) {
        self.recipe = recipe
        self.probe = probe
        self.levels = levels
        self.subjects = subjects
    }

    /// One clip, placed.
    struct PlacedClip {
        var media: ProbedMedia
        var video: ProbedMedia.Video
        var spec: Recipe.Clip
        var trim: TimeRange
        var start: MediaTime
        var duration: MediaTime
        var videoTrack: TrackID = 0
        var audioTrack: TrackID?
        var transform: DropcutTimeline.AffineTransform = .identity
        /// `fit: smart`: where its crop window goes (nil: not smart, or the clip moves itself).
        var reframing: ClipReframing?
        /// Its video's source ranges and where the composition shows them (after speed
        /// changes), in order: how `fit: smart` moves a source time to composition time
        /// (set only under `fit: smart`).
        var shown: [(source: TimeRange, target: TimeRange)] = []
        var end: MediaTime { start + duration }
    }

    /// Builds the composition for `input` (the dropped clip that `{input}` stands for).
    package func build(input: String, date: Date = Date()) throws(CompositionBuildError) -> BuiltComposition {
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
        guard let total = clips.last?.end else {
            throw recipeError("the recipe has no clips", at: SourceLocation(file: recipe.name, line: 1, column: 1))
        }

        var composition = Composition()
        let trackA = composition.addTrack(.video)
        let trackB = clips.count > 1 ? composition.addTrack(.video) : trackA
        var audioMix = AudioMix()
        for i in clips.indices {
            clips[i].videoTrack = i % 2 == 0 ? trackA : trackB
            try insert(&clips[i], into: &composition)
            if recipe.output.fit == .smart {
                let clip = clips[i]
                clips[i].shown = (composition.track(clip.videoTrack)?.segments ?? []).compactMap { segment in
                    guard let source = segment.source, source.track.asset == clip.media.path, source.timeRange.duration > .zero,
                          segment.target.start >= clip.start, segment.target.end <= clip.end else { return nil }
                    return (source.timeRange, segment.target)
                }
            }
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

        let sourceSize = clips[0].video.naturalSize.applying(orientation(of: clips[0].video))
        // `size: 1080p` / `{ max: ... }`: the source's shape fitted into the bound, never upscaled.
        let renderSize = recipe.output.size ?? recipe.output.sizeBound.map { $0.size(for: sourceSize) } ?? sourceSize.evenRoundedDown
        for i in clips.indices {
            clips[i].transform = DropcutTimeline.AffineTransform.placing(naturalSize: clips[i].video.naturalSize, preferredTransform: orientation(of: clips[i].video),
                                          in: renderSize, mode: recipe.output.fit)
            if clips[i].spec.kenBurns == nil, clips[i].spec.transform.isEmpty {
                clips[i].reframing = try reframing(of: clips[i], renderSize: renderSize)
            }
        }
        let videoComposition = try makeVideoComposition(clips, transition: transition, renderSize: renderSize)

        var built = BuiltComposition(
            composition: composition, videoComposition: videoComposition, audioMix: audioMix, overlays: [],
            output: recipe.output,
            outputFilename: FileName.fitting(recipe.output.filename.render(.init(inputPath: input, recipeName: recipe.name, date: date))),
            clipAudioTrackIDs: clips.compactMap(\.audioTrack), slowMotionSidecars: sidecars,
            media: Dictionary(clips.map { ($0.media.path, $0.media) }, uniquingKeysWith: { first, _ in first }))
        built.reframings = clips.compactMap(\.reframing)
        // Before the music: replace items silence the clips' sound the ducking listens to.
        try addAudioItems(total: total, to: &built)
        if let music = recipe.music {
            try addMusic(music, total: total, to: &built)
            try duckMusic(in: &built)
        }
        // `validate` checked against the largest output when the size is the source's.
        if let problem = OverlaySizeCheck.problems(in: recipe.overlays, output: renderSize).first {
            throw recipeError(problem.message, at: problem.location)
        }
        built.overlays = try recipe.overlays.map { overlay throws(CompositionBuildError) in
            try makeOverlay(overlay, total: total, renderSize: renderSize, input: input, date: date)
        }
        // Captions go over every other overlay.
        if let captions = try makeCaptions(input: input, clips: clips, composition: composition, renderSize: renderSize) {
            built.captions = captions.track
            built.captionSource = captions.source
            built.captionWarnings = captions.warnings
            if recipe.output.captions == .burn {
                built.overlays.append(OverlayLayer(content: .captions(captions.track), anchor: .bottom, margin: 0,
                                                   timeRange: TimeRange(start: .zero, end: total)))
            }
        }
        return built
    }

    func edit(_ composition: inout Composition, _ trackID: TrackID,
                      _ body: (inout CompositionTrack) throws(CompositionEditError) -> Void) throws(CompositionBuildError) {
        do {
            try composition.edit(track: trackID) { track in try body(&track) }
        } catch {
            // Edits only fail here when a probe reported ranges that contradict each other.
            throw .media(path: "composition", reason: "cannot place the clip: \(error)")
        }
    }

    func rampEdit(_ body: () throws -> Void) throws(CompositionBuildError) {
        do { try body() } catch {
            throw .media(path: "composition", reason: "cannot set the ramps: \(error)")
        }
    }

    func orientation(of video: ProbedMedia.Video) -> DropcutTimeline.AffineTransform {
        switch recipe.orientation {
        case .auto, .keep: return video.preferredTransform
        case let .degrees(degrees): return .orientation(quarterTurns: degrees / 90, naturalSize: video.naturalSize)
        }
    }

    /// A probe error's text without the path it starts with (the error names it already).
    static func reason(_ error: any Error, about path: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }

    /// Probes a file the recipe names (an asset, a music bed, an audio item), or the
    /// dropped clip when `location` is nil: a file the recipe names that cannot be used is
    /// the recipe's error, at the line and column that name it (`key` says which), so a
    /// recipe whose `audio:` source is a YAML file says where.
    func probeMedia(_ path: String, key: String, at location: SourceLocation?) throws(CompositionBuildError) -> ProbedMedia {
        do { return try probe.probe(path) } catch {
            let reason = Self.reason(error, about: path)
            guard let location else { throw .media(path: path, reason: reason) }
            throw recipeError("\(key) \((path as NSString).lastPathComponent): \(reason)", at: location)
        }
    }

    func recipeError(_ message: String, at location: SourceLocation) -> CompositionBuildError {
        .recipe(RecipeError(message, at: location))
    }
}
