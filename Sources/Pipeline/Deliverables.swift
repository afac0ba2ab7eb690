import Foundation
import Logging
import MediaIO
import Recipe
import Render
import Subtitles
import Support
import Timeline
import Digest

/// Every deliverable of a recipe with `outputs:` for one dropped clip: each entry its own
/// `Production` (its size, fit, rate and encoding; overlays placed on its own canvas), a
/// video or a poster, and the manifest that lists them.
///
/// The videos that share their timeline and frame grid (the usual case: sizes, fits and
/// encodings differ) render together from one decode (`MultiExportSession`): each source
/// frame decoded once, composited per output, the encoders side by side, the sound mixed
/// once; posters at a time and previews on the same grid are composited from the same
/// frames (`PictureTap`), and HLS ladders on the same grid are lanes of the same render
/// (within `maximumSharedVideos`, a ladder counting its rungs). A video on another frame
/// grid, or one that copies its picture,
/// renders on its own, as before; a poster or preview with no such render to join (or a
/// `best` poster) decodes up to its frames on its own. Everything is written
/// under hidden temporary names (`PartialOutput`) and renamed into place only when every
/// file is complete; the manifest `{name}.dropcut.json` comes last. On any failure nothing
/// is left, neither temporary files nor published ones.
public struct Deliverables: Sendable {
    /// The dropped clip.
    public let input: String
    public let items: [Item]
    /// `{name}.dropcut.json`: written last, beside the deliverables.
    public let manifestFilename: String

    public struct Item: Sendable {
        /// The file's name (templated for this clip).
        public let filename: String
        public let kind: Recipe.Deliverable.Kind
        /// The composition as this deliverable shows it.
        public let production: Production
        /// The `outputs:` entry it comes from.
        public let location: SourceLocation

        /// The name published in the folder: the file's, or for an HLS ladder the folder
        /// named after its master playlist (`clip.m3u8` → `clip/`, holding `clip.m3u8`).
        public var publishedName: String {
            if case .hls = kind { return (filename as NSString).deletingPathExtension }
            return filename
        }
    }

    /// One file written: what the manifest says of it.
    public struct File: Sendable, Hashable, Codable {
        /// Relative to the outbox: an HLS ladder's is its master playlist's, in its folder
        /// (`clip/clip.m3u8`).
        public var name: String
        /// `video`, `poster`, `preview`, `hls` or `manifest`. An HLS ladder's `bytes` are
        /// those of every file in its folder, its size the tallest rung's, its `sha256`
        /// the master playlist's.
        public var kind: String
        public var bytes: Int64
        public var width: Int
        public var height: Int
        /// Seconds; videos and previews.
        public var duration: Double?
        /// A poster's time in the output, or where a preview starts, seconds.
        public var time: Double?
        public var sha256: String

