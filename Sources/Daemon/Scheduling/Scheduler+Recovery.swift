import Foundation
import DropcutPipeline
import DropcutSupport

/// Start-up: the state folder's lock, the folders, and crash recovery.
extension Scheduler {
    /// Locks the state folder (one daemon per state folder), creates the folders.
    func prepare() throws {
        try DurableFiles.makeDirectories(config.stateDirectory)
        try store.prepare()
        lock = try StateFolderLock(stateDirectory: config.stateDirectory)
        for folder in config.folders { try prepare(folder) }
        inboxes.configure(config.folders, settle: config.settle, leaseTimeout: config.leaseTimeout)
        // The coordination made ready before anything is claimed (a coordinator's schema,
        // checked against what its migrations make): never "ready" on one that is not. A
        // coordinator away at start is logged (once) and made ready at the first pick
        // once it answers; one that can never be used stops the start (`DaemonError`).
        do {
            try assignment?.prepare()
        } catch let refused as DaemonError {
            throw refused
        } catch {}
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
    /// their claimed copy (their partial outputs are removed first). Each claim is held
    /// again at once (its lease written): one whose folder is gone was taken over by
    /// another host while this one was down, and is abandoned here. Claimed folders left
    /// empty by a crash mid-claim are removed.
    func recover() throws {
        let loaded = store.load()
        var records = loaded.records
        for bad in loaded.unreadable {
            // The durable evidence left of it: the copy of its record the coordination
            // keeps with its claim (a share's lease, a coordinator's row: written at every
            // step of a commit before the next). Only without one is what was done with
            // the clip unknown.
            let copy: RecordCopy?
            do {
                copy = try keeper.ownCopy(of: bad.id, folders: config.folders)
            } catch {
                // Left as it is, not quarantined: the coordinator may hold its copy.
                logger.error("job record \(bad.path) cannot be read (\(bad.reason)), and the coordinator cannot be asked for its copy: \(error); left for the next start (other hosts take its claim over if it lasts)",
                             metadata: ["DROPCUT_JOB": "\(bad.id)"])
                continue
            }
            guard var copy else {
                quarantine(bad)
                continue
            }
            logger.warning("job record \(bad.path) cannot be read (\(bad.reason)); resumed from \(copy.source) (the unreadable one set aside as \((bad.path as NSString).lastPathComponent).unreadable)",
                           metadata: ["DROPCUT_JOB": "\(bad.id)"])
            store.setAside(bad)
            try store.save(&copy.record)
            records.append(copy.record)
        }
        // A claim of this host's whose record is gone altogether (deleted, a state folder
        // restored from a backup): resumed from its copy too, not left for a takeover. (A
        // claim folder another host holds has no copy of this host's: passed by.)
        let known = Set(records.map(\.id)).union(loaded.unreadable.map(\.id))
        // The coordinator away: the claims after the first it could not answer for are not
        // asked about either (said once; another host's, most of them, in a shared inbox).
        var unanswered: (count: Int, error: any Error)?
        for folder in config.folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.claimedDirectory)) ?? []
            for job in Set(names.compactMap { ClaimName($0)?.job }).subtracting(known).sorted() {
                if unanswered != nil {
                    unanswered?.count += 1
                    continue
                }
                let copy: RecordCopy?
                do {
                    copy = try keeper.ownCopy(of: job, folders: [folder])
                } catch {
                    unanswered = (1, error)
                    continue
                }
                guard var copy, copy.record.folder == folder.name else { continue }
                logger.warning("job \(job) has no record in \(config.stateDirectory); resumed from \(copy.source)",
                               metadata: ["DROPCUT_JOB": "\(job)", "DROPCUT_FOLDER": "\(folder.name)"])
                try store.save(&copy.record)
                records.append(copy.record)
            }
        }
        if let unanswered {
            logger.error("the coordinator cannot be asked whether \(unanswered.count) claim folder(s) with no record in \(config.stateDirectory) are this host's: \(unanswered.error); left for the next start (other hosts take this host's over if it lasts)")
        }
        for var record in records {
            guard let folder = config.folder(named: record.folder) else {
                if !record.isFinished {
                    logger.warning("job \(record.id) belongs to folder '\(record.folder)', which is no longer configured; left as it is")
                }
                continue
            }
            // Its claim folder, under whichever name a fence left it: the one its record
            // names (a fence may have stepped over a name taken by a stranger's folder).
            let entries = ClaimName.entries(of: record.id, in: folder.claimedDirectory)
            let found = entries.first { $0 == record.claim } ?? entries.last
            if record.isFinished {
                // Finished, and crashed before its folder went (the lease says so too). Not
                // an abandoned job's: a taker renamed that folder away, so one still under
                // this job's name was given up unfinished (a fence it could not take) and
                // holds the clip, for a takeover after lease_timeout.
                if let found, record.state != .abandoned {
                    DurableFiles.removeTree((folder.claimedDirectory as NSString).appendingPathComponent(found.description))
                }
                continue
            }
            if let found { record.claimName = found.fences == 0 ? nil : found.description }
            let log = runner.logger(for: record, folder: folder)
            do {
                if record.state == .claiming {
                    guard let found else {
                        store.remove(record.id)   // killed before its claim folder was made
                        continue
                    }
                    guard try recoverClaim(&record, found, folder) else { continue }
                } else {
                    guard let found, try runner.keeper.hold(record, name: found, claimedDirectory: folder.claimedDirectory) == .renamed else {
                        abandon(record, folder, because: "its claim is gone from \(folder.claimedDirectory): another host took it over while this one was down")
                        continue
                    }
                }
            } catch {
                // Left as it is (a share that is briefly away): looked at again at the next start.
                log.error("cannot take up the claim of \(record.input) again: \(error); left for the next start (other hosts take it over if it lasts)")
                continue
            }
            switch record.state {
            case .claiming, .claimed, .preparing, .rendering, .waiting:
                runner.removeSetTemporaries(&record, folder: folder)
                let was = record.state
                // The daemon stopped without ending this step (killed, crashed, the machine
                // went down): a render in its worker is given back; a death while the
                // daemon read the clip's files counts, bounded, so a clip that takes the
                // daemon down cannot make a restart loop.
                if let reason = record.interrupted("dropcut stopped") {
                    record.error = reason
                    try runner.advance(&record, .failureDecided, folder: folder)
                    log.warning("recovering \(record.input): \(reason)")
                    jobs[record.id] = .waiting(record, folder, until: .now)
                    continue
                }
                try runner.advance(&record, .recovered, folder: folder)
                log.notice("recovering \(record.input): rendering it again from its claimed copy (was \(was.rawValue); attempts so far: \(record.attempts))")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .committing, .committed, .failing:
                log.notice("recovering \(record.input): finishing its \(record.state.rawValue) step")
                jobs[record.id] = .waiting(record, folder, until: .now)
            case .done, .failed, .abandoned:
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
        sweepOrphanPartials(records)
        store.prune()
    }

    /// A job that crashed mid-claim (`claiming`), its folder `found`: a claim whose clip
    /// made it into the folder is held and goes on as claimed; a takeover whose rename
    /// happened is adopted from the lease it brought; anything else is undone. Returns
    /// whether the job goes on.
    func recoverClaim(_ record: inout JobRecord, _ found: ClaimName, _ folder: FolderConfig) throws -> Bool {
        let directory = runner.claimedDirectory(record, folder)
        if let previous = record.previousJobs?.last, let name = ClaimName(previous) {
            // A takeover: the rename took the folder (its old lease inside) to this job's
            // name. The holder's record is the coordinator's where it keeps one, else the
            // lease's (`JobRunner.adopt`).
            switch try runner.adopt(&record, previous: name, folder: folder) {
            case .resume: return true
            case .removed, .missed: return false
            }
        }
        guard access(runner.claimedPath(record, folder, record.input), F_OK) == 0 else {
            DurableFiles.removeTree(directory)
            store.remove(record.id)
            return false
        }
        guard try runner.keeper.hold(record, name: found, claimedDirectory: folder.claimedDirectory) == .renamed else {
            abandon(record, folder, because: "its claim is gone from \(folder.claimedDirectory): another host took it over while this one was down")
            return false
        }
        // Sidecars renamed in before the crash, but not yet in the record, go with their
        // clip (else the claimed folder's removal would lose them).
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        record.sidecars = present.filter { $0 != record.input && !$0.hasPrefix(".") }.sorted()
        try runner.advance(&record, .clipClaimed, folder: folder)
        return true
    }

    /// A job record that cannot be read: its clip (if it is in one of the inboxes' claimed
    /// folders) goes to that folder's failed/ with an error file that says why — never
    /// left claimed and hidden — and the record is set aside as `<id>.json.unreadable`.
    /// Nothing is rendered from it: what it said about the job is unknown.
    func quarantine(_ bad: JobStore.UnreadableRecord) {
        var log = logger
        log[metadataKey: "DROPCUT_JOB"] = "\(bad.id)"
        for folder in config.folders {
            guard let found = ClaimName.entries(of: bad.id, in: folder.claimedDirectory).last else { continue }
            let path = { (name: ClaimName) in (folder.claimedDirectory as NSString).appendingPathComponent(name.description) }
            let directory = path(found.fenced)
            log[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
            do {
                try DurableFiles.requireOwnDirectory(folder.claimedDirectory)
                try DurableFiles.requireOwnDirectory(path(found))
                // A fence, as before every move to failed/: a claim another host took over
                // while this one was down is not this host's to move.
                guard try ClaimRename.rename(path(found), to: directory) == .renamed else { continue }
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
