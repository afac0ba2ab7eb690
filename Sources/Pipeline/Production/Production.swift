import Foundation
import Logging
import DropcutMediaIO
import DropcutRecipe
import DropcutReframe
import DropcutRender
import DropcutSupport
import DropcutTimeline

/// One render, completely described: a recipe applied to a dropped clip — the
/// composition, how its video is drawn, its audio mix with the music already ducked, the
/// overlays, the export settings and the output's name. Immutable and complete: what
/// `plan` prints is what `export` renders, and a library user cannot forget a step.
///
/// `dropcut render`, `dropcut plan` and the daemon's jobs all make one with
/// `Production.prepare` and nothing else. What the builder made is kept as it was handed
/// over (`built`) and read through it — `production.composition`, `.videoComposition`,
/// `.audioMix`, `.overlays`, `.outputFilename`, `.music`, `.audioItems`, `.clipLevels`,
/// `.slowMotionSidecars` are the `BuiltComposition`'s — so a field added to it reaches
/// every front end without being copied here.
@dynamicMemberLookup
public struct Production: Sendable {
    /// The dropped clip `{input}` stood for.
    public let input: String
    /// What the builder made of the recipe and the media.
    public let built: BuiltComposition
    /// Codecs and quality from the recipe's `output`, audio format and creation time
    /// from the probed sources.
    public let settings: ExportSettings
    /// Which streams are copied from a source rather than encoded, and why the others are
    /// not (`settings.videoCopy` / `audioCopy` carry the copies).
    public let passThrough: PassThrough

    /// The builder's result, read-only: `production.composition` is
    /// `production.built.composition`.
    public subscript<Value>(dynamicMember member: KeyPath<BuiltComposition, Value>) -> Value {
        built[keyPath: member]
    }

    /// Builds the production for `input` through `recipe`: probes every file through
    /// `probe` and, when the music ducks under the clips, measures their sound through
    /// `levels`. Pure given those two, so tests can hand it media descriptions directly.
    ///
    /// `pictures` says where a file's track's keyframes and IDR pictures lie, asked only
    /// when a clip whose video could be copied is cut or could be spliced (`PassThrough`);
    /// nil: not known.
    public init(recipe: Recipe, input: String, date: Date = Date(), probe: any MediaProbing,
                levels: any SoundLevelMeasuring, subjects: any SubjectAnalyzing = NoSubjectAnalysis(),
                pictures: (String, TrackID) -> SourcePictureIndex? = { _, _ in nil }) throws(CompositionBuildError) {
        built = try CompositionBuilder(recipe: recipe, probe: probe, levels: levels, subjects: subjects).build(input: input, date: date)
        self.input = input
        var encoded = Self.exportSettings(recipe.output, composition: built.composition, media: built.media)
        if recipe.output.captions == .soft, let captions = built.captions { encoded.softCaptions = captions.cues }
        let keeping = PassThrough.Keeping(displayMatrix: recipe.orientation == .keep, variableRate: recipe.output.fps == nil)
        var decided = PassThrough(built: built, settings: encoded, reencode: recipe.output.video.reencode, keeping: keeping,
                                  pictures: pictures)
        // A recipe that names no codec keeps an HEVC source's where the video is copied
        // whole (an iPhone's clip stays HEVC, unchanged); where it is encoded, H.264.
        if !recipe.output.video.codecIsExplicit, decided.video.copy == nil, encoded.videoCodec != .hevc,
           built.media.values.contains(where: { $0.video?.codec == VideoCodecID.hevc.rawValue }) {
            var hevc = encoded
            hevc.videoCodec = .hevc
            let kept = PassThrough(built: built, settings: hevc, reencode: recipe.output.video.reencode, keeping: keeping,
                                   pictures: pictures)
            if kept.video.copy != nil {
                decided = kept
                encoded = hevc
            }
        }
        passThrough = decided
        settings = passThrough.applied(to: encoded)
    }

    /// Builds the production from the real files: probed with FFmpeg and the clips' sound
    /// measured, on a thread of its own (`BlockingWork`), cancellably — cancelling the
    /// task throws `CancellationError`.
    public static func prepare(recipe: Recipe, input: String, date: Date = Date()) async throws -> Production {
        try await prepare(recipes: [recipe], input: input, date: date)[0]
    }