        public init(name: String, kind: String, bytes: Int64, width: Int, height: Int, duration: Double? = nil,
                    time: Double? = nil, sha256: String) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
            self.width = width
            self.height = height
            self.duration = duration
            self.time = time
            self.sha256 = sha256
        }
    }

    /// Prepares every entry of `recipe.outputs` (the recipe must have some) for `input`:
    /// each built as `Production.prepare` builds one (`Production.prepare(recipes:)`); file names must stay distinct
    /// once rendered for this clip, and a poster's time must lie within the output.
    public static func prepare(recipe: Recipe, input: String, date: Date = Date()) async throws -> Deliverables {
        guard !recipe.outputs.isEmpty else {
            throw DeliverablesError("\(recipe.name): the recipe has no outputs: list")
        }
        var items: [Item] = []
        var names: [String: SourceLocation] = [:]
        let manifest = FileName.fitting(FilenameTemplate.manifest.render(.init(inputPath: input, recipeName: recipe.name, date: date)))
        let productions = try await Production.prepare(recipes: recipe.outputs.map { $0.recipe(from: recipe) }, input: input, date: date)
        for (deliverable, production) in zip(recipe.outputs, productions) {
            let filename = production.outputFilename
            if let earlier = names[filename.lowercased()] {
                throw DeliverablesError("\(deliverable.location): \(filename) is also the name of the deliverable at \(earlier.line):\(earlier.column); give each its own filename")
            }
            if filename.lowercased() == manifest.lowercased() {
                throw DeliverablesError("\(deliverable.location): \(filename) is the manifest's name")
            }
            names[filename.lowercased()] = deliverable.location
            if case .hls = deliverable.kind {
                // The ladder's folder is a name in the outbox too.
                let folder = (filename as NSString).deletingPathExtension
                if let earlier = names[folder.lowercased()] {
                    throw DeliverablesError("\(deliverable.location): the HLS folder \(folder) is also the name of the deliverable at \(earlier.line):\(earlier.column)")
                }
                names[folder.lowercased()] = deliverable.location
            }
            if case let .poster(poster) = deliverable.kind, case let .at(time) = poster.time, time >= production.composition.duration {
                throw DeliverablesError("\(poster.location): poster.at \(time.seconds) s is not within the output, which lasts \(String(format: "%.3f", production.composition.duration.seconds)) s")
            }
            if case .captions = deliverable.kind, production.captions == nil {
                throw DeliverablesError("\(deliverable.location): \(filename) would hold the captions, but \((input as NSString).lastPathComponent) has none: drop it with a .srt or .vtt of the same name, or give captions.source")
            }
            if case let .preview(preview) = deliverable.kind, preview.from >= production.composition.duration {
                throw DeliverablesError("\(preview.location): preview.from \(preview.from.seconds) s is not within the output, which lasts \(String(format: "%.3f", production.composition.duration.seconds)) s")
            }
            items.append(Item(filename: filename, kind: deliverable.kind, production: production, location: deliverable.location))
        }
        return Deliverables(input: input, items: items, manifestFilename: manifest)
    }

    /// The temporary name each item is rendered to in `directory` (tagged `tag`), in the
    /// recipe's order: what a caller that publishes the set itself (the daemon) records
    /// before anything is written.
    public func temporaries(in directory: String, tag: String) -> [String] {
        items.map { PartialOutput(directory: directory, filename: $0.publishedName, tag: tag).path }
    }

    /// Deliverables rendered together: videos sharing one decode (`Production.sharesDecode`),
    /// the HLS ladders composited from the frames they decode (`Production.sharesLadder`)
    /// and the posters (at a time) and previews composited from them too. Indices into
    /// `items`.
    struct RenderGroup: Hashable {
        var videos: [Int]
        var pictures: [Int] = []
        var ladders: [Int] = []
    }

    /// The most video encoders one decode serves: a video counts one, an HLS ladder one
    /// per rung (each rung has its encoder). They run at once, each with its own
    /// lookahead (x264 at veryfast holds about 200 MB for a 1080p output), so a set of 16
    /// would hold them all; more than this render in several groups, each one decode.
    static let maximumSharedVideos = 4

    /// How the set is rendered, for `dropcut plan`: the file names of each render that
    /// makes several deliverables from one decode, and how many times the clip is
    /// decoded in all (each other deliverable decodes it on its own).
    public var decodes: (shared: [[String]], count: Int) {
        let groups = renderGroups
        let grouped = Set(groups.flatMap { $0.videos + $0.pictures + $0.ladders })
        let shared = groups.map { ($0.videos + $0.ladders + $0.pictures).sorted() }.filter { $0.count > 1 }
        return (shared.map { $0.map { items[$0].filename } }, groups.count + items.indices.filter { !grouped.contains($0) }.count)
    }

    /// The encoders `group` runs at once (`maximumSharedVideos`).
    func encoders(in group: RenderGroup) -> Int {
        group.videos.count + group.ladders.reduce(0) { $0 + rungs(of: $1) }
    }

    /// The rungs of item `index`, an HLS ladder (0 for any other item).
    private func rungs(of index: Int) -> Int {
        guard case let .hls(ladder) = items[index].kind else { return 0 }
        return items[index].production.hlsRungs(ladder).count
    }

    /// The groups, in the recipe's order. A video that shares with none (another frame
    /// rate or timeline, a stream copied) is a group of its own; an HLS ladder joins the
    /// first group it shares its timeline with whose encoders leave room for its rungs
    /// (so a ladder of more than four rungs, or one with no such group, renders on its
    /// own); a picture that shares with no video group (on another grid, or `poster: best`,
    /// which weighs frames spread over the whole output) is made on its own, as are the
    /// pictures of a set without a video to decode for.
    var renderGroups: [RenderGroup] {
        var groups: [RenderGroup] = []
        for (index, item) in items.enumerated() {
            guard case .video = item.kind else { continue }
            if let group = groups.firstIndex(where: {
                encoders(in: $0) < Self.maximumSharedVideos && items[$0.videos[0]].production.sharesDecode(with: item.production)
            }) {
                groups[group].videos.append(index)
            } else {
                groups.append(RenderGroup(videos: [index]))
            }
        }
        for (index, item) in items.enumerated() {
            switch item.kind {
            case .video, .captions:
                continue
            case let .poster(poster) where poster.time == .best:
                continue
            case let .hls(ladder):
                if let group = groups.firstIndex(where: {
                    encoders(in: $0) + rungs(of: index) <= Self.maximumSharedVideos
                        && items[$0.videos[0]].production.sharesLadder(ladder, of: item.production)
                }) {
                    groups[group].ladders.append(index)
                }
            case .poster, .preview:
                if let group = groups.firstIndex(where: {
                    let video = items[$0.videos[0]].production
                    return video.settings.videoCopy == nil && video.sharesPictures(with: item.production)
                }) {
                    groups[group].pictures.append(index)
                }
            }
        }
        return groups
    }

    /// What a picture made in a shared render is: the manifest's figures.
    private struct Picture {
        var time: Double?
        var size: PixelSize
        var duration: Double?
    }

    /// Renders every item into `directory` under its temporary name (`temporaries(in:tag:)`)
    /// and publishes nothing. Returns the files as the manifest lists them, named by their
    /// final names (the manifest itself not among them). On any failure, and on
    /// cancellation, no temporary file is left.
    public func renderTemporaries(into directory: String, tag: String, logger: Logger,
                                  progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> [File] {
        try await renderTemporaries(into: directory, tag: tag, logger: logger, progress: progress, shared: { _ in })
    }

    /// `renderTemporaries`, telling `shared` what each shared render decoded (tests).
    func renderTemporaries(into directory: String, tag: String, logger: Logger,
                           progress: @escaping @Sendable (Int, ExportProgress) -> Void,
                           shared: (MultiExportSession.Statistics) -> Void) async throws -> [File] {
        let partials = temporaries(in: directory, tag: tag).map { PartialOutput(path: $0) }
        var files: [File] = []
        do {
            // The videos first, each group from one decode (with its pictures); a lone
            // video as before.
            var pictures: [Int: Picture] = [:]
            var ladders: [Int: HLSExportSession.Ladder] = [:]
            for group in renderGroups {
                try Task.checkCancellation()
                if group.videos.count == 1 && group.pictures.isEmpty && group.ladders.isEmpty {
                    let index = group.videos[0]
                    try await items[index].production.export(to: partials[index].path, logger: logger) { progress(index, $0) }
                } else if let made = try await renderShared(group, partials: partials, logger: logger, progress: progress) {
                    shared(made.statistics)
                    pictures.merge(made.pictures) { $1 }
                    for (index, ladder) in zip(group.ladders, made.statistics.ladders) { ladders[index] = ladder }
                } else {
                    // Rendered apart: the ladders' folders go, to be made on their own.
                    for index in group.ladders { partials[index].remove() }
                }
            }
            for (index, item) in items.enumerated() {
                try Task.checkCancellation()
                let partial = partials[index]
                var size = item.production.videoComposition.renderSize
                var time: Double?
                var duration: Double?
                let kind: String
                switch item.kind {
                case .video:
                    kind = "video"
                    duration = item.production.composition.duration.seconds
                case let .poster(poster):
                    kind = "poster"
                    if let made = pictures[index] {
                        time = made.time
                    } else {
                        time = try await item.production.writePoster(poster, to: partial.path, logger: logger).seconds
                    }
                case let .preview(preview):
                    kind = "preview"
                    if let made = pictures[index] {
                        size = made.size
                        duration = made.duration
                    } else {
                        let made = try await item.production.writePreview(preview, to: partial.path)
                        size = made.size
                        duration = made.duration.seconds
                    }
                    time = preview.from.seconds
                case .captions:
                    kind = "captions"
                    size = PixelSize(width: 0, height: 0)
                    duration = item.production.composition.duration.seconds
                    try item.production.writeCaptions(to: partial.path)
                case let .hls(ladder):
                    let made: HLSExportSession.Ladder
                    if let shared = ladders[index] {
                        made = shared
                    } else {
                        guard mkdir(partial.path, 0o755) == 0 else { throw SystemError(errno: errno, function: "mkdir", path: partial.path) }
                        made = try await item.production.exportHLS(ladder, into: partial.path, masterName: item.filename,
                                                                   logger: logger) { progress(index, $0) }
                    }
                    files.append(try await Self.describe(ladder: made, folder: partial.path, name: item.publishedName + "/" + item.filename,
                                                         duration: item.production.composition.duration.seconds))
                    continue
                }
                files.append(try await Self.describe(partial.path, name: item.filename, kind: kind, size: size,
                                                     duration: duration, time: time))
            }
            // Cancelled after the last file: still nothing handed on.
            try Task.checkCancellation()
        } catch {
            for partial in partials { partial.remove() }
            throw error
        }
        return files
    }

    /// Renders every item into `directory` under temporary names (tagged `tag`), then
    /// renames them into place and writes the manifest last. `progress` is called with
    /// a video's index and its progress. Returns the files as the manifest lists them
    /// (the manifest itself last). On any failure, and on cancellation, nothing is left:
    /// no temporary file, no deliverable, no manifest. (The daemon publishes a set itself,
    /// durably and never replacing a name: `renderTemporaries` and `manifest`.)
    public func render(into directory: String, tag: String, logger: Logger,
                       progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> [File] {
        try await render(into: directory, tag: tag, logger: logger, progress: progress, shared: { _ in })
    }

    /// `render`, telling `shared` what each shared render decoded (tests).
    func render(into directory: String, tag: String, logger: Logger,
                progress: @escaping @Sendable (Int, ExportProgress) -> Void,
                shared: (MultiExportSession.Statistics) -> Void) async throws -> [File] {
        let files = try await renderTemporaries(into: directory, tag: tag, logger: logger, progress: progress, shared: shared)
        let partials = temporaries(in: directory, tag: tag).map { PartialOutput(path: $0) }
        // Publish: every file renamed into place; a failure takes back what was published.
        var published: [String] = []
        func undo() {
            for path in published { PartialOutput(path: path).remove() }
            for partial in partials { partial.remove() }
        }
        for (partial, item) in zip(partials, items) {
            let destination = (directory as NSString).appendingPathComponent(item.publishedName)
            guard Self.replace(destination, with: partial.path, tag: tag) else {
                let error = SystemError(errno: errno, function: "rename", path: destination)
                undo()
                throw error
            }
            published.append(destination)
        }
        // The manifest last: its presence says the set is complete.
        let manifestPartial = PartialOutput(directory: directory, filename: manifestFilename, tag: tag)
        let manifestPath = (directory as NSString).appendingPathComponent(manifestFilename)
        do {
            let data = try Self.manifest(input: input, files: files)
            guard FileManager.default.createFile(atPath: manifestPartial.path, contents: data) else {
                throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: manifestPartial.path)
            }
            guard rename(manifestPartial.path, manifestPath) == 0 else {
                throw SystemError(errno: errno, function: "rename", path: manifestPath)
            }
        } catch {
            manifestPartial.remove()
            undo()
            throw error
        }
        let manifestFile = File(name: manifestFilename, kind: "manifest", bytes: try FileSize.bytes(at: manifestPath),
                                width: 0, height: 0, duration: nil, time: nil, sha256: "")
        return files + [manifestFile]
    }

    /// Renders `group` from one decode: its videos and ladders (`Production.export(_:ladders:taps:)`,
    /// each ladder into its temporary folder, made here) and its pictures, each written by
    /// a `PictureTap` as its frames are composited. Nil when the render fell back to one
    /// render per video (copied sound unfit to copy): the pictures, whose writers are gone
    /// with this call, and the ladders (their folders emptied) are then made on their own.
    private func renderShared(_ group: RenderGroup, partials: [PartialOutput], logger: Logger,
                              progress: @escaping @Sendable (Int, ExportProgress) -> Void) async throws
        -> (statistics: MultiExportSession.Statistics, pictures: [Int: Picture])? {
        var taps: [PictureTap] = []
        var writers: [AnimationWriter] = []
        var pictures: [Int: Picture] = [:]
        for index in group.pictures {
            let production = items[index].production, path = partials[index].path
            // Pictures are SDR, whatever the videos are (as `writePoster` makes them).
            var sdr = production.settings
            sdr.dynamicRange = .sdr
            let session = ExportSession(composition: production.composition, videoComposition: production.videoComposition,
                                        audioMix: production.audioMix, overlays: production.overlays, settings: sdr, logger: logger)
            let scheduler = FrameScheduler(composition: production.composition, videoComposition: production.videoComposition)
            let frameDuration = production.videoComposition.frameDuration
            switch items[index].kind {
            case let .poster(poster):
                guard case let .at(time) = poster.time else { continue }
                let frame = scheduler.frameIndex(at: time)
                taps.append(PictureTap(session: session, frames: [frame]) { picture in
                    let bytes = try PictureEncoder.encode(picture, as: poster.format)
                    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                        throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: path)
                    }
                })
                pictures[index] = Picture(time: frameDuration.multiplied(by: Int64(frame), dividedBy: 1).seconds,
                                          size: production.videoComposition.renderSize)
            case let .preview(preview):
                let size = production.previewSize(preview), times = production.previewTimes(preview)
                let step = MediaTime(value: 1, timescale: Int32(preview.fps))
                let writer = try AnimationWriter(path: path, format: preview.format == .gif ? .gif : .webp, size: size,
                                                 frameDuration: step, duration: production.previewLength(preview))
                writers.append(writer)
                taps.append(PictureTap(session: session, frames: times.map { scheduler.frameIndex(at: $0) }) { picture in
                    try writer.add(picture)
                })
                pictures[index] = Picture(time: preview.from.seconds, size: size, duration: production.previewLength(preview).seconds)
            case .video, .hls, .captions:
                continue
            }
        }
        var ladders: [(production: Production, ladder: Recipe.HLSLadder, folder: String, masterName: String)] = []
        for index in group.ladders {
            guard case let .hls(ladder) = items[index].kind else { continue }
            let folder = partials[index].path
            guard mkdir(folder, 0o755) == 0 else { throw SystemError(errno: errno, function: "mkdir", path: folder) }
            ladders.append((items[index].production, ladder, folder, items[index].filename))
        }
        let outputs = group.videos + group.ladders
        guard let statistics = try await Production.export(group.videos.map { (items[$0].production, partials[$0].path) },
                                                           ladders: ladders, taps: taps, logger: logger,
                                                           progress: { progress(outputs[$0], $1) })
        else { return nil }
        for writer in writers { try writer.finish() }
        return (statistics, pictures)
    }

    /// Renames `partial` to `destination`, replacing what is there, as `rename(2)` does for
    /// a file; a folder (an earlier render's HLS ladder) is moved aside first and removed
    /// once the new one is in place. False with `errno` set when it cannot.
    static func replace(_ destination: String, with partial: String, tag: String) -> Bool {
        if rename(partial, destination) == 0 { return true }
        guard errno == ENOTEMPTY || errno == EEXIST else { return false }
        let aside = PartialOutput(besides: destination + ".replaced", tag: tag)
        guard rename(destination, aside.path) == 0 else { return false }
        guard rename(partial, destination) == 0 else {
            let saved = errno
            _ = rename(aside.path, destination)
            errno = saved
            return false
        }
        aside.remove()
        return true
    }

    /// The manifest's JSON: the input's name and every file, in the recipe's order.
    public static func manifest(input: String, files: [File]) throws -> Data {
        struct Manifest: Codable {
            var input: String
            var generator: String
            var files: [File]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(Manifest(input: (input as NSString).lastPathComponent, generator: "dropcut \(DropcutVersion.current)", files: files))
        data.append(0x0A)
        return data
    }

    /// An HLS ladder as the manifest lists it.
    static func describe(ladder: HLSExportSession.Ladder, folder: String, name: String, duration: Double) async throws -> File {
        var bytes: Int64 = 0
        for file in ladder.files { bytes += try FileSize.bytes(at: (folder as NSString).appendingPathComponent(file)) }
        let top = ladder.playlist.variants.first?.size ?? PixelSize(width: 0, height: 0)
        let sha = try await BlockingWork.run("dropcut-checksum") { _ in try SHA256.hex(ofFile: ladder.master) }
        return File(name: name, kind: "hls", bytes: bytes, width: top.width, height: top.height, duration: duration,
                    time: nil, sha256: sha)
    }

    static func describe(_ path: String, name: String, kind: String, size: PixelSize, duration: Double?,
                         time: Double?) async throws -> File {
        let bytes = try FileSize.bytes(at: path)
        let sha = try await BlockingWork.run("dropcut-checksum") { _ in try SHA256.hex(ofFile: path) }
        return File(name: name, kind: kind, bytes: bytes, width: size.width, height: size.height,
                    duration: duration, time: time, sha256: sha)
    }
}



