import Foundation
import DropcutPipeline
import DropcutSupport

/// The commit: publishing a job's output in the outbox, durable, exclusive (never replacing
/// a file) and recorded at every step — one path for every output, and the same set
/// commit as `dropcut render`'s (`SetCommit`, here `.neverReplace` and `.durable`, its
/// steps saved in the record). Every output is a set: a single output is a set of one (its
/// one file, kind `output`, and no manifest, published as `name`, `name-1`…); a
/// deliverable set (a recipe with `outputs:`) is several files and their manifest, all or
/// nothing.
///
/// The worker renders every file under its temporary name and announces the whole set
/// first (`WorkerEvent.renderingSet`), so the record knows every name before one is
/// written. Once the worker is done each file is fsynced and its inode recorded
/// (`committing`). Then the set gets one suffix for all its names (`setSuffix`: the first
/// `n` at which every name, `-n` before its extension, is free — so the manifest and its
/// files stay matched; 0 is the names as they are), recorded before anything is published
/// (each step's record kept durably by the coordination too: `recordCommitStep`);
/// the manifest, listing the names the files get, is written (complete, fsynced) before
/// any of them is published — a disk that is full fails the commit there, with nothing of
/// the set visible —; each file is published exclusively under its name
/// (`publishExclusively`: never replacing one); the manifest is published last; the
/// outbox is fsynced; only then is the set `committed` and the original archived.
/// A name found taken on the way (another host publishing the same name at that moment)
/// takes back what the set had published under that suffix and starts again at the next.
///
/// After a crash the files already published are found by their inodes (as a single
/// output is), the rest are published under the recorded suffix, and the manifest is
/// written again: the outbox ends with exactly one complete set. A file of the set gone
/// before it was published (nothing dropcut does) takes the published ones back and the
/// clip is rendered again.
extension JobRunner {
    /// Publishes the job's set (see the extension's comment), from wherever a crash left it.
    func commit(_ record: inout JobRecord, folder: FolderConfig) throws {
        try publishSet(&record, folder: folder)
        try advance(&record, .published, folder: folder)
    }

    /// Publishes every file of the set under one suffix through the one set commit
    /// (`SetCommit`: never replacing, durable), the manifest (if the set has one) written
    /// before and published last; the record says where it is at every step. What is
    /// about the record stays here: what a crash left, found by inode, before the commit
    /// carries on.
    func publishSet(_ record: inout JobRecord, folder: FolderConfig) throws {
        // A set of files and its manifest, or one file of kind `output` and none.
        guard var set = record.deliverables, SetCommit.isWellFormed(set) else {
            throw JobFailure.permanent("job \(record.id) has no rendered set to commit", errno: nil)
        }
        try mounts.require(folder.outbox, role: "outbox")
        let outbox = folder.outbox
        let commit = SetCommit(directory: outbox, policy: .neverReplace, durability: .durable, tag: record.id,
                               manifestPermissions: .init(mode: folder.outputMode, group: folder.outputGroup))
        // What the record says published still holds the set's file (a crash while a set
        // was taken back leaves names the record still lists).
        for index in set.indices {
            guard let output = set[index].output else { continue }
            var info = stat()
            if !(lstat(output, &info) == 0 && set[index].inode == UInt64(info.st_ino)) {
                set[index].output = nil
            } else if let temporary = set[index].temporary, lstat(temporary, &info) == 0, set[index].inode == UInt64(info.st_ino) {
                unlink(temporary)   // linked, and killed before its temporary name went
            }
        }
        // Published before a crash, by a link or rename the record did not get to say.
        for index in set.indices where set[index].output == nil {
            if let inode = set[index].inode, let temporary = set[index].temporary,
               let linked = Self.entry(withInode: inode, in: outbox, besides: temporary) {
                unlink(temporary)   // linked, its temporary name may remain
                set[index].output = linked
            }
        }
        record.deliverables = set
        let files = set.indices.filter { !set[$0].isManifest }
        let vanished = files.filter { set[$0].output == nil && set[$0].temporary.map { access($0, F_OK) != 0 } ?? true }
        if let first = vanished.first {
            // Nothing dropcut does: a set cannot be completed, so none of it stays.
            commit.takeBack(&set, remove: true)
            record.deliverables = set
            removeSetTemporaries(&record, folder: folder)
            record.deliverables = nil
            record.setSuffix = nil
            try advance(&record, .outputVanished, folder: folder)
            if set[first].isSingleOutput {
                throw JobFailure.transient("the rendered output \(set[first].temporary ?? set[first].name) vanished before it was committed", errno: ENOENT)
            }
            throw JobFailure.transient("the rendered file \(set[first].temporary ?? set[first].name) vanished before it was published; the set is rendered again",
                                       errno: ENOENT)
        }
        var state = SetCommit.State(entries: set, suffix: record.setSuffix)
        let input = record.droppedName(record.input)?.printable ?? record.input
        try commit.publish(&state, reserve: { name in
            // Every name of the set given to this job by the coordination
            // (`ClaimCoordination.reserve`: a coordinator's unique key; on a share,
            // every name — the exclusive publish decides).
            try keeper.reserve(output: name, in: outbox, for: record)
        }, manifest: { files, names in
            try Self.manifest(of: files, names: names, input: input)
        }, step: { state in
            try recordCommitStep(state, in: &record)
        })
        record.deliverables = state.entries
        record.setSuffix = state.suffix
        record.output = state.entries.last?.output
    }

    /// The manifest's bytes: every file of the set (as the worker described it) by the
    /// name it is published under, `names`: one for each file in order.
    static func manifest(of files: [DeliverableRecord], names: [String], input: String) throws -> Data {
        var described: [Deliverables.File] = []
        for (entry, name) in zip(files, names) {
            guard var file = entry.file else {
                throw JobFailure.transient("the set's file \(entry.name) is not described", errno: nil)
            }
            // A ladder by its master playlist in its published folder: a suffix numbers the
            // folder only (`clip-1/clip.m3u8`), the playlists inside name each other as rendered.
            file.name = entry.isLadder ? name + "/" + entry.name : name
            described.append(file)
        }
        return try Deliverables.manifest(input: input, files: described)
    }

    /// The entry of `directory` other than `path` whose inode is `inode` (a finished link,
    /// or rename: an HLS ladder's folder, published by renaming it, is found the same way —
    /// any kind of entry counts, nothing is followed).
    static func entry(withInode inode: UInt64, in directory: String, besides path: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for name in names where !name.hasPrefix(".") {
            let candidate = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            if candidate != path, lstat(candidate, &info) == 0, UInt64(info.st_ino) == inode { return candidate }
        }
        return nil
    }
}
