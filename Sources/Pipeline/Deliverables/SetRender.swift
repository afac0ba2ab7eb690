import Foundation
import Logging
import DropcutMediaIO
import DropcutRecipe
import DropcutRender
import DropcutSupport
import DropcutTimeline

/// The render of a deliverable set: every item that is a picture stream or pictures (its
/// movies, HLS ladders, posters, previews) one output of one `RenderPlan`, so the plan's
/// rule alone decides what shares a decode — the videos that share their timeline and
/// frame grid render together, each source frame decoded once, the sound mixed once; the
/// ladders and pictures on the same grid are composited from the same frames —, and
/// `RenderGraph` makes them. Captions are written as text. Everything is written under
/// its temporary name (`PartialOutput`); publishing is `SetCommit`'s (`Deliverables.publish`).
struct SetRender {
    let deliverables: Deliverables
    let directory: String
    let tag: String
    let logger: Logger

    /// What a picture item is, for the manifest.
    private struct Picture {
        var time: Double?
        var size: PixelSize
        var duration: Double?
    }

    /// The set as render outputs: for each output, the item it makes; for each picture
    /// item, its figures; the previews' writers, finished once the render has made their
    /// frames. Writing (`partials`), a ladder's folder is made here; without, nothing is
    /// touched (what `dropcut plan` shows: the grouping is the same whichever frame a
    /// poster shows, so a poster missing from `posterFrames` plans as frame 0).
    private func outputs(partials: [PartialOutput]?, posterFrames: [Int: Int] = [:]) throws
        -> (outputs: [RenderOutput], items: [Int], pictures: [Int: Picture], writers: [AnimationWriter]) {
        var outputs: [RenderOutput] = [], owners: [Int] = [], pictures: [Int: Picture] = [:], writers: [AnimationWriter] = []
        for (index, item) in deliverables.items.enumerated() {
            let production = item.production, path = partials?[index].path
            switch item.kind {
            case .video:
                outputs.append(production.movieOutput(to: path ?? "", logger: logger))
            case let .hls(ladder):
                if let path, mkdir(path, 0o755) != 0 { throw SystemError(errno: errno, function: "mkdir", path: path) }
                outputs.append(production.ladderOutput(ladder, into: path ?? "", masterName: item.filename, logger: logger))
            case let .poster(poster):
                let frame = posterFrames[index] ?? 0
                outputs.append(production.pictureOutput(frame: frame, logger: logger,
                                                        receive: path.map { Production.posterWriter(poster, to: $0) } ?? { _ in }))
                pictures[index] = Picture(time: production.time(ofFrame: frame).seconds, size: production.videoComposition.renderSize)
            case let .preview(preview):
                var receive: (VideoFrame) throws -> Void = { _ in }
                if let path {
                    let writer = try production.previewWriter(preview, to: path)
                    writers.append(writer)
                    receive = { try writer.add($0) }
                }
                outputs.append(production.previewOutput(preview, logger: logger, receive: receive))
                pictures[index] = Picture(time: preview.from.seconds, size: production.previewSize(preview),
                                          duration: production.previewLength(preview).seconds)
            case .captions:
                continue
            }
            owners.append(index)
        }
        return (outputs, owners, pictures, writers)
    }

    /// The set's plan, nothing touched: what `dropcut plan` shows. Its outputs make the
    /// items listed (indices into the set's items).
    func plan() -> (plan: RenderPlan, items: [Int]) {
        // Nothing is opened without `partials`: no error to throw.
        guard let (outputs, owners, _, _) = try? self.outputs(partials: nil) else { return (RenderPlan(outputs: []), []) }
        return (RenderPlan(outputs: outputs), owners)
    }

    /// Renders every item under its temporary name and publishes nothing. Returns the
    /// files as the manifest lists them, by their final names (the manifest not among
    /// them), and each shared group's figures. On any failure, and on cancellation, no
    /// temporary file is left.
    func render(progress: @escaping @Sendable (Int, ExportProgress) -> Void) async throws
        -> (files: [Deliverables.File], groups: [RenderGraph.GroupStatistics]) {
        let partials = deliverables.temporaries(in: directory, tag: tag).map { PartialOutput(path: $0) }
        var files: [Deliverables.File] = []
        let made: RenderGraph.Made
        do {
            var posterFrames: [Int: Int] = [:]
            for (index, item) in deliverables.items.enumerated() {
                if case let .poster(poster) = item.kind { posterFrames[index] = try await item.production.posterFrame(poster, logger: logger) }
            }
            let (outputs, owners, pictures, writers) = try outputs(partials: partials, posterFrames: posterFrames)
            for index in owners where deliverables.items[index].kind.isVideo { deliverables.items[index].production.logSources(logger) }
            made = try await RenderGraph(plan: RenderPlan(outputs: outputs), logger: logger).run { progress(owners[$0], $1) }
            for writer in writers { try writer.finish() }
            for (index, item) in deliverables.items.enumerated() {
                try Task.checkCancellation()
                let production = item.production, path = partials[index].path
                let duration = production.composition.duration.seconds
                switch item.kind {
                case .video:
                    var file = try await Deliverables.describe(path, name: item.filename, kind: "video",
                                                               size: production.videoComposition.renderSize, duration: duration, time: nil)
                    if let output = owners.firstIndex(of: index) {
                        // (The job's log has said so already: RenderGraph's "pass-through abandoned".)
                        file.video = Self.madeVideo(outputs[output].session.settings, abandoned: made.copiesAbandoned[output])
                    }
                    files.append(file)
                case .poster, .preview:
                    guard let picture = pictures[index] else { throw DeliverablesError("\(item.filename) was not made") }
                    files.append(try await Deliverables.describe(path, name: item.filename, kind: item.kind.isPoster ? "poster" : "preview",
                                                                 size: picture.size, duration: picture.duration, time: picture.time))
                case .captions:
                    try production.writeCaptions(to: path)
                    files.append(try await Deliverables.describe(path, name: item.filename, kind: "captions",
                                                                 size: PixelSize(width: 0, height: 0), duration: duration, time: nil))
                case .hls:
                    guard let output = owners.firstIndex(of: index), let ladder = made.ladders[output] else {
                        throw DeliverablesError("the HLS ladder \(item.filename) was not made")
                    }
                    files.append(try await Deliverables.describe(ladder: ladder, folder: path, name: item.publishedName + "/" + item.filename,
                                                                 duration: duration))
                }
            }
            // Cancelled after the last file: still nothing handed on.
            try Task.checkCancellation()
        } catch {
            for partial in partials { partial.remove() }
            throw error
        }
        return (files, made.groups)
    }
}

extension SetRender {
    /// How an output's picture was made, as the manifest says it (`Deliverables.File.video`).
    static func madeVideo(_ settings: ExportSettings, abandoned: String?) -> String {
        if let abandoned { return "encoded (the planned copy failed: \(abandoned))" }
        if let splice = settings.videoSplice {
            return "spliced: \(splice.plan.copiedFrames) of \(splice.plan.pieces.last?.output.upperBound ?? 0) frames copied"
        }
        return settings.videoCopy != nil ? "copied" : "encoded"
    }
}

extension Recipe.Deliverable.Kind {
    var isVideo: Bool {
        if case .video = self { return true }
        return false
    }

    var isPoster: Bool {
        if case .poster = self { return true }
        return false
    }
}
