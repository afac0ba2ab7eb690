import Foundation
import DropcutPipeline
import DropcutSupport

/// The commit: publishing a job's output in the outbox, durable, exclusive (never replacing
/// a file) and recorded at every step — one path for every output. A single output is a
/// set of one: its one file (kind `output`) and no manifest, published as `name`,
/// `name-1`… as it always was; a deliverable set (a recipe with `outputs:`) is several
/// files and their manifest, all or nothing.
///
/// The worker renders every file under its temporary name and announces the whole set
/// first (`WorkerEvent.renderingSet`), so the record knows every name before one is
/// written. Once the worker is done each file is fsynced and its inode recorded
/// (`committing`). Then the set gets one suffix for all its names (`setSuffix`: the first
/// `n` at which every name, `-n` before its extension, is free — so the manifest and its
/// files stay matched; 0 is the names as they are), recorded before anything is published;
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
    /// Publishes the job's output (see the extension's comment), from wherever a crash
    /// left it: a set, or a single output as a set of one.
    func commit(_ record: inout JobRecord, folder: FolderConfig) throws {
        if record.deliverables == nil { try Self.makeSetOfOne(&record) }
        try publishSet(&record, folder: folder)
        if let single = record.deliverables?.first, single.isSingleOutput {
            // Back to a single output's fields, as the record of a published output always
            // had them (`output`, `temporaryInode`), before the record says committed.
            record.output = single.output
            record.temporaryOutput = nil
            record.temporaryInode = single.inode
            record.deliverables = nil
            record.setSuffix = nil
        }
        try advance(&record, .published, folder: folder)
    }

    /// A single output's record (`temporaryOutput`, `output`: its name, `temporaryInode`)
    /// as a set of one: its file, of kind `output`, and no manifest.
    static func makeSetOfOne(_ record: inout JobRecord) throws {
        guard let temporary = record.temporaryOutput, let name = record.output, let inode = record.temporaryInode else {
            throw JobFailure.permanent("job \(record.id) has no rendered output to commit", errno: nil)
        }
        var file = DeliverableRecord(name: (name as NSString).lastPathComponent, kind: DeliverableRecord.singleOutputKind, temporary: temporary)
        file.inode = inode
        record.deliverables = [file]
        record.setSuffix = nil
        record.temporaryOutput = nil
        record.temporaryInode = nil
        record.output = nil
    }

    /// `makeSetOfOne` undone: a single output a holder was committing as a set of one,
    /// back in a single output's fields as its render left them (its temporary file, its
    /// inode, its name), for a taker to find it as it finds any single output.
    static func unmakeSetOfOne(_ record: inout JobRecord) {
        guard let set = record.deliverables, set.count == 1, let file = set.first, file.isSingleOutput else { return }
        record.temporaryOutput = file.temporary
        record.temporaryInode = file.inode
        record.output = file.name
        record.deliverables = nil
        record.setSuffix = nil
    }

    /// Publishes every file of the set under one suffix, the manifest (if the set has one)
    /// written before and published last; the record says where it is at every step.
    func publishSet(_ record: inout JobRecord, folder: FolderConfig) throws {
        // A set of files and its manifest, or one file of kind `output` and none.
        guard var set = record.deliverables, !set.isEmpty,
              set.dropLast().allSatisfy({ !$0.isManifest && !$0.isSingleOutput }),
              set.last?.isManifest == true ? set.count >= 2 : (set.count == 1 && set[0].isSingleOutput) else {
            throw JobFailure.permanent("job \(record.id) has no rendered set to commit", errno: nil)
        }
        try mounts.require(folder.outbox, role: "outbox")
        let outbox = folder.outbox
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
            takeBack(&set, outbox: outbox, remove: true)
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
        var start = 0
        publishing: while true {
            let suffix: Int
            if let recorded = record.setSuffix {
                suffix = recorded
            } else {
                var free = try Self.freeSuffix(for: set, in: outbox, from: start, tag: record.id)
                // Every name of the set given to this job by the coordination
                // (`ClaimCoordination.reserve`: a coordinator's unique key; on a share,
                // every name — the exclusive publish decides).
                while try !set.allSatisfy({ try keeper.reserve(output: DurableFiles.numbered($0.publishedName, free), in: outbox, for: record) }) {
                    free = try Self.freeSuffix(for: set, in: outbox, from: free + 1, tag: record.id)
                }
                suffix = free
                record.setSuffix = suffix
                try save(&record)
            }
            func path(_ index: Int) -> String {
                (outbox as NSString).appendingPathComponent(DurableFiles.numbered(set[index].publishedName, suffix))
            }
            // Published under another number (a crash in the middle of taking a set back).
            if set.indices.contains(where: { set[$0].output != nil && set[$0].output != path($0) }) {
                takeBack(&set, outbox: outbox, remove: false)
            }
            let manifest = set.last?.isManifest == true ? set.count - 1 : nil
            if let manifest, set[manifest].output == nil {
                // Written (complete, fsynced) before the first file is published: a disk that
                // is full fails the commit here, with nothing of the set visible yet.
                let temporary = set[manifest].temporary
                    ?? PartialOutput(directory: outbox, filename: set[manifest].name, tag: record.id).path
                set[manifest].temporary = temporary
                set[manifest].inode = try writeManifest(set, names: files.map(path), to: temporary, record: record, folder: folder)
                record.deliverables = set
                try save(&record)
            }
            var taken = false
            for index in files where set[index].output == nil {
                guard let temporary = set[index].temporary else { continue }
                if try DurableFiles.publishExclusively(temporary, as: path(index), tag: record.id) {
                    // On disk before the record says so.
                    try DurableFiles.sync(outbox)
                    set[index].output = path(index)
                    record.deliverables = set
                    try save(&record)
                } else {
                    taken = true
                    break
                }
            }
            if !taken, let manifest, set[manifest].output == nil, let temporary = set[manifest].temporary {
                if try DurableFiles.publishExclusively(temporary, as: path(manifest), tag: record.id) {
                    set[manifest].output = path(manifest)
                } else {
                    taken = true
                }
            }
            record.deliverables = set
            guard taken else { break publishing }
            // Taken between the look and the publish: the set starts again at the next number.
            takeBack(&set, outbox: outbox, remove: false)
            record.deliverables = set
            start = suffix + 1
            record.setSuffix = nil
            try save(&record)
        }
        try DurableFiles.sync(outbox)
        record.output = set.last?.output
    }

    /// The first number from `start` at which no name of the set is taken (or taken by the
    /// set's own file already, published before a crash, or by a placeholder job `tag` left
    /// there in a crash — a ladder's: an empty folder — which publishing replaces).
    static func freeSuffix(for set: [DeliverableRecord], in outbox: String, from start: Int,
                           tag: String? = nil) throws(SystemError) -> Int {
        for n in start..<DurableFiles.maximumNumbered {
            let free = set.allSatisfy { file in
                let path = (outbox as NSString).appendingPathComponent(DurableFiles.numbered(file.publishedName, n))
                var info = stat()
                if lstat(path, &info) != 0 { return errno == ENOENT }
                return file.output == path
                    || (!file.isManifest && PublishPlaceholder.isLeftover(at: Array(path.utf8CString), tag: tag, folder: file.isLadder))
            }
            if free { return n }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)",
                          path: (outbox as NSString).appendingPathComponent(set.first?.name ?? "?"))
    }

    /// Takes back what the set has published: each file renamed back to its temporary
    /// name (or, `remove`, unlinked; a ladder's folder removed with what it holds), the
    /// manifest removed (it is written again for the names the set gets). Only names that
    /// still hold the set's own file (or folder: its inode) are touched.
    func takeBack(_ set: inout [DeliverableRecord], outbox: String, remove: Bool) {
        for index in set.indices {
            guard let output = set[index].output else { continue }
            var info = stat()
            let own = lstat(output, &info) == 0 && set[index].inode == UInt64(info.st_ino)
            if own {
                if set[index].isManifest || remove {
                    PartialOutput(path: output).remove()   // a ladder's folder whole
                } else if let temporary = set[index].temporary {
                    var left = stat()
                    if lstat(temporary, &left) == 0, left.st_ino == info.st_ino {
                        unlink(output)   // both names are the file (a rename would do nothing)
                    } else {
                        _ = rename(output, temporary)
                    }
                }
            }
            set[index].output = nil
            if set[index].isManifest, let temporary = set[index].temporary {
                unlink(temporary)
                set[index].inode = nil
            }
        }
        try? DurableFiles.sync(outbox)
    }

    /// Writes the manifest (every file by the name it is published under, `names`: one for
    /// each file of the set in order, as the worker described it) to `path`, complete and
    /// fsynced, with the folder's mode and group; returns its inode.
    func writeManifest(_ set: [DeliverableRecord], names: [String], to path: String, record: JobRecord, folder: FolderConfig) throws -> UInt64 {
        var files: [Deliverables.File] = []
        for (entry, output) in zip(set.filter { !$0.isManifest }, names) {
            guard var file = entry.file else {
                throw JobFailure.transient("the set's file \(entry.name) is not described", errno: nil)
            }
            // A ladder by its master playlist in its published folder: a suffix numbers the
            // folder only (`clip-1/clip.m3u8`), the playlists inside name each other as rendered.
            file.name = entry.isLadder ? (output as NSString).lastPathComponent + "/" + entry.name
                : (output as NSString).lastPathComponent
            files.append(file)
        }
        let input = record.droppedName(record.input)?.printable ?? record.input
        let data = try Deliverables.manifest(input: input, files: files)
        unlink(path)   // an earlier write's, for other names or cut short by a crash
        let fd = try sys("open", path) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        let failed = data.withUnsafeBytes { FileWriting.writeAll(fd, $0.baseAddress, $0.count) }
        var code = failed, function = "write"
        if code == 0, fsync(fd) != 0 { (code, function) = (errno, "fsync") }
        var info = stat()
        if code == 0, fstat(fd, &info) != 0 { (code, function) = (errno, "fstat") }
        close(fd)
        guard code == 0 else {
            unlink(path)
            throw SystemError(errno: code, function: function, path: path)
        }
        try DurableFiles.apply(mode: folder.outputMode, group: folder.outputGroup, to: path)
        try DurableFiles.sync(path)
        return UInt64(info.st_ino)
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
