import Foundation
import Logging
import MediaIO
import Support
import Timeline

/// Renders a composition to an adaptive HLS ladder in a folder: every output frame is
/// composited once, at the composition's render size, then scaled to each rung and
/// encoded there; the sound is mixed and encoded once, as the ladder's one audio
/// rendition. Each rendition is a folder of fMP4/CMAF segments with its own media
/// playlist (libavformat's `hls` muxer); the master playlist, written last, lists them
/// with their measured bandwidth, size and codecs.
///
/// Every rung's encoder has a keyframe exactly every `keyframeInterval` frames (the
/// segment length to the nearest frame) and nowhere else, so the rungs' segments start on
/// the same frames and a player can switch between them at any segment.
///
/// The stages are `ExportSession`'s: decoding + compositing on one thread (`FrameProducer`),
/// scaling + encoding + muxing on another (`HLSLadderWriter`). Cancelling the task stops
/// both; on any error or cancellation what was written in the folder is removed, and the
/// caller (which made it) removes the folder. A ladder that shares its timeline with
/// videos renders as a lane of their `MultiExportSession` instead, from their decode.
public final class HLSExportSession: Sendable {
    public let composition: Composition
    public let videoComposition: VideoComposition
    public let audioMix: AudioMix
    public let overlays: [OverlayLayer]
    /// As for a video; `videoCopy` and `audioCopy` are ignored (a ladder is always encoded).
    public let settings: ExportSettings
    /// The rungs, tallest first; none taller than the render size.
    public let rungs: [PixelSize]
    /// The segments' target length.
    public let segment: MediaTime
    private let logger: Logger

    /// What was written: the master playlist and its renditions.
    public struct Ladder: Sendable, Hashable {
        /// The master playlist's path.
        public var master: String
        public var playlist: MasterPlaylist
        /// Every file written, relative to the folder: the master, playlists, init and
        /// media segments.
        public var files: [String]
        /// Frames per rung.
        public var frameCount: Int
    }

