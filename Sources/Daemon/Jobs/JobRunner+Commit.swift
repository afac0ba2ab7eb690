import Foundation
import Pipeline
import Support

/// Publishing a single output: linked exclusively to its final name, found again by its
/// inode after a crash (a deliverable set's commit is `commitSet`).
extension JobRunner {
    /// Links the finished temporary output to its final name (`-1`, `-2`... on collision,
    /// never overwriting). After a crash mid-commit, the output already linked is found by
    /// the temporary file's inode, so the clip never appears twice.
    func commit(_ record: inout JobRecord, folder: FolderConfig) throws {
        guard let temporary = record.temporaryOutput, let name = record.output, let inode = record.temporaryInode else {
            throw JobFailure.permanent("job \(record.id) has no rendered output to commit", errno: nil)
        }
        try mounts.require(folder.outbox, role: "outbox")
        if let linked = Self.entry(withInode: inode, in: folder.outbox, besides: temporary) {
            unlink(temporary)     // linked before a crash; the temporary name may remain
            record.output = linked
        } else if access(temporary, F_OK) == 0 {
            record.output = try publishUnique(temporary, into: folder.outbox, name: (name as NSString).lastPathComponent, record)
        } else {
            try advance(&record, .outputVanished, folder: folder)
            throw JobFailure.transient("the rendered output \(temporary) vanished before it was committed", errno: ENOENT)
        }
        record.temporaryOutput = nil
        try advance(&record, .published, folder: folder)
    }

    /// Links `temporary` into `outbox` under the first free `name`, `name-1`...: a name
    /// the coordinator gives this job (`ClaimCoordination.reserve`: a database's unique
    /// key; with shared-folder claims every name) and that the outbox does not hold yet
    /// (an exclusive link or rename: never an overwrite) — `DurableFiles.linkUnique` with
    /// the coordinator asked first.
    func publishUnique(_ temporary: String, into outbox: String, name: String, _ record: JobRecord) throws -> String {
        for n in 0..<DurableFiles.maximumNumbered {
            let candidate = DurableFiles.numbered(name, n)
            guard try keeper.reserve(output: candidate, in: outbox, for: record) else { continue }
            let path = (outbox as NSString).appendingPathComponent(candidate)
            if try DurableFiles.publishExclusively(temporary, as: path, tag: record.id) {
                try DurableFiles.sync(outbox)
                return path
            }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)", path: (outbox as NSString).appendingPathComponent(name))
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