/// A deliverable set that cannot be made as the recipe asks (permanent).
public struct DeliverablesError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension FilenameTemplate {
    /// `{name}.dropcut.json`: the manifest of a deliverable set.
    static let manifest = try! FilenameTemplate("{name}.dropcut.json")
}

extension Production {
    /// Writes the poster `poster` asks for to `path` — the frame showing at its time, or
    /// the best of `RecipeLimits.posterCandidates` frames — composited as this
    /// production's video shows it, encoded by the path's format. Returns the frame's
    /// time in the output.
    public func writePoster(_ poster: Recipe.Poster, to path: String, logger: Logger) async throws -> MediaTime {
        try await BlockingWork.run("dropcut-poster") { [built, settings] cancellation in
            var sdr = settings
            sdr.dynamicRange = .sdr
            let renderer = try PosterRenderer(composition: built.composition, videoComposition: built.videoComposition,
                                              overlays: built.overlays, settings: sdr)
            let index: Int
            switch poster.time {
            case let .at(time):
                index = renderer.frameIndex(at: time)
            case .best:
                let best = try renderer.bestFrame(candidates: RecipeLimits.posterCandidates, isCancelled: { cancellation.isCancelled })
                index = best.index
                logger.debug("poster best frame", metadata: [
                    "frame": "\(index)", "scores": "\(best.scores.map { "\($0.index): \(String(format: "%.0f", $0.score.value))" }.joined(separator: ", "))"])
            }
            let bytes = try PictureEncoder.encode(try renderer.frame(index), as: poster.format)
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: path)
            }
            return built.videoComposition.frameDuration.multiplied(by: Int64(index), dividedBy: 1)
        }
    }
}

