import Foundation
import DropcutPipeline
import DropcutSupport

/// A job's set — a recipe's `outputs:` and their manifest, or a single output as a set of
/// one — from the worker's word to its commit: the set it announces, checked and recorded
/// whole before it writes a file; its temporary files removed when a render does not
/// finish; each file sealed (fsynced, its inode recorded) once the worker is done. Publishing it is the commit every output takes
/// (`JobRunner+Commit`).
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
            // A set's files are described for its manifest; a single output has none.
            guard set[index].isSingleOutput || set[index].file?.bytes == Int64(own.st_size) else {
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
}
