import Foundation
import Logging
import MediaIO
import Render
import Support

extension Production {
    /// The session that renders this production as it is prepared (copies included).
    func session(logger: Logger) -> ExportSession {
        ExportSession(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix,
                      overlays: built.overlays, settings: settings, logger: logger)
    }

    /// Whether `other`'s pictures (a poster, a preview) can be composited from the frames
    /// this production decodes (`MultiExportSession.sharesPictures`).
    func sharesPictures(with other: Production) -> Bool {
        let logger = Logger(label: "dropcut")
        return MultiExportSession.sharesPictures(session(logger: logger), other.session(logger: logger))
    }

    /// Whether this production and `other` can be rendered from one decode
    /// (`MultiExportSession.sharesDecode`): the same timeline, frame grid and sound,
    /// nothing copied.
    func sharesDecode(with other: Production) -> Bool {
        let logger = Logger(label: "dropcut")
        return MultiExportSession.sharesDecode(session(logger: logger), other.session(logger: logger))
    }

    /// Renders several productions that share their decode (`sharesDecode`) to their
    /// paths at once: each source frame decoded once, the sound mixed once, every output
    /// read back (`OutputCheck`). `progress` is called with a rendition's index in
    /// `renditions`; `taps` get their pictures as they are composited. On any error nothing
    /// is left at any path. Copied sound that turns out unfit to copy renders each
    /// production on its own, as `export(to:)` renders it (re-encoded), and returns nil:
    /// the taps' pictures are then incomplete.
    static func export(_ renditions: [(production: Production, path: String)], taps: [PictureTap] = [], logger: Logger,
                       progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> MultiExportSession.Statistics? {
        for (production, _) in renditions {
            for sidecar in production.built.slowMotionSidecars {
                logger.info("slow motion from sidecar", metadata: ["input": "\(production.input)", "sidecar": "\(sidecar.path)",
                                                                  "rate": "\(sidecar.rate)", "regions": "\(sidecar.regions.count)"])
            }
            for line in production.passThrough.lines {
                logger.info("stream", metadata: ["input": "\(production.input)", "plan": "\(line)"])
            }
        }
        let session = MultiExportSession(sessions: renditions.map { $0.production.session(logger: logger) },
                                         paths: renditions.map(\.path), taps: taps)
        do {
            let statistics = try await session.export(progress: progress)
            // Never report success for an output that has not been read back.
            do {
                try await BlockingWork.run("dropcut-check") { _ in
                    for (production, path) in renditions {
                        try OutputCheck.verify(path, composition: production.built.composition,
                                               frameDuration: production.built.videoComposition.frameDuration)
                    }
                }
            } catch {
                for (_, path) in renditions { _ = unlink(path) }
                throw error
            }
            return statistics
        } catch let error where renditions[0].production.settings.audioCopy != nil
                                && (error is StreamCopyUnsuitable || error is OutputCheck.Failure) {
            logger.warning("shared render with copied sound abandoned, rendering each output on its own",
                           metadata: ["reason": "\(error)"])
            do {
                for (index, rendition) in renditions.enumerated() {
                    try await rendition.production.export(to: rendition.path, logger: logger) { progress(index, $0) }
                }
            } catch {
                for (_, path) in renditions { _ = unlink(path) }
                throw error
            }
            return nil
        }
    }
}
