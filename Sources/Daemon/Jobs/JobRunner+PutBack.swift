import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// Clips stranded in `.dropcut/claimed/` with a database coordinator: a claim folder that no
/// row of the database and no claim of any host has accounted for during a whole
/// `lease_timeout` (`DatabaseLeases.orphans`) — its holder is gone and its row with it (a
/// dropped `dropcut_jobs`, a host whose state folder was lost). Nothing can take it over
/// (a takeover needs the row), so its clip goes back to the inbox, to be claimed and
/// rendered as a new drop.
extension JobRunner {
    /// Puts back every orphan of `folder`'s inbox the database lets this host put back;
    /// returns the clips' names in the inbox. Failures are logged, and tried again later.
    func putBackOrphans(in folder: FolderConfig, database: DatabaseLeases) -> [String] {
        let orphans: [String]
        do {
            orphans = try database.orphans(in: folder)
        } catch {
            return []   // logged once by DatabaseLeases
        }
        var back: [String] = []
        for name in orphans {
            do {
                if let clip = try putBack(name, folder: folder, database: database) { back.append(clip) }
                database.forgetOrphan(name, in: folder)
            } catch {
                var log = logger
                log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
                log.error("cannot put back the clip of claim \(name), which no job accounts for: \(error); tried again later")
            }
        }
        return back
    }

    /// Puts the clip of claim folder `name` (its sidecars with it) back in the inbox, once
    /// the database decided so (`PostgresCoordinator.putBack`, exclusive with its holder
    /// putting its row back); a name taken in the inbox meanwhile gets the next free
    /// `-1`… Returns the clip's name in the inbox; nil when the database decided otherwise,
    /// or the folder held no clip (it is removed).
    func putBack(_ name: String, folder: FolderConfig, database: DatabaseLeases) throws -> String? {
        let directory = (folder.claimedDirectory as NSString).appendingPathComponent(name)
        try DurableFiles.requireOwnDirectory(folder.claimedDirectory)
        try DurableFiles.requireOwnDirectory(directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        guard let clip = files.first(where: { !InboxScanner.isIgnored($0) }) else {
            // Nothing to render: a claim whose clip never came in (or only hidden leftovers).
            if files.isEmpty { DurableFiles.removeTree(directory) }
            return nil
        }
        let path = (directory as NSString).appendingPathComponent(clip)
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError(errno: errno, function: "stat", path: path) }
        let key = PostgresCoordinator.Clip(folder: folder.name, name: clip, size: Int64(info.st_size),
                                           modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
        guard try database.putBack(claim: name, clip: key) else { return nil }
        var inInbox = clip
        for file in [clip] + files.filter({ $0 != clip }) {
            let moved = try DurableFiles.move((directory as NSString).appendingPathComponent(file), into: folder.inbox, name: file, tag: name)
            if file == clip { inInbox = (moved as NSString).lastPathComponent }
        }
        if inInbox != clip { try database.renameQueued(name, to: inInbox) }
        DurableFiles.removeTree(directory)
        var log = logger
        log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
        log[metadataKey: "DROPCUT_INPUT"] = "\((folder.inbox as NSString).appendingPathComponent(inInbox))"
        log.warning("put \(inInbox) back in the inbox: its claim \(name) had no job in the coordinator \(database.database.target) and no host renewing it for \(LeaseKeeper.seconds(database.lease)) (its holder is gone with its row); it is claimed again as a new drop")
        return inInbox
    }
}
