import Foundation
import Logging
import MediaIO
import Recipe
import Render

/// One input rendered through one recipe: the composition built from the probed media,
/// the music ducked under the clips, exported with the recipe's codec settings. What
/// `dropcut render` and the daemon's jobs both run, so the two never drift apart.
public struct ClipRender: Sendable {
    public let input: String
    public let built: BuiltComposition

    /// Builds the composition for `input` (probing it and every asset) and plans the ducking.
    public init(input: String, recipe: Recipe, date: Date = Date()) throws {
        self.input = input
        var built = try CompositionBuilder(recipe: recipe, probe: AssetProbe()).build(input: input, date: date)
        try built.duckMusicUnderClips()
        self.built = built
    }

    /// The file name the recipe gives the output.
    public var outputFilename: String { built.outputFilename }

    /// Exports to `path` (its extension picks the container). Cancelling the task stops the
    /// export and removes the partial file (`ExportError.cancelled`); on any other error the
    /// partial file is removed too.
    public func export(to path: String, logger: Logger, progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws {
        for sidecar in built.slowMotionSidecars {
            logger.info("slow motion from sidecar", metadata: ["input": "\(input)", "sidecar": "\(sidecar.path)",
                                                              "rate": "\(sidecar.rate)", "regions": "\(sidecar.regions.count)"])
        }
        var settings = ExportSettings()
        settings.videoCodec = built.output.video.codec == .hevc ? .hevc : .h264
        settings.crf = built.output.video.crf
        settings.preset = built.output.video.preset
        settings.audioBitrate = built.output.audio.bitrate
        settings.loudnessTarget = built.output.audio.loudness
        let session = ExportSession(composition: built.composition, videoComposition: built.videoComposition,
                                    audioMix: built.audioMix, overlays: built.overlays, settings: settings, logger: logger)
        do {
            try await session.export(to: path, progress: progress)
        } catch {
            unlink(path)
            throw error
        }
    }
}
