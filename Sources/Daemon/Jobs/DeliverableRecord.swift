import Foundation
import Pipeline

/// One file of a deliverable set (a recipe with `outputs:`) in its job's record: the whole
/// set is recorded from the worker's first word, before any file of it is written, so a
/// crash at any step leaves nothing the restarted daemon does not know of. The manifest is
/// the set's last entry (kind `manifest`), written by the daemon once every other file is
/// published.
package struct DeliverableRecord: Codable, Sendable, Hashable {
    /// The file's name as the recipe gives it (the set's suffix, `-1`..., may follow).
    package var name: String
    /// `video`, `poster`, `preview` or `manifest`.
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

    static let manifestKind = "manifest"
}

extension JobRecord {
    /// The names a job publishes, in order: a set's files (the manifest last) published or
    /// as they will be named, else the one output; what the journal's done line, `dropcut
    /// status` and the record list.
    package var outputNames: [String] {
        if let deliverables {
            return deliverables.map { (($0.output ?? $0.name) as NSString).lastPathComponent }
        }
        return output.map { [($0 as NSString).lastPathComponent] } ?? []
    }
}
