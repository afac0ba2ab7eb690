import Foundation
import Logging
import DropcutPipeline

/// Taking over a claim whose lease expired — another host's, dead, paused or cut off, or
/// this host's own from before a restart that lost its state folder — and resuming its
/// job from the record in its lease, as crash recovery resumes a job from its local record.
extension JobRunner {
    /// What a takeover found.
    enum Takeover {
        /// The job to run, from the state its record gives.
        case resume(JobRecord)
        /// The claim was taken, but held nothing left to do (an empty claim, a finished
        /// job's leftover): its folder was removed. The message says what it was.
        case removed(String)
        /// Another host was first, or the holder renewed its lease after all.
        case missed

        /// What the taker does next, for its log line.
        var plan: String {
            switch self {
            case let .resume(record): JobRunner.plan(for: record)
            case let .removed(why): why
            case .missed: ""
            }
        }
    }

    /// Takes the claim of `sighting` over (see `ClaimTakeover`) as a new job of this
    /// daemon, logs it (job-taken-over, with the lease's age as this host saw it) and
    /// returns the job to resume. The new job's record is written before the rename, so a
    /// crash at any point is recovered (`adopt` again, from the lease the rename brought).
    func takeOver(_ sighting: ClaimObserver.Sighting, folder: FolderConfig, age: Duration,
                  leaseTimeout: Duration) throws -> Takeover {
        try checkOwnFolders(folder)
        let previous = sighting.name
        var record = JobRecord(id: JobRecord.newID(), folder: folder.name, input: sighting.lease?.record.input ?? "?",
                               sidecars: [], state: .claiming)
        record.previousJobs = (sighting.lease?.record.previousJobs ?? []) + [previous.job]
        try store.save(&record)
        let taken: Bool
        do {
            taken = try ClaimTakeover.attempt(sighting, in: folder.claimedDirectory, as: record.id)
        } catch {
            store.remove(record.id)
            throw error
        }
        guard taken else {
            store.remove(record.id)
            return .missed
        }
        let outcome = try adopt(&record, previous: previous, folder: folder)
        announce(outcome, folder: folder)
        let owner = sighting.lease?.owner
        var log = logger(for: record, folder: folder)
        log[metadataKey: "DROPCUT_PREVIOUS_JOB"] = "\(previous.job)"
        log[metadataKey: "DROPCUT_PREVIOUS_HOST"] = "\(owner?.host ?? "unknown")"
        log[metadataKey: "DROPCUT_LEASE_AGE_MS"] = "\(Int64(age.seconds * 1000))"
        let whose = owner.map { "\($0.description), machine \($0.machineID)" } ?? "an unknown holder (no readable lease)"
        log.notice("took over \(record.input) from \(whose), job \(previous.job): its lease had not changed for \(LeaseKeeper.seconds(age)) here (lease_timeout \(LeaseKeeper.seconds(leaseTimeout))); \(outcome.plan)",
                   metadata: ["MESSAGE_ID": "\(MessageID.jobTakenOver.rawValue)"])
        return outcome
    }

    /// Announces a takeover that resumes a job (the record written first: adopt held the
    /// claim), before the job goes on. An event that cannot be written does not stop the
    /// job it would announce.
    func announce(_ outcome: Takeover, folder: FolderConfig) {
        guard case let .resume(resumed) = outcome else { return }
        do {
            try announceNow(.takenOver, resumed, folder: folder)
        } catch {
            logger(for: resumed, folder: folder).error("took over \(resumed.input): its webhook event could not be written: \(error)")
        }
    }

    /// What the taker does next, for the log.
    static func plan(for record: JobRecord) -> String {
        switch record.state {
        case .committing: return "committing the output its holder had rendered"
        case .committed: return "its output is published; archiving the original"
        case .failing: return "moving it to the failed folder: \(record.error ?? "as its holder had decided")"
        default: return "rendering it again (attempt \(record.attempts + 1))"
        }
    }

    /// Makes the claim folder `<record.id>` (just taken over from `previous`) this job's:
    /// writes this daemon's lease, and turns the record found in the old lease into this
    /// job's record, in the state to resume from — as crash recovery does: an interrupted
    /// render counts as an attempt and is done again, a finished output is committed, a
    /// committed one only archived. Without a readable record, what was done with the clip
    /// is unknown: it goes to the failed folder with that reason (never rendered twice).
    func adopt(_ record: inout JobRecord, previous: ClaimName, folder: FolderConfig) throws -> Takeover {
        let (reading, _) = ClaimLease.read(claimDirectory: claimedDirectory(record, folder), name: previous)
        switch reading {
        case let .lease(lease):
            return try adopt(&record, found: .success(lease.record), owner: lease.owner.description, previous: previous.job, folder: folder)
        case .missing:
            return try adopt(&record, found: .failure(.init("it has no lease")), owner: "its holder", previous: previous.job, folder: folder)
        case let .unreadable(why):
            return try adopt(&record, found: .failure(.init(why)), owner: "its holder", previous: previous.job, folder: folder)
        }
    }

