import Foundation
import Logging
import MediaIO
import Recipe
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

    /// Whether the HLS ladder `ladder` of `other` can be a lane of this production's shared
    /// render (`MultiExportSession.sharesLadder`): the same timeline and frame grid, this
    /// video not copied.
    func sharesLadder(_ ladder: Recipe.HLSLadder, of other: Production) -> Bool {
        let logger = Logger(label: "dropcut")
        return MultiExportSession.sharesLadder(session(logger: logger), other.hlsSession(ladder, logger: logger))
    }

    /// Renders several productions that share their decode (`sharesDecode`) to their
    /// paths at once, and the HLS ladders of `ladders` (`sharesLadder`) into their folders
    /// (each existing, empty): each source frame decoded once, the sound mixed once, every
    /// video read back (`OutputCheck`). `progress` is called with an index into
    /// `renditions` followed by `ladders`; `taps` get their pictures as they are
    /// composited. On any error nothing is left at any path nor in any ladder's folder.
    /// Copied sound that turns out unfit to copy renders each video on its own, as
    /// `export(to:)` renders it (re-encoded), empties the ladders' folders and returns nil:
    /// the taps' pictures and the ladders are then to be made on their own.
    static func export(_ renditions: [(production: Production, path: String)],
                       ladders: [(production: Production, ladder: Recipe.HLSLadder, folder: String, masterName: String)] = [],
                       taps: [PictureTap] = [], logger: Logger,
                       progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> MultiExportSession.Statistics? {
        for (production, _) in renditions { production.logSources(logger) }
        let session = MultiExportSession(sessions: renditions.map { $0.production.session(logger: logger) },
                                         paths: renditions.map(\.path),
                                         ladders: ladders.map {
                                             .init(session: $0.production.hlsSession($0.ladder, logger: logger), folder: $0.folder,
                                                   masterName: $0.masterName)
                                         },
                                         taps: taps)
        func emptyLadders() {
            for ladder in ladders {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: ladder.folder)) ?? [] {
                    try? FileManager.default.removeItem(atPath: (ladder.folder as NSString).appendingPathComponent(name))
                }
            }
        }
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
                emptyLadders()
                throw error
            }
            return statistics
        } catch let error where renditions[0].production.settings.audioCopy != nil
                                && (error is StreamCopyUnsuitable || error is OutputCheck.Failure) {
            logger.warning("shared render with copied sound abandoned, rendering each output on its own",
                           metadata: ["reason": "\(error)"])
            emptyLadders()
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