    public init(composition: Composition, videoComposition: VideoComposition, audioMix: AudioMix = AudioMix(),
                overlays: [OverlayLayer] = [], settings: ExportSettings, rungs: [PixelSize], segment: MediaTime, logger: Logger) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.audioMix = audioMix
        self.overlays = overlays
        var encoded = settings
        encoded.videoCopy = nil
        encoded.audioCopy = nil
        self.settings = encoded
        self.rungs = rungs
        self.segment = segment
        self.logger = logger
    }

    /// The rungs of `heights` for a render of `size`: each `size`'s shape at that height,
    /// width rounded to even; heights above the render's left out (never upscaled); the
    /// render's own size when none is left. Tallest first, each size once.
    public static func rungs(heights: [Int], renderSize size: PixelSize) -> [PixelSize] {
        var rungs: [PixelSize] = []
        for height in heights.sorted(by: >) where height <= size.height {
            let width = Swift.max(2, 2 * Int((Double(height) * Double(size.width) / Double(size.height) / 2).rounded()))
            let rung = PixelSize(width: width, height: height)
            if !rungs.contains(rung) { rungs.append(rung) }
        }
        return rungs.isEmpty ? [size] : rungs
    }

    /// Frames between keyframes: the segment length to the nearest whole frame, at least 1.
    public var keyframeInterval: Int {
        let frames = segment.seconds / videoComposition.frameDuration.seconds
        guard frames.isFinite else { return 1 }
        return Swift.max(1, Int(Swift.min(frames.rounded(), Double(Int32.max))))
    }

    /// Writes the ladder into `folder` (which must exist and be empty), the master playlist
    /// named `masterName`, calling `progress` after each frame.
    public func export(to folder: String, masterName: String,
                       progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws -> Ladder {
        // The work blocks in FFmpeg: keep it off the cooperative thread pool.
        try await BlockingWork.run("dropcut-hls") { cancelled in
            try self.run(to: folder, masterName: masterName, cancelled: cancelled, progress: progress)
        }
    }

    /// The single-file session of the same composition and settings: its checks, its
    /// audio decisions, and what a shared render compares (`MultiExportSession.sharesLadder`).
    package var videoSession: ExportSession {
        ExportSession(composition: composition, videoComposition: videoComposition, audioMix: audioMix,
                      overlays: overlays, settings: settings, logger: logger)
    }

    /// The composition's checks, and the rungs': even, none larger than the render size.
    func validate() throws {
        try videoSession.validate()
        let renderSize = videoComposition.renderSize
        guard !rungs.isEmpty, rungs.allSatisfy({ $0.isEven && $0.width <= renderSize.width && $0.height <= renderSize.height }) else {
            throw ExportError.invalidComposition(["HLS rungs \(rungs) must be even and no larger than the render size \(renderSize)"])
        }
    }

    /// The ladder's writer in `folder`, its audio fed by `audio` (given the mix format).
    func writer(folder: String, audio: HLSLadderWriter.Audio?) throws -> HLSLadderWriter {
        try HLSLadderWriter(folder: folder, renderSize: videoComposition.renderSize, rungs: rungs, settings: settings,
                            frameDuration: videoComposition.frameDuration, keyframeInterval: keyframeInterval,
                            creationTime: settings.creationTime ?? videoSession.firstVideoCreationTime(), audio: audio)
    }

    /// The ladder's audio mixed on its own (`AudioStage`), as a single render mixes it;
    /// nil without sound.
    func ownAudio(cancelled: Cancellation) throws -> HLSLadderWriter.Audio? {
        let single = videoSession
        guard let format = try single.audioFormat() else { return nil }
        var gain: Float = 1
        if let target = settings.loudnessTarget {
            gain = try single.measureLoudnessGain(format, target: target, cancelled: cancelled)
        }
        let composition = composition, audioMix = audioMix
        return HLSLadderWriter.Audio(sampleRate: format.sampleRate, channels: format.channels) { encoder, stream in
            let mixer = AudioMixer(composition: composition, audioMix: audioMix, sampleRate: format.sampleRate,
                                   channels: format.channels, maximumBlock: ExportSession.audioBlock)
            try mixer.openFirstSources()
            return try AudioStage(encoder: encoder, stream: stream, mixer: mixer,
                                  totalSamples: composition.duration.ticks(in: Int32(format.sampleRate)) ?? 0, gain: gain)
        }
    }

    private func run(to folder: String, masterName: String, cancelled: Cancellation,
                     progress: @Sendable (ExportProgress) -> Void) throws -> Ladder {
        try validate()
        let renderSize = videoComposition.renderSize
        let scheduler = FrameScheduler(composition: composition, videoComposition: videoComposition)
        let frameCount = scheduler.frameCount

        let overlayRenderer = try OverlayRenderer(layers: overlays, renderSize: renderSize, dynamicRange: settings.dynamicRange,
                                                  logger: logger)
        let stage = try FrameProducer(scheduler: scheduler, renderSize: renderSize, overlays: overlayRenderer,
                                      poolSize: ExportSession.framePoolSize, deinterlace: settings.deinterlace,
                                      dynamicRange: settings.dynamicRange)
        try stage.openFirstSources()
        let writer = try self.writer(folder: folder, audio: try ownAudio(cancelled: cancelled))
        do {
            logger.debug("hls export started", metadata: [
                "folder": "\(folder)", "rungs": "\(rungs.map(\.description).joined(separator: ", "))",
                "keyframe interval": "\(keyframeInterval)", "frames": "\(frameCount)"])
            try stage.start()
            _ = try writer.encodeFrames(from: stage.outputs[0], frameCount: frameCount,
                                        isCancelled: { cancelled.isCancelled }, progress: progress)
            stage.stop()
        } catch {
            stage.stop()
            writer.abandon()
            throw error
        }
        return try writer.writeMaster(masterName: masterName, frameCount: frameCount)
    }
}
