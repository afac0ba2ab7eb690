import Foundation
import DropcutPipeline

/// One file of a deliverable set (a recipe with `outputs:`) in its job's record: the whole
/// set is recorded from the worker's first word, before any file of it is written, so a
/// crash at any step leaves nothing the restarted daemon does not know of. The manifest is
/// the set's last entry (kind `manifest`), written by the daemon once every other file is
/// published.
///
/// An HLS ladder (kind `hls`) is one entry though it is a folder: `name` is its master
/// playlist's (`clip.m3u8`), what it is published as is the folder (`clip`, `clip-1` with
/// the set's suffix: only the folder takes the number, the master inside keeps its name),
/// and `temporary`, `inode` and `output` are the folder's.
package struct DeliverableRecord: Codable, Sendable, Hashable {
    /// The file's name as the recipe gives it (the set's suffix, `-1`..., may follow).
    package var name: String
    /// `video`, `poster`, `preview`, `hls` or `manifest` — or `output`: a single output
    /// (a recipe without `outputs:`) while it is committed as a set of one.
    package var kind: String
    /// Its hidden temporary file in the outbox until it is published.
    package var temporary: String?
    /// The finished temporary file's inode: finds its published name after a crash.
    package var inode: UInt64?
    /// Its path once published.
    package var output: String?
    /// What the manifest says of it (the worker's description); nil for the manifest.
    package var file: Deliverables.File?

    package init(name: String, kind: String, temporary: String?) {
        self.name = name
        self.kind = kind
        self.temporary = temporary
    }

    package var isManifest: Bool { kind == Self.manifestKind }

    /// A single output's one file, committed as a set of one (`JobRunner.commit`).
    package var isSingleOutput: Bool { kind == Self.singleOutputKind }

    /// An HLS ladder: a folder, published and taken back whole.
    package var isLadder: Bool { kind == Self.ladderKind }

    /// The name it takes in the outbox (before the set's suffix): the file's, or a
    /// ladder's folder — its master playlist's name without `.m3u8`, as
    /// `Deliverables.Item.publishedName` makes it.
    package var publishedName: String {
        isLadder ? (name as NSString).deletingPathExtension : name
    }

    /// The name the worker describes it by (`Deliverables.File.name`): a ladder's master
    /// playlist in its folder, `clip/clip.m3u8`.
    var describedName: String { isLadder ? publishedName + "/" + name : name }

    /// The published path a consumer opens: the file, or a ladder's master playlist inside
    /// its published folder (`outbox/clip-1/clip.m3u8`), as the manifest lists it.
    package var publishedPath: String? {
        output.map { isLadder ? ($0 as NSString).appendingPathComponent(name) : $0 }
    }

    static let manifestKind = "manifest"
    static let ladderKind = "hls"
    static let singleOutputKind = "output"
}

extension JobRecord {
    /// The names a job publishes, in order: a set's files (the manifest last) published or
    /// as they will be named, else the one output; what the journal's done line, `dropcut
    /// status` and the record list. A ladder is named as the manifest names it: its master
    /// playlist in its folder (`clip-1/clip.m3u8`).
    package var outputNames: [String] {
        if let deliverables {
            return deliverables.map { entry in
                let published = ((entry.output ?? entry.publishedName) as NSString).lastPathComponent
                return entry.isLadder ? published + "/" + entry.name : published
            }
        }
        return output.map { [($0 as NSString).lastPathComponent] } ?? []
    }
}
