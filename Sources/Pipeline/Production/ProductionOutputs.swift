import Foundation
import Logging
import DropcutMediaIO
import DropcutRecipe
import DropcutRender
import DropcutSubtitles
import DropcutSupport
import DropcutTimeline

/// What a production makes, each as an output of a render (`RenderOutput`): its movie, an
/// HLS ladder, a poster, a preview. Made alone here (a plan of one output) or together,
/// as a deliverable set plans them (`SetRender`): either way by `RenderGraph`, so a
/// poster made alone is the poster a set makes, byte for byte.
extension Production {
    /// The session that shows and encodes this production as prepared (copies included).
    func session(logger: Logger) -> ExportSession {
        ExportSession(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix,
                      overlays: built.overlays, settings: settings, logger: logger)
    }

    /// Renders to `path` (its extension picks the container) and reads it back
    /// (`OutputCheck`); a copied stream that cannot be copied, or that does not read back
    /// as the composition, is encoded instead (`RenderPlan.reencoding`). Cancelling the task
    /// stops the export (`ExportError.cancelled`); on any error nothing is left at `path`.
    public func export(to path: String, logger: Logger,
                       progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws {
        logSources(logger)
        try await session(logger: logger).export(to: path, progress: progress)
    }

    /// The render output of this production's movie at `path`.
    func movieOutput(to path: String, logger: Logger) -> RenderOutput {
        RenderOutput(session: session(logger: logger), destination: .file(path: path))
    }

    // MARK: Pictures

    /// What the pictures show: the video in SDR, whatever the video's range.
    private func pictureSession(logger: Logger) -> ExportSession {
        var sdr = settings.encodingEverything
        sdr.dynamicRange = .sdr
        return ExportSession(composition: built.composition, videoComposition: built.videoComposition, audioMix: built.audioMix,
                             overlays: built.overlays, settings: sdr, logger: logger)
    }

    /// The frame `poster` shows: the one at its time, or the best of
    /// `RecipeLimits.posterCandidates` frames (each decoded and weighed here).
    func posterFrame(_ poster: Recipe.Poster, logger: Logger) async throws -> Int {
        switch poster.time {
        case let .at(time):
            return FrameScheduler(composition: built.composition, videoComposition: built.videoComposition).frameIndex(at: time)
        case .best:
            let session = pictureSession(logger: logger)
            return try await BlockingWork.run("dropcut-poster") { cancellation in
                let renderer = try PosterRenderer(session: session)
                let best = try renderer.bestFrame(candidates: RecipeLimits.posterCandidates, isCancelled: { cancellation.isCancelled })
                logger.debug("poster best frame", metadata: [
                    "frame": "\(best.index)",
                    "scores": "\(best.scores.map { "\($0.index): \(String(format: "%.0f", $0.score.value))" }.joined(separator: ", "))"])
                return best.index
            }
        }
    }

    /// The render output of frame `frame` in SDR, handed to `receive`.
    func pictureOutput(frame: Int, logger: Logger, receive: @escaping (VideoFrame) throws -> Void) -> RenderOutput {
        let tap = PictureTap(session: pictureSession(logger: logger), frames: [frame], receive: receive)
        return RenderOutput(session: tap.session, destination: .pictures(tap))
    }

    /// What writes `poster` to `path`: the picture encoded by the poster's format.
    static func posterWriter(_ poster: Recipe.Poster, to path: String) -> (VideoFrame) throws -> Void {
        { picture in
            let bytes = try PictureEncoder.encode(picture, as: poster.format)
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: path)
            }
        }
    }

    /// The time of frame `frame` in the output.
    func time(ofFrame frame: Int) -> MediaTime {
        built.videoComposition.frameDuration.multiplied(by: Int64(frame), dividedBy: 1)
    }

    /// Writes the poster `poster` asks for to `path` — the frame showing at its time, or
    /// the best of `RecipeLimits.posterCandidates` frames — composited as this
    /// production's video shows it, encoded by the path's format. Returns the frame's
    /// time in the output.
    public func writePoster(_ poster: Recipe.Poster, to path: String, logger: Logger) async throws -> MediaTime {
        let frame = try await posterFrame(poster, logger: logger)
        let plan = RenderPlan(outputs: [pictureOutput(frame: frame, logger: logger, receive: Self.posterWriter(poster, to: path))])
        _ = try await RenderGraph(plan: plan, logger: logger).run()
        return time(ofFrame: frame)
    }

    /// A preview's size for this production: `preview.width` (at most the render's
    /// width, even) by the render's shape, rounded to even, at least 2.
    public func previewSize(_ preview: Recipe.Preview) -> PixelSize {
        let render = built.videoComposition.renderSize
        let width = Swift.min(preview.width, render.width - render.width % 2)
        let exact = Double(width) * Double(render.height) / Double(render.width)
        let height = 2 * Int((exact / 2).rounded())
        return PixelSize(width: Swift.max(2, width), height: Swift.max(2, height))
    }

    /// How long the preview lasts: `duration`, or to the output's end if that comes first.
    public func previewLength(_ preview: Recipe.Preview) -> MediaTime {
        Swift.min(preview.from + preview.duration, built.composition.duration) - preview.from
    }

    /// The preview's frames: one every 1/fps from `from`, for `duration` or to the
    /// output's end, whichever comes first (at least one).
    public func previewTimes(_ preview: Recipe.Preview) -> [MediaTime] {
        let end = preview.from + previewLength(preview)
        var times: [MediaTime] = []
        var k: Int64 = 0
        while true {
            let time = preview.from + MediaTime(value: k, timescale: Int32(preview.fps))
            guard time < end || times.isEmpty else { break }
            times.append(time)
            k += 1
        }
        return times
    }

    /// The render output of `preview`'s frames — those at `previewTimes`, composited as this
    /// production's video shows them, in SDR — handed to `receive`.
    func previewOutput(_ preview: Recipe.Preview, logger: Logger, receive: @escaping (VideoFrame) throws -> Void) -> RenderOutput {
        let scheduler = FrameScheduler(composition: built.composition, videoComposition: built.videoComposition)
        let tap = PictureTap(session: pictureSession(logger: logger), frames: previewTimes(preview).map { scheduler.frameIndex(at: $0) },
                             receive: receive)
        return RenderOutput(session: tap.session, destination: .pictures(tap))
    }

    /// The writer of `preview` at `path`: an animated WebP or GIF of `previewSize`,
    /// silent, looping for ever (finished once the render has handed it every frame).
    func previewWriter(_ preview: Recipe.Preview, to path: String) throws -> AnimationWriter {
        try AnimationWriter(path: path, format: preview.format == .gif ? .gif : .webp, size: previewSize(preview),
                            frameDuration: MediaTime(value: 1, timescale: Int32(preview.fps)), duration: previewLength(preview))
    }

    /// Writes `preview` to `path`. Returns its size and length.
    public func writePreview(_ preview: Recipe.Preview, to path: String, logger: Logger) async throws -> (size: PixelSize, duration: MediaTime) {
        let writer = try previewWriter(preview, to: path)
        let output = previewOutput(preview, logger: logger) { try writer.add($0) }
        _ = try await RenderGraph(plan: RenderPlan(outputs: [output]), logger: logger).run()
        try writer.finish()
        return (previewSize(preview), previewLength(preview))
    }

    // MARK: HLS

    /// The HLS ladder `ladder` asks for, from this production's composition (its render
    /// size is the tallest rung's bound), written into `folder` (which exists, empty).
    public func exportHLS(_ ladder: Recipe.HLSLadder, into folder: String, masterName: String, logger: Logger,
                          progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws -> HLSExportSession.Ladder {
        try await hlsSession(ladder, logger: logger).export(to: folder, masterName: masterName, progress: progress)
    }

    /// The render output of the ladder `ladder` written into `folder` (which exists, empty).
    func ladderOutput(_ ladder: Recipe.HLSLadder, into folder: String, masterName: String, logger: Logger) -> RenderOutput {
        let session = hlsSession(ladder, logger: logger)
        return RenderOutput(session: session.videoSession, destination: .ladder(session.destination(folder: folder, masterName: masterName)))
    }

    /// The session that renders the ladder `ladder` of this production.
    private func hlsSession(_ ladder: Recipe.HLSLadder, logger: Logger) -> HLSExportSession {
        HLSExportSession(composition: built.composition, videoComposition: built.videoComposition,
                         audioMix: built.audioMix, overlays: built.overlays, settings: settings,
                         rungs: hlsRungs(ladder), segment: ladder.segment, logger: logger)
    }

    /// The ladder's rungs for this production's render size.
    public func hlsRungs(_ ladder: Recipe.HLSLadder) -> [PixelSize] {
        HLSExportSession.rungs(heights: ladder.heights, renderSize: built.videoComposition.renderSize)
    }

    // MARK: Captions

    /// Writes the captions (output time) to `path` as WebVTT; nothing is left at `path`
    /// when writing fails.
    public func writeCaptions(to path: String) throws {
        guard let captions = built.captions else {
            throw DeliverablesError("\((input as NSString).lastPathComponent) has no captions to write to \((path as NSString).lastPathComponent)")
        }
        let bytes = Array(WebVTTWriter.write(captions.cues).utf8)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError.last("open", path) }
        var code = bytes.withUnsafeBytes { FileWriting.writeAll(fd, $0.baseAddress, $0.count) }, function = "write"
        // A full disk can show up only at close (network filesystems).
        if close(fd) != 0, code == 0 { (code, function) = (errno, "close") }
        guard code == 0 else {
            unlink(path)
            throw SystemError(errno: code, function: function, path: path)
        }
    }
}
