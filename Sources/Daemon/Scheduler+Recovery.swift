import Foundation
import Pipeline
import Timeline

/// Start-up: the state folder's lock, the folders, and crash recovery.
extension Scheduler {
    /// Locks the state folder (one daemon per state folder), creates the folders.
    func prepare() throws {
        try DurableFiles.makeDirectories(config.stateDirectory)
        try store.prepare()
        let lockPath = (config.stateDirectory as NSString).appendingPathComponent("lock")
        let fd = try sys("open", lockPath) { open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o644) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw DaemonError("another dropcut is already using the state folder \(config.stateDirectory) (\(lockPath) is locked); give each daemon its own state_dir")
        }
        lockDescriptor = fd
        for folder in config.folders {
            try prepare(folder)
            scanners[folder.name] = InboxScanner(inbox: folder.inbox, settle: config.settle)
        }
    }

    func prepare(_ folder: FolderConfig) throws(SystemError) {
        // `.dropcut` is made only if missing and checked before anything is made inside
        // it: a symlink there (anyone who can write to the inbox can put one) is logged,
        // and claims in that inbox are refused until it is fixed — the other folders go on.
        try DurableFiles.makeDirectories(folder.inbox)
        try sys("mkdir", folder.workDirectory) { DurableFiles.mkdirIfMissing(folder.workDirectory) }
        do {
            try DurableFiles.requireOwnDirectory(folder.workDirectory)
            try sys("mkdir", folder.claimedDirectory) { DurableFiles.mkdirIfMissing(folder.claimedDirectory) }
        } catch {
            logger.error("\(error); no clip of this inbox is claimed until it is fixed", metadata: ["DROPCUT_FOLDER": "\(folder.name)"])
        }
        try DurableFiles.makeDirectories(folder.outbox)
        try DurableFiles.makeDirectories(folder.failed)
        if let archive = folder.archive { try DurableFiles.makeDirectories(archive) }
        for path in [folder.outbox, folder.failed] + [folder.archive].compactMap({ $0 }) { runner.mounts.record(path) }
    }

    /// Puts every unfinished job of this state folder back on track: jobs that were
    /// committed are finished now (no re-render), the rest are queued to render again from
    /// their claimed copy (their partial outputs are removed first). Claimed folders left
    /// empty by a crash mid-claim are removed.
    func recover() throws {
        let (records, unreadable) = store.load()
        for bad in unreadable { quarantine(bad) }
        for var record in records where !record.isFinished {
            guard let folder = config.folder(named: record.folder) else {
                logger.warning("job \(record.id) belongs to folder '\(record.folder)', which is no longer configured; left as it is")
                continue
            }
            let log = runner.logger(for: record, folder: folder)
            switch record.state {
            case .claiming:
                if access(runner.claimedPath(record, folder, record.input), F_OK) == 0 {
                    // Sidecars renamed in before the crash, but not yet in the record, go
                    // with their clip (else the claimed folder's removal would lose them).
                    let present = (try? FileManager.default.contentsOfDirectory(atPath: runner.claimedDirectory(record, folder))) ?? []
                    record.sidecars = present.filter { $0 != record.input && !$0.hasPrefix(".") }.sorted()
                    record.state = .claimed
                    try store.save(&record)
                    fallthrough
                }
                rmdir(runner.claimedDirectory(record, folder))
                store.remove(record.id)
                continue
            case .claimed, .rendering, .waiting:
                if let partial = record.temporaryOutput { PartialOutput(path: partial).remove() }
                if record.state == .rendering {
                    // The daemon stopped without ending this attempt (killed, crashed, the
                    // machine went down): it counts, so a clip that takes the daemon down
                    // with it cannot make a restart loop.
                    record.recordAttempt("interrupted: dropcut stopped while it was rendering")
                    record.state = .claimed
                    try store.save(&record)
                }
                log.notice("recovering \(record.input): rendering it again from its claimed copy (was \(record.state.rawValue))")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .committing, .committed, .failing:
                log.notice("recovering \(record.input): finishing its \(record.state.rawValue) step")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .done, .failed:
                continue
            }
        }
        // Empty claimed folders: a crash between mkdir and the record (rmdir only removes
        // empty ones, so another process's claim in flight at most loses its race).
        for folder in config.folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory)) ?? [] {
                rmdir((folder.claimedDirectory as NSString).appendingPathComponent(name))
            }
        }
        store.prune()
    }

    /// A job record that cannot be read: its clip (if it is in one of the inboxes' claimed
    /// folders) goes to that folder's failed/ with an error file that says why — never
    /// left claimed and hidden — and the record is set aside as `<id>.json.unreadable`.
    /// Nothing is rendered from it: what it said about the job is unknown.
    func quarantine(_ bad: JobStore.UnreadableRecord) {
        var log = logger
        log[metadataKey: "DROPCUT_JOB"] = "\(bad.id)"
        for folder in config.folders {
            let directory = (folder.claimedDirectory as NSString).appendingPathComponent(bad.id)
            var info = stat()
            guard lstat(directory, &info) == 0 else { continue }
            log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
            do {
                try DurableFiles.requireOwnDirectory(folder.claimedDirectory)
                try DurableFiles.requireOwnDirectory(directory)
                try runner.mounts.require(folder.failed, role: "failed folder")
                try DurableFiles.makeDirectories(folder.failed)
                let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
                for name in names {
                    let moved = try DurableFiles.move((directory as NSString).appendingPathComponent(name), into: folder.failed,
                                                      name: name, tag: bad.id, mode: folder.outputMode, group: folder.outputGroup)
                    if InboxScanner.sidecarExtensions.contains((name as NSString).pathExtension.lowercased()) { continue }
                    let text = """
                        dropcut could not render \(name)

                        Reason: its job record \(bad.path) cannot be read (\(bad.reason)), so what was
                        done with it is unknown; it was not rendered by this job.

                        Folder:   \(folder.name) (inbox \(folder.inbox))
                        Job:      \(bad.id)
                        Failed:   \(ISO8601DateFormatter().string(from: Date()))

                        Check the output folder for a finished render of it; otherwise drop it
                        into the inbox again.

                        """
                    let errorFile = try DurableFiles.writeUnique(
                        Data(text.utf8), into: folder.failed,
                        name: FileName.fitting((moved as NSString).lastPathComponent, suffix: ".error.txt"),
                        tag: bad.id, mode: folder.outputMode)
                    log[metadataKey: "DROPCUT_INPUT"] = "\((folder.inbox as NSString).appendingPathComponent(name))"
                    log[metadataKey: "DROPCUT_OUTPUT"] = "\(errorFile)"
                }
                DurableFiles.removeTree(directory)
                log.error("failed \(names.joined(separator: ", ")): its job record \(bad.path) cannot be read (\(bad.reason))",
                          metadata: ["MESSAGE_ID": "\(MessageID.jobFailed.rawValue)"])
            } catch {
                // Left where it is (and the record too): tried again at the next start.
                log.critical("job record \(bad.path) cannot be read (\(bad.reason)), and its claimed clip cannot be moved to the failed folder: \(error)")
                return
            }
        }
        log.warning("job record \(bad.path) cannot be read (\(bad.reason)); set aside as \((bad.path as NSString).lastPathComponent).unreadable")
        store.setAside(bad)
    }
}