    /// Builds a production per recipe (the deliverables of one clip), as `prepare` builds
    /// one, on one thread of its own: each file probed once, the clips' sound measured
    /// once per distinct composition (the entries differ in size and encoding, rarely in
    /// timing), keyframes read only where a cut decides a copy.
    static func prepare(recipes: [Recipe], input: String, date: Date) async throws -> [Production] {
        try await BlockingWork.run("dropcut-prepare") { cancellation in
            let probe = SharedProbe(AssetProbe())
            let meter = SharedMeter(AudioActivity.Meter(isCancelled: { cancellation.isCancelled }))
            let subjects = SharedSubjects(SubjectAnalyzer())
            var productions: [Production] = []
            for recipe in recipes {
                if cancellation.isCancelled { throw CancellationError() }
                do {
                    productions.append(try Production(recipe: recipe, input: input, date: date, probe: probe, levels: meter, subjects: subjects,
                                                      pictures: { path, track in try? KeyframeIndex.scan(path: path, trackID: track) }))
                } catch CompositionBuildError.cancelled {
                    throw CancellationError()
                } catch {
                    // The measuring or probing error itself (an FFmpegError with its errno,
                    // and whether the clip is incomplete), not the builder's wrapping: a
                    // daemon retries an EIO or ENOMEM, not a bad file, and looks again at a
                    // clip still being written.
                    if let measured = meter.failure { throw measured }
                    if case let CompositionBuildError.media(path, _) = error, path == input, let probed = probe.failure(for: path) { throw probed }
                    throw error
                }
            }
            return productions
        }
    }

    /// The recipe's codec settings, with the audio format and creation time of the
    /// sources the composition starts with (so the export need not open them again).
    static func exportSettings(_ output: Recipe.Output, composition: Composition,
                               media: [String: ProbedMedia]) -> ExportSettings {
        var settings = ExportSettings()
        settings.dynamicRange = dynamicRange(output.dynamicRange, composition: composition, media: media)
        // The recipe loader has rejected a named codec that cannot carry HDR.
        settings.videoCodec = .forOutput(hdr: settings.dynamicRange == .hlg, recipeCodec: output.video.codec,
                                         named: output.video.codecIsExplicit)
        settings.crf = output.video.crf
        settings.preset = output.video.preset
        settings.audioBitrate = output.audio.bitrate
        settings.loudnessTarget = output.audio.loudness
        settings.deinterlace = output.deinterlace == .auto
        func firstSource(_ type: MediaType) -> ProbedMedia? {
            composition.tracks(of: type).lazy.flatMap(\.segments).compactMap(\.source).first.flatMap { media[$0.track.asset] }
        }
        if let audio = firstSource(.audio)?.audio {
            let format = ExportSettings.audioFormat(sourceSampleRate: audio.sampleRate, sourceChannels: audio.channels)
            settings.audioSampleRate = format.sampleRate
            settings.audioChannels = format.channels
        }
        settings.creationTime = firstSource(.video)?.creationTime
        return settings
    }

    /// What `output.dynamic_range` comes to: `source` is HLG when any clip of the
    /// composition (its video) is HLG or PQ, else SDR.
    static func dynamicRange(_ choice: Recipe.DynamicRange, composition: Composition,
                             media: [String: ProbedMedia]) -> OutputDynamicRange {
        switch choice {
        case .sdr: return .sdr
        case .hdr: return .hlg
        case .source:
            let sources = composition.tracks(of: .video).lazy.flatMap(\.segments).compactMap(\.source)
            return sources.contains { media[$0.track.asset]?.video?.color?.isHDR == true } ? .hlg : .sdr
        }
    }

    /// Logs what the render takes besides the recipe (slow-motion sidecars, captions) and
    /// which streams it copies.
    func logSources(_ logger: Logger) {
        for sidecar in built.slowMotionSidecars {
            logger.info("slow motion from sidecar", metadata: ["input": "\(input)", "sidecar": "\(sidecar.path)",
                                                              "rate": "\(sidecar.rate)", "regions": "\(sidecar.regions.count)"])
        }
        if let source = built.captionSource {
            let cues = built.overlays.reduce(0) { count, layer in
                if case let .captions(track) = layer.content { return count + track.cues.count }
                return count
            }
            logger.info("captions", metadata: ["input": "\(input)", "captions": "\(source)", "cues": "\(cues)"])
            for warning in built.captionWarnings {
                logger.warning("captions: \(warning)", metadata: ["input": "\(input)", "captions": "\(source)"])
            }
        }
        for line in passThrough.lines {
            // The plan's line is the message: a journal shows MESSAGE, not the fields.
            logger.info("\(line)", metadata: ["input": "\(input)", "plan": "\(line)"])
        }
    }
}
