import Foundation
import Pipeline
import Support

/// Publishing a deliverable set (a recipe with `outputs:`): the same durable, exclusive,
/// recorded steps as a single output's commit, for several files, all or nothing.
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
    /// The set a worker announced, checked like any input (a worker taken over by a hostile
    /// file must not make the daemon link, chmod or delete anything else): plain, distinct
    /// names, each file's temporary name the one this job's output of that name gets in
    /// this outbox (a ladder's: its folder's, named without `.m3u8`). Nil: the announcement
    /// is ignored (and the worker's success then counts as one without an output).
    static func checkedSet(_ files: [WorkerEvent.SetFile], manifest: String, outbox: String, job: String) -> [DeliverableRecord]? {
        guard !files.isEmpty, files.count < JobRecord.maximumDeliverables else { return nil }
        let manifestFile = WorkerEvent.SetFile(temporary: PartialOutput(directory: outbox, filename: manifest, tag: job).path,
                                               output: manifest, kind: DeliverableRecord.manifestKind)
        var names = Set<String>(), temporaries = Set<String>()
        var set: [DeliverableRecord] = []
        for (index, file) in (files + [manifestFile]).enumerated() {
            let isManifest = index == files.count
            let entry = DeliverableRecord(name: file.output, kind: file.kind, temporary: file.temporary)
            // A ladder's folder is a name in the outbox too, distinct from every other.
            let ladderIsWellNamed = !entry.isLadder || ((file.output as NSString).pathExtension.lowercased() == "m3u8"
                && isPlainName(entry.publishedName) && !entry.publishedName.hasPrefix(".")
                && names.insert(entry.publishedName.lowercased()).inserted)
            guard isPlainName(file.output), !file.output.hasPrefix("."), ladderIsWellNamed,
                  isManifest == (file.kind == DeliverableRecord.manifestKind),
                  file.temporary == PartialOutput(directory: outbox, filename: entry.publishedName, tag: job).path,
                  names.insert(file.output.lowercased()).inserted, temporaries.insert(file.temporary).inserted else { return nil }
            set.append(entry)
        }
        return set
    }

    /// Removes a set's temporary files left by a render that did not finish (failed,
    /// interrupted, stopped) and forgets the set — only while nothing of it is published,
    /// and only files that are this job's hidden files in the outbox.
    func removeSetTemporaries(_ record: inout JobRecord, folder: FolderConfig) {
        guard let set = record.deliverables, set.allSatisfy({ $0.output == nil }) else { return }
        for file in set {
            if let temporary = file.temporary, isOwnPartialOutput(temporary, record, folder) { PartialOutput(path: temporary).remove() }
        }
        record.deliverables = nil
        record.setSuffix = nil
    }

    /// The worker finished the set: each file (a regular file, as the worker described it)
    /// gets its mode and group, is fsynced and its inode recorded; the job is `committing`.
    /// An HLS ladder is a folder (only an entry of kind `hls` may be one): sealed whole
    /// (`LadderFolder`), its files' bytes what the worker described, the folder's inode
    /// recorded.
    func syncSet(_ record: inout JobRecord, folder: FolderConfig, milliseconds: Int, speed: Double?) throws {
        guard var set = record.deliverables else { return }
        // A worker that also announced a single output (it never does) gets nothing of it published.
        if let single = record.temporaryOutput { PartialOutput(path: single).remove() }
        record.temporaryOutput = nil
        record.output = nil
        for index in set.indices where !set[index].isManifest {
            guard let temporary = set[index].temporary else {
                throw JobFailure.transient("the worker's set has no file for \(set[index].name)", errno: nil)
            }
            if set[index].isLadder {
                set[index].inode = try Self.sealLadder(temporary, described: set[index], folder: folder)
                continue
            }
            var own = stat()
            // A regular file, not a symlink the worker left there (apply follows links).
            guard lstat(temporary, &own) == 0, (own.st_mode & S_IFMT) == S_IFREG else {
                throw JobFailure.transient("the worker's output \(temporary) is missing or not a regular file", errno: nil)
            }
            guard let file = set[index].file, file.bytes == Int64(own.st_size) else {
                throw JobFailure.transient("the worker did not describe \(set[index].name) as it is on disk", errno: nil)
            }
            try DurableFiles.apply(mode: folder.outputMode, group: folder.outputGroup, to: temporary)
            try DurableFiles.sync(temporary)
            set[index].inode = UInt64(own.st_ino)
        }
        record.deliverables = set
        record.elapsedMilliseconds = max(0, milliseconds)
        record.speed = speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        try advance(&record, .rendered, folder: folder)
    }

    /// Seals the ladder `entry` the worker left at `temporary` (`LadderFolder.seal`) and
    /// returns the folder's inode; a folder that is not what the worker described, or holds
    /// anything but files and folders, fails the attempt.
    static func sealLadder(_ temporary: String, described entry: DeliverableRecord, folder: FolderConfig) throws -> UInt64 {
        let sealed: LadderFolder.Sealed
        do throws(SystemError) {
            sealed = try LadderFolder.seal(temporary, mode: folder.outputMode, group: folder.outputGroup)
        } catch {
            throw JobFailure.transient("the worker's HLS ladder \(temporary) is missing or not only files and folders: \(error)",
                                       errno: error.errno)
        }
        guard let file = entry.file, file.bytes == sealed.bytes else {
            throw JobFailure.transient("the worker did not describe \(entry.describedName) as it is on disk", errno: nil)
        }
        // The folder's entry in the outbox.
        try DurableFiles.syncParent(of: temporary)
        return sealed.inode
    }

    /// Publishes the set (see the extension's comment), from wherever a crash left it.
    func commitSet(_ record: inout JobRecord, folder: FolderConfig) throws {
        guard var set = record.deliverables, set.last?.isManifest == true, set.count >= 2 else {
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
                // Every name of the set given to this job by the coordinator (a database's
                // unique key; with shared-folder claims, every name).
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
            let manifest = set.count - 1
            if set[manifest].output == nil {
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
                    // On disk before the record says so, as `linkUnique` does for one output.
                    try DurableFiles.sync(outbox)
                    set[index].output = path(index)
                    record.deliverables = set
                    try save(&record)
                } else {
                    taken = true
                    break
                }
            }
            if !taken && set[manifest].output == nil, let temporary = set[manifest].temporary {
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
        try advance(&record, .published, folder: folder)
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
}
