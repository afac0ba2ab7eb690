import Foundation
import DropcutSupport

/// Publishing a rendered deliverable set as `dropcut render` does: the one set commit
/// (`SetCommit`) replacing what has the names (a file renamed over, an earlier render's
/// HLS folder moved aside and removed once the new one is in) — or, not `replacing`,
/// refusing the whole set when any of its names is taken (`-n`) —, the manifest written
/// last: its presence says the set is complete. A failure takes back what was published. (The
/// daemon commits the same way, durably and never replacing a name: `JobRunner.commit`.)
extension Deliverables {
    /// Publishes `files` (what `SetRender` made, under their temporary names in
    /// `directory`, tagged `tag`). Returns them with the manifest last.
    func publish(_ files: [File], into directory: String, tag: String, replacing: Bool) throws -> [File] {
        let temporaries = temporaries(in: directory, tag: tag)
        var entries = zip(zip(items, files), temporaries).map { pair, temporary in
            SetEntry(name: pair.0.filename, kind: pair.1.kind, temporary: temporary, file: pair.1)
        }
        entries.append(SetEntry(name: manifestFilename, kind: SetEntry.manifestKind,
                                temporary: PartialOutput(directory: directory, filename: manifestFilename, tag: tag).path))
        var state = SetCommit.State(entries: entries)
        let input = input
        // The names are the recipe's (neither policy takes a suffix): the files as rendered.
        try SetCommit(directory: directory, policy: replacing ? .replace : .refuseExisting, durability: .volatile, tag: tag)
            .publish(&state, manifest: { _, _ in try Deliverables.manifest(input: input, files: files) })
        let manifestPath = (directory as NSString).appendingPathComponent(manifestFilename)
        let manifestFile = File(name: manifestFilename, kind: SetEntry.manifestKind, bytes: try FileSize.bytes(at: manifestPath),
                                width: 0, height: 0, duration: nil, time: nil, sha256: "")
        return files + [manifestFile]
    }
}
