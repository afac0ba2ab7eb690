import Foundation
import Logging
import DropcutMediaIO
import DropcutRecipe
import DropcutRender
import DropcutSubtitles
import DropcutSupport
import DropcutTimeline
import DropcutDigest

/// Every deliverable of a recipe with `outputs:` for one dropped clip: each entry its own
/// `Production` (its size, fit, rate and encoding; overlays placed on its own canvas) — a
/// video, an HLS ladder, a poster, a preview or the captions — and the manifest that
/// lists them.
///
/// Planned here (`prepare`: names distinct, times within the output), rendered together
/// by one `RenderPlan` (`SetRender`: what shares a decode is the plan's rule alone), and
/// published (`publish`, or the daemon's commit: both the one `SetCommit`). Everything is written under
/// hidden temporary names (`PartialOutput`) and renamed into place only when every file is
/// complete; the manifest `{name}.dropcut.json` comes last. On any failure nothing is
/// left, neither temporary files nor published ones.
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

    /// Renders every item into `directory` under its temporary name (`temporaries(in:tag:)`)
    /// and publishes nothing. Returns the files as the manifest lists them, named by their
    /// final names (the manifest itself not among them). On any failure, and on
    /// cancellation, no temporary file is left.
    public func renderTemporaries(into directory: String, tag: String, logger: Logger,
                                  progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> [File] {
        try await SetRender(deliverables: self, directory: directory, tag: tag, logger: logger).render(progress: progress).files
    }

    /// Renders every item into `directory` under temporary names (tagged `tag`), then
    /// renames them into place, replacing what is there, and writes the manifest last
    /// (`publish`: the set commit, replacing). Not `replacing`, a name that exists when
    /// its file is published — even one that appeared during the render — fails the
    /// whole set and is left as it is. `progress` is called with an item's index and its progress.
    /// Returns the files as the manifest lists them (the manifest itself last). On any
    /// failure, and on cancellation, nothing is left: no temporary file, no deliverable,
    /// no manifest. (The daemon publishes a set itself, durably and never replacing a
    /// name: `renderTemporaries` and `manifest`.)
    public func render(into directory: String, tag: String, logger: Logger, replacing: Bool = true,
                       progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> [File] {
        try await render(into: directory, tag: tag, logger: logger, replacing: replacing, progress: progress, shared: { _ in })
    }

    /// `render`, telling `shared` what each render of several outputs decoded (tests).
    func render(into directory: String, tag: String, logger: Logger, replacing: Bool = true,
                progress: @escaping @Sendable (Int, ExportProgress) -> Void,
                shared: (RenderGraph.GroupStatistics) -> Void) async throws -> [File] {
        let made = try await SetRender(deliverables: self, directory: directory, tag: tag, logger: logger).render(progress: progress)
        for group in made.groups where group.outputs.count > 1 { shared(group) }
        return try publish(made.files, into: directory, tag: tag, replacing: replacing)
    }

    /// Deliverables rendered together, indices into `items`: the videos sharing one
    /// decode, the HLS ladders and the pictures composited from the frames they decode.
    /// A ladder that shares with no video is a group of its own; a picture that shares
    /// with nothing (not in a group here) is made on its own.
    struct RenderGroup: Hashable {
        var videos: [Int]
        var pictures: [Int] = []
        var ladders: [Int] = []
    }

    /// The plan's groups of movies and ladders, in the order they render (`RenderPlan`).
    var renderGroups: [RenderGroup] {
        let (plan, owners) = SetRender(deliverables: self, directory: "", tag: "", logger: Logger(label: "dropcut.plan")).plan()
        return plan.groups.filter { $0.kind != .pictures }.map { group in
            let members = group.outputs.map { owners[$0] }
            var made = RenderGroup(videos: [])
            for index in members {
                switch items[index].kind {
                case .video: made.videos.append(index)
                case .hls: made.ladders.append(index)
                default: made.pictures.append(index)
                }
            }
            return made
        }
    }

    /// How the set is rendered, for `dropcut plan`: the file names of each render that
    /// makes several deliverables from one decode, and how many times the clip is decoded
    /// in all (each render of the plan once, a `best` poster's weighing once more).
    public var decodes: (shared: [[String]], count: Int) {
        let (plan, owners) = SetRender(deliverables: self, directory: "", tag: "", logger: Logger(label: "dropcut.plan")).plan()
        let shared = plan.groups.map { $0.outputs.map { owners[$0] }.sorted() }.filter { $0.count > 1 }
        let weighed = items.filter { item in
            if case let .poster(poster) = item.kind { return poster.time == .best }
            return false
        }
        return (shared.map { $0.map { items[$0].filename } }, plan.groups.count + weighed.count)
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