    /// Why a taken-over claim's record could not be had.
    struct MissingRecord: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `adopt` with the holder's record as found (a lease's, or a database's) — or why
    /// there is none — `owner` naming the holder and `previous` its job id.
    func adopt(_ record: inout JobRecord, found: Result<JobRecord, MissingRecord>, owner: String, previous: String,
               folder: FolderConfig) throws -> Takeover {
        let directory = claimedDirectory(record, folder)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let id = record.id, previousJobs = record.previousJobs, farmJob = record.farmJob, epoch = record.epoch
        switch found {
        case let .success(holder):
            record = holder   // its error too: a failing job's reason
            record.previousJobs = previousJobs
        case let .failure(missing):
            guard let clip = files.first(where: { !InboxScanner.sidecarExtensions.contains(($0 as NSString).pathExtension.lowercased()) })
                    ?? files.first else {
                return try removeClaim(&record, folder, "an empty claim (its holder stopped before moving a clip into it); removed it")
            }
            record.input = clip
            record.sidecars = files.filter { $0 != clip }
            record.state = .failing
            record.error = "its claim was taken over from job \(previous), and \(missing.reason), so what was done with it is unknown; it was not rendered again"
        }
        record.farmJob = farmJob
        record.epoch = epoch
        record.id = id
        record.folder = folder.name
        record.claimName = nil
        record.pid = getpid()
        record.retryAt = nil
        if try keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .lost {
            // Taken from this daemon in turn before it wrote its lease (a crash and a
            // long restart): nothing is done here.
            store.remove(id)
            return .missed
        }
        // The holder's temporary output as this host sees it: the same name in this host's
        // outbox (the holder's path may be another view of the same share, a mount point
        // elsewhere). The name carries the holder's job id, so a file of that name can only
        // be its own; where the outbox is the holder's own disk, there is none here.
        let partial = record.temporaryOutput.flatMap { path -> String? in
            guard let output = record.output, JobRunner.isPlainName((output as NSString).lastPathComponent) else { return nil }
            let here = PartialOutput(directory: folder.outbox, filename: (output as NSString).lastPathComponent, tag: previous).path
            return (path as NSString).lastPathComponent == (here as NSString).lastPathComponent ? here : nil
        }
        // A set's files as this host sees them, under the holder's names (see `partial`).
        let holderSet = record.deliverables.map { set in
            set.map { PartialOutput(directory: folder.outbox, filename: $0.publishedName, tag: previous).path }
        }
        if record.deliverables != nil, ![.committing, .committed, .failing].contains(record.state) {
            // Rendering: the holder's temporary files go (nothing of the set was published).
            for path in holderSet ?? [] { PartialOutput(path: path).remove() }
            record.deliverables = nil
            record.setSuffix = nil
        }
        switch record.state {
        case .claiming:
            guard files.contains(record.input) else {
                return try removeClaim(&record, folder, "an empty claim (its holder stopped before moving the clip into it); removed it")
            }
            record.sidecars = files.filter { $0 != record.input }
            record.state = .claimed
        case .claimed, .waiting:
            if let partial { PartialOutput(path: partial).remove() }
            record.temporaryOutput = nil
            record.state = .claimed
        case .preparing, .rendering:
            if let partial { PartialOutput(path: partial).remove() }
            record.temporaryOutput = nil
            // As a step the daemon did not survive (`JobRecord.interrupted`): a render in
            // the holder's worker is no strike against the clip; a holder that stopped
            // while reading the clip's files counts, bounded, so a clip that brings every
            // host down in turn still ends in failed/.
            if let reason = record.interrupted("\(owner) stopped renewing its lease") {
                record.error = reason
                record.state = .failing
            }
        case .committing where record.deliverables != nil:
            try takeFinishedSet(&record, holderSet: holderSet ?? [], folder: folder)
        case .committing:
            try takeFinishedOutput(&record, partial: partial, folder: folder)
        case .committed, .failing:
            // Nothing of the holder's temporary output is needed any more (and a path read
            // from a lease is never removed).
            record.temporaryOutput = nil
        case .done, .failed, .abandoned:
            return try removeClaim(&record, folder, "its holder had finished the job (\(record.state.rawValue)); removed its claim")
        }
        if ![.committed, .failing].contains(record.state) && !files.contains(record.input) {
            // Whatever is left of it (sidecars) goes to failed/ with the reason.
            record.error = "its claim was taken over from job \(previous), but the clip \(record.input) is not in it"
            record.state = .failing
        }
        try save(&record)
        return .resume(record)
    }

