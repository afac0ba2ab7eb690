import Foundation
import Logging
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

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
/// `export(to:masterName:)` is a `RenderPlan` of one output (`HLSLadderWriter` its lane),
/// made by `RenderGraph` as any set of outputs is; a ladder that shares its timeline with
/// videos is one more output of their plan. On any error or cancellation what was written
/// in the folder is removed, and the caller (which made it) removes the folder.
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
        self.settings = settings.encodingEverything
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
        destination(folder: "", masterName: "").keyframeInterval(frameDuration: videoComposition.frameDuration)
    }

    /// Writes the ladder into `folder` (which must exist and be empty), the master playlist
    /// named `masterName`, calling `progress` after each frame.
    public func export(to folder: String, masterName: String,
                       progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws -> Ladder {
        let output = RenderOutput(session: videoSession, destination: .ladder(destination(folder: folder, masterName: masterName)))
        let made = try await RenderGraph(plan: RenderPlan(outputs: [output]), logger: logger).run { _, done in progress(done) }
        guard let ladder = made.ladders[0] else { throw ExportError.invalidComposition(["the ladder in \(folder) was not written"]) }
        return ladder
    }

    /// Where the ladder goes, as a render output.
    package func destination(folder: String, masterName: String) -> RenderOutput.LadderDestination {
        RenderOutput.LadderDestination(folder: folder, masterName: masterName, rungs: rungs, segment: segment)
    }

    /// The single-file session of the same composition and settings: what the ladder's
    /// render output shows and how it encodes.
    package var videoSession: ExportSession {
        ExportSession(composition: composition, videoComposition: videoComposition, audioMix: audioMix,
                      overlays: overlays, settings: settings, logger: logger)
    }
}
