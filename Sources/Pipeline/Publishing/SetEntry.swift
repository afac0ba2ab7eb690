import Foundation

/// One file of a set being published (`SetCommit`): a deliverable of a recipe's
/// `outputs:`, its manifest, or a single output (a set of one). What the commit advances
/// and what the daemon stores in its job record (as `DeliverableRecord`, under these same
/// JSON keys), so a crash at any step leaves nothing the restarted daemon does not know
/// of. The manifest is the set's last entry (kind `manifest`), written by the commit once
/// it knows the names the files get.
///
/// An HLS ladder (kind `hls`) is one entry though it is a folder: `name` is its master
/// playlist's (`clip.m3u8`), what it is published as is the folder (`clip`, `clip-1` with
/// the set's suffix: only the folder takes the number, the master inside keeps its name),
/// and `temporary`, `inode` and `output` are the folder's.
package struct SetEntry: Codable, Sendable, Hashable {
    /// The file's name as the recipe gives it (the set's suffix, `-1`..., may follow).
    package var name: String
    /// `video`, `poster`, `preview`, `hls` or `manifest` — or `output`: a single output
    /// (a recipe without `outputs:`) while it is committed as a set of one.
    package var kind: String
    /// Its hidden temporary file in the folder until it is published.
    package var temporary: String?
    /// The finished temporary file's inode: finds its published name after a crash, and
    /// tells the set's own file from another's when it is taken back.
    package var inode: UInt64?
    /// Its path once published.
    package var output: String?
    /// What the manifest says of it (the render's description); nil for the manifest.
    package var file: Deliverables.File?

    package init(name: String, kind: String, temporary: String?, file: Deliverables.File? = nil) {
        self.name = name
        self.kind = kind
        self.temporary = temporary
        self.file = file
    }

    /// A single output's one file (kind `output`): its name, its temporary file, its inode
    /// once sealed, its path once published.
    package static func singleOutput(_ name: String, temporary: String?, inode: UInt64? = nil, output: String? = nil) -> SetEntry {
        var entry = SetEntry(name: name, kind: singleOutputKind, temporary: temporary)
        (entry.inode, entry.output) = (inode, output)
        return entry
    }

    package var isManifest: Bool { kind == Self.manifestKind }

    /// A single output's one file, committed as a set of one.
    package var isSingleOutput: Bool { kind == Self.singleOutputKind }

    /// An HLS ladder: a folder, published and taken back whole.
    package var isLadder: Bool { kind == Self.ladderKind }

    /// The name it takes in the folder (before the set's suffix): the file's, or a
    /// ladder's folder — its master playlist's name without `.m3u8`, as
    /// `Deliverables.Item.publishedName` makes it.
    package var publishedName: String {
        isLadder ? (name as NSString).deletingPathExtension : name
    }

    /// The name the render describes it by (`Deliverables.File.name`): a ladder's master
    /// playlist in its folder, `clip/clip.m3u8`.
    package var describedName: String { isLadder ? publishedName + "/" + name : name }

    /// The published path a consumer opens: the file, or a ladder's master playlist inside
    /// its published folder (`outbox/clip-1/clip.m3u8`), as the manifest lists it.
    package var publishedPath: String? {
        output.map { isLadder ? ($0 as NSString).appendingPathComponent(name) : $0 }
    }

    package static let manifestKind = "manifest"
    package static let ladderKind = "hls"
    package static let singleOutputKind = "output"
}