    /// A committing holder's output: published already (an outbox entry has its inode —
    /// where this host sees the inodes the holder saw), or complete under the holder's
    /// temporary name here — then it is renamed to this job's temporary name before it is
    /// published (a holder still about to link it by that name finds it gone), and looked
    /// for once more — or not to be seen here: rendered again.
    private func takeFinishedOutput(_ record: inout JobRecord, partial: String?, folder: FolderConfig) throws {
        let name = (record.output as NSString?)?.lastPathComponent ?? ""
        if let inode = record.temporaryInode, let partial, let linked = Self.entry(withInode: inode, in: folder.outbox, besides: partial) {
            unlink(partial)
            record.output = linked
            record.temporaryOutput = nil
            record.state = .committed
            return
        }
        var info = stat()
        if let partial, lstat(partial, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            // Committing: the holder's worker had finished it and the holder fsynced it.
            let mine = PartialOutput(directory: folder.outbox, filename: name, tag: record.id).path
            if try ClaimRename.rename(partial, to: mine) == .renamed, lstat(mine, &info) == 0 {
                let inode = UInt64(info.st_ino)   // as this host sees it
                if let linked = Self.entry(withInode: inode, in: folder.outbox, besides: mine) {
                    // It linked it between the two looks.
                    unlink(mine)
                    record.output = linked
                    record.temporaryOutput = nil
                    record.state = .committed
                } else {
                    record.temporaryOutput = mine
                    record.temporaryInode = inode
                }
                return
            }
        }
        // Not a render that failed: its output is out of this host's sight. So it is no
        // strike against the clip either (with `retries: 0` it would fail unrendered).
        record.temporaryOutput = nil
        record.temporaryInode = nil
        record.note("attempt \(record.attempts): rendered, but its output is out of this host's sight (not counted against the clip)")
        record.attempts = max(0, record.attempts - 1)
        record.state = .claimed
    }

    /// A committing holder's set: each file (or ladder folder) published already (found by its
    /// inode) keeps its name; each one still under the holder's temporary name here is renamed to this
    /// job's (a holder still about to publish it finds it gone); the manifest is written
    /// again by `commitSet`. A file out of this host's sight makes `commitSet` take the
    /// published ones back and render the set again.
    func takeFinishedSet(_ record: inout JobRecord, holderSet: [String], folder: FolderConfig) throws {
        guard var set = record.deliverables, set.count == holderSet.count else { return }
        for (index, holder) in holderSet.enumerated() {
            let mine = PartialOutput(directory: folder.outbox, filename: set[index].publishedName, tag: record.id).path
            // The holder's paths may be another view of the share: names only are kept.
            set[index].output = set[index].output.map { (folder.outbox as NSString).appendingPathComponent(($0 as NSString).lastPathComponent) }
            set[index].temporary = mine
            if set[index].isManifest {
                set[index].output = nil   // written again for the names the set gets
                set[index].inode = nil
                unlink(holder)
                continue
            }
            if let inode = set[index].inode, let linked = Self.entry(withInode: inode, in: folder.outbox, besides: holder) {
                unlink(holder)
                set[index].output = linked
                continue
            }
            var info = stat()
            // A ladder is its folder, moved whole (the holder sealed it before committing).
            let type: mode_t = set[index].isLadder ? S_IFDIR : S_IFREG
            if lstat(holder, &info) == 0, (info.st_mode & S_IFMT) == type, try ClaimRename.rename(holder, to: mine) == .renamed,
               lstat(mine, &info) == 0 {
                set[index].inode = UInt64(info.st_ino)   // as this host sees it
            }
        }
        record.deliverables = set
    }

    /// Ends a taken-over claim that holds nothing to do: its folder and this job's record go.
    private func removeClaim(_ record: inout JobRecord, _ folder: FolderConfig, _ why: String) throws -> Takeover {
        keeper.release(record.id)
        DurableFiles.removeTree(claimedDirectory(record, folder))
        store.remove(record.id)
        return .removed(why)
    }
}