extension Production {
    /// The HLS ladder `ladder` asks for, from this production's composition (its render
    /// size is the tallest rung's bound), written into `folder` (which exists, empty).
    public func exportHLS(_ ladder: Recipe.HLSLadder, into folder: String, masterName: String, logger: Logger,
                          progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws -> HLSExportSession.Ladder {
        try await hlsSession(ladder, logger: logger).export(to: folder, masterName: masterName, progress: progress)
    }

    /// The session that renders the ladder `ladder` of this production.
    func hlsSession(_ ladder: Recipe.HLSLadder, logger: Logger) -> HLSExportSession {
        HLSExportSession(composition: built.composition, videoComposition: built.videoComposition,
                         audioMix: built.audioMix, overlays: built.overlays, settings: settings,
                         rungs: hlsRungs(ladder), segment: ladder.segment, logger: logger)
    }

    /// The ladder's rungs for this production's render size.
    public func hlsRungs(_ ladder: Recipe.HLSLadder) -> [PixelSize] {
        HLSExportSession.rungs(heights: ladder.heights, renderSize: built.videoComposition.renderSize)
    }
}

extension Production {
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

    /// Writes `preview` as an animated WebP or GIF to `path`: the frames at `previewTimes`,
    /// composited as this production's video shows them (in SDR), scaled to
    /// `previewSize`, silent, looping for ever. Returns its size and length.
    public func writePreview(_ preview: Recipe.Preview, to path: String) async throws -> (size: PixelSize, duration: MediaTime) {
        let size = previewSize(preview)
        let times = previewTimes(preview), length = previewLength(preview)
        let frameDuration = MediaTime(value: 1, timescale: Int32(preview.fps))
        try await BlockingWork.run("dropcut-preview") { [built, settings] cancellation in
            var sdr = settings
            sdr.dynamicRange = .sdr
            let renderer = try PosterRenderer(composition: built.composition, videoComposition: built.videoComposition,
                                              overlays: built.overlays, settings: sdr)
            let writer = try AnimationWriter(path: path, format: preview.format == .gif ? .gif : .webp, size: size,
                                             frameDuration: frameDuration, duration: length)
            for time in times {
                if cancellation.isCancelled { throw ExportError.cancelled }
                try writer.add(try renderer.frame(renderer.frameIndex(at: time)))
            }
            try writer.finish()
        }
        return (size, length)
    }
}

extension Production {
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
