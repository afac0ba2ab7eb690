import Foundation
import Logging
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// A composition as one output shows it and encodes it — the composition, its video
/// composition and audio mix, the overlays drawn over it, the export settings — and its
/// render to one movie file (AVAssetExportSession's role): `export(to:)` is a
/// `RenderPlan` of one output, made by `RenderGraph` as any set of outputs is. Every
/// output frame on the video composition's frame grid is planned, its layers' source
/// frames fetched, composited and encoded; the audio tracks are mixed through the audio
/// mix's volume timelines and encoded to AAC; both are muxed into MP4/MOV with the index
/// first, and the file is read back (`OutputCheck`) before the export returns.
public final class ExportSession: Sendable {
    public let composition: Composition
    public let videoComposition: VideoComposition
    public let audioMix: AudioMix
    /// Drawn over the composited video, in order (later on top).
    public let overlays: [OverlayLayer]
    public let settings: ExportSettings
    let logger: Logger

    public init(composition: Composition, videoComposition: VideoComposition, audioMix: AudioMix = AudioMix(),
                overlays: [OverlayLayer] = [], settings: ExportSettings = ExportSettings(), logger: Logger) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.audioMix = audioMix
        self.overlays = overlays
        self.settings = settings
        self.logger = logger
    }

    /// Exports to `path` (`.mp4`, `.mov` or `.m4v`), calling `progress` after each frame.
    /// On error or cancellation (`ExportError.cancelled`) nothing is left at `path`.
    public func export(to path: String, progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws {
        let plan = RenderPlan(outputs: [RenderOutput(session: self, destination: .file(path: path))])
        _ = try await RenderGraph(plan: plan, logger: logger).run { _, done in progress(done) }
    }

    /// The same session with every stream encoded (none copied).
    package var encodingEverything: ExportSession {
        guard settings.copiesVideo || settings.audioCopy != nil else { return self }
        return ExportSession(composition: composition, videoComposition: videoComposition, audioMix: audioMix,
                             overlays: overlays, settings: settings.encodingEverything, logger: logger)
    }

    func validate() throws {
        var problems = composition.validate().map(\.description)
        problems += videoComposition.validate(for: composition).map(\.description)
        // Never an empty file reported as a render.
        if composition.duration <= .zero { problems.append("the composition is empty (it lasts 0 s)") }
        if settings.dynamicRange == .hlg && !settings.videoCodec.carriesHDR {
            problems.append("HDR (HLG) output needs the \(VideoCodecID.hdr.rawValue.uppercased()) codec (got \(settings.videoCodec.rawValue))")
        }
        if !videoComposition.renderSize.isEven {
            problems.append("render size \(videoComposition.renderSize) is odd; 4:2:0 video needs even width and height")
        }
        if !problems.isEmpty { throw ExportError.invalidComposition(problems) }
    }

    /// The mix format: from the first audio source (its rate when AAC has it, else
    /// 48 kHz; its channels, at most two), unless the settings say; nil without audio
    /// tracks. A `Production` sets both from its probe, so the source is opened here only
    /// for callers that did not.
    func audioFormat() throws -> AudioFormat? {
        let tracks = composition.tracks(of: .audio)
        guard !tracks.isEmpty else { return nil }
        if let rate = settings.audioSampleRate, let channels = settings.audioChannels { return AudioFormat(sampleRate: rate, channels: channels) }
        var stream: StreamInfo?
        if let source = tracks.lazy.flatMap(\.segments).compactMap(\.source).first {
            stream = try Demuxer(path: source.track.asset).streams[Int(source.track.trackID) - 1]
        }
        let format = ExportSettings.audioFormat(sourceSampleRate: stream?.sampleRate, sourceChannels: stream?.channels)
        return AudioFormat(sampleRate: settings.audioSampleRate ?? format.sampleRate, channels: settings.audioChannels ?? format.channels)
    }

    func firstVideoCreationTime() -> String? {
        // The first movie's: a still picture has no container to say when it was made.
        guard let source = composition.tracks(of: .video).lazy.flatMap(\.segments).compactMap(\.source)
            .first(where: { !$0.track.isStillImage }) else { return nil }
        return try? Demuxer(path: source.track.asset).creationTime
    }
}
