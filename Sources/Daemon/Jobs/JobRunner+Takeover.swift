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

    /// Takes the claim of `candidate` over as this daemon's job `candidate.job`, however it
    /// was found (`TakeoverCandidate`), logs it (job-taken-over, with the lease's age) and
    /// returns the job to resume. The new job's record is written before the claim folder
    /// is renamed to the new id, so a crash at any point is recovered (`adopt` again, from
    /// the record the folder or the coordinator holds); a holder still at work finds its
    /// folder gone.
    ///
    /// Where hosts race for the folder (`.ifUnchanged`), a lease that changed since it was
    /// judged, or another taker's rename first, leaves it: `.missed`. Where the coordinator
    /// granted it (`.granted`), the job is this host's whatever is found: a folder taken
    /// between its holder's claim and the clip's move gets the clip from the inbox; with
    /// no folder at all, the job ended unheard (its last recorded step says so) or its
    /// clip is claimed from the inbox, or it ends missing.
    func takeOver(_ candidate: TakeoverCandidate, folder: FolderConfig) throws -> Takeover {
        try checkOwnFolders(folder)
        guard let previous = candidate.previous, ClaimName(candidate.job)?.fences == 0 else {
            throw JobFailure.permanent("\(candidate.what) was given over without claim ids to move it by", errno: nil)
        }
        let ticket = ClaimTicket(job: candidate.job, farmJob: candidate.farmJob, epoch: candidate.epoch)
        var record = JobRecord(ticket: ticket, folder: folder.name, input: candidate.seen?.input ?? candidate.clip ?? "?", state: .claiming)
        record.previousJobs = (candidate.seen?.previousJobs ?? []) + [previous.job]
        try store.save(&record)
        let taken: Bool
        do {
            switch candidate.grant {
            case let .ifUnchanged(fingerprint):
                taken = try ClaimTakeover.attempt(previous, fingerprint: fingerprint, in: folder.claimedDirectory, as: record.id)
            case .granted:
                let from = (folder.claimedDirectory as NSString).appendingPathComponent(previous.description)
                taken = try ClaimRename.rename(from, to: claimedDirectory(record, folder)) == .renamed
            }
        } catch {
            store.remove(record.id)
            throw error
        }
        let outcome: Takeover
        switch (taken, candidate.grant) {
        case (false, .ifUnchanged):
            store.remove(record.id)
            return .missed
        case (true, _):
            // Granted while its holder was between making the folder and moving the clip
            // in: the clip is still in the inbox, and comes in now (raced for, such an
            // empty claim is removed and its clip left to whoever claims it).
            if candidate.grant == .granted, candidate.seen.map({ $0.state == .claiming || $0.state == .claimed }) ?? true,
               let clip = candidate.clip, access(claimedPath(record, folder, clip), F_OK) != 0, let name = RawFileName(printable: clip) {
                _ = try ClaimRename.rename(name.path(in: folder.inbox), to: claimedPath(record, folder, clip),
                                           describedAs: (folder.inbox as NSString).appendingPathComponent(clip))
            }
            let (found, owner) = candidate.stored.map { ($0, "its holder") }
                ?? ClaimLease.holderRecord(claimDirectory: claimedDirectory(record, folder), name: previous)
            outcome = try adopt(&record, found: found, owner: owner, previous: previous.job, folder: folder)
            if case .removed = outcome {
                // Nothing left to do (a finished job's leftover, an empty claim): the job
                // ends here, or a coordinator's lease would run out again and again.
                let over = JobRecord(ticket: ticket, folder: folder.name, input: candidate.clip ?? record.input,
                                     state: candidate.seen?.state ?? .claiming)
                keeper.ended(over, missing: !(candidate.seen.map { $0.state == .done || $0.state == .failed } ?? false))
            }
        case (false, .granted):
            // No claim folder. Its holder removes it last, once the original is archived
            // or in failed/: with the archive or fail step recorded (or the job ended), the
            // job is over and only the coordinator had not heard (it was away).
            if let holder = candidate.seen, let ended = Self.endedState(holder, step: candidate.step) {
                keeper.ended(JobRecord(ticket: ticket, folder: folder.name, input: candidate.clip ?? record.input, state: ended), missing: false)
                store.remove(record.id)
                outcome = .removed("its holder had finished the job (\(ended.rawValue)) before the coordinator heard")
            } else if let clip = candidate.clip,
                      let claimed = try self.claim(SettledClip(name: clip, sidecars: [], modified: Date()), folder: folder, ticket: ticket) {
                outcome = .resume(claimed)
            } else {
                store.remove(record.id)
                outcome = .removed("its clip is in neither its claim folder nor the inbox; the job ends as missing")
            }
        }
        announce(outcome, folder: folder)
        var log = logger(for: record, folder: folder)
        log[metadataKey: "DROPCUT_PREVIOUS_JOB"] = "\(previous.job)"
        log[metadataKey: "DROPCUT_PREVIOUS_HOST"] = "\(candidate.holderHost)"
        log[metadataKey: "DROPCUT_LEASE_AGE_MS"] = "\(Int64(candidate.age.seconds * 1000))"
        log.notice("took over \(record.input) from \(candidate.holder), job \(previous.job): \(candidate.expiry); \(outcome.plan)",
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
    /// writes this daemon's lease, and turns the holder's record — as the coordinator
    /// stored it, or as the old lease in the folder holds it — into this job's record, in
    /// the state to resume from — as crash recovery does: an interrupted render counts as
    /// an attempt and is done again, a finished output is committed, a committed one only
    /// archived. Without a readable record, what was done with the clip is unknown: it goes
    /// to the failed folder with that reason (never rendered twice).
    func adopt(_ record: inout JobRecord, previous: ClaimName, folder: FolderConfig) throws -> Takeover {
        let (found, owner) = try keeper.holderRecord(of: record, previous: previous, claimDirectory: claimedDirectory(record, folder))
        return try adopt(&record, found: found, owner: owner, previous: previous.job, folder: folder)
    }

    /// `adopt` with the holder's record as found (a lease's, or the coordinator's) — or why
    /// there is none — `owner` naming the holder and `previous` its job id.
    func adopt(_ record: inout JobRecord, found: Result<JobRecord, MissingRecord>, owner: String, previous: String,
               folder: FolderConfig) throws -> Takeover {
        let directory = claimedDirectory(record, folder)
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        let id = record.id, previousJobs = record.previousJobs, farmJob = record.farmJob, epoch = record.epoch
        // Without the holder's record: failed once this host holds the claim.
        var unknown: String?
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
            unknown = "its claim was taken over from job \(previous), and \(missing.reason), so what was done with it is unknown; it was not rendered again"
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
        if let unknown {
            record.error = unknown
            try advance(&record, .failureDecided, folder: folder)
        }
        // The holder's set as this host sees it: the same names in this host's outbox (the
        // holder's paths may be another view of the same share, a mount point elsewhere).
        // The names carry the holder's job id, so files of those names can only be its
        // own; where the outbox is the holder's own disk, there are none here.
        let holderSet = record.deliverables.map { set in
            set.map { PartialOutput(directory: folder.outbox, filename: $0.publishedName, tag: previous).path }
        }
        if record.deliverables != nil, ![.committing, .committed, .failing].contains(record.state) {
            // Rendering: the holder's temporary files go (nothing of the set was published).
            for path in holderSet ?? [] { PartialOutput(path: path).remove() }
            record.deliverables = nil
            record.setSuffix = nil
        }
        switch JobStateMachine.takeover(of: record.state) {
        case .claimIfClipThere:
            guard files.contains(record.input) else {
                return try removeClaim(&record, folder, "an empty claim (its holder stopped before moving the clip into it); removed it")
            }
            record.sidecars = files.filter { $0 != record.input }
            try advance(&record, .adopted(.toRender), folder: folder)
        case .renderAgain:
            try advance(&record, .adopted(.toRender), folder: folder)
        case .interruptedAttempt:
            // As a step the daemon did not survive (`JobRecord.interrupted`): a render in
            // the holder's worker is no strike against the clip; a holder that stopped
            // while reading the clip's files counts, bounded, so a clip that brings every
            // host down in turn still ends in failed/.
            if let reason = record.interrupted("\(owner) stopped renewing its lease") {
                record.error = reason
                try advance(&record, .failureDecided, folder: folder)
            } else {
                try advance(&record, .recovered, folder: folder)
            }
        case .publish:
            try takeFinishedSet(&record, holderSet: holderSet ?? [], folder: folder)
        case .finishAsItStopped:
            // Nothing of the holder's temporary files is needed any more (they go below;
            // a path read from a lease is never removed).
            break
        case .remove:
            return try removeClaim(&record, folder, "its holder had finished the job (\(record.state.rawValue)); removed its claim")
        }
        // What the holder's renders left here that was not taken (an abandoned render, a
        // committed job's leftovers) is nobody's now: its claim is this job's.
        PartialOutput.removeAll(taggedWith: [previous], in: folder.outbox)
        if ![.committed, .failing].contains(record.state) && !files.contains(record.input) {
            // Whatever is left of it (sidecars) goes to failed/ with the reason.
            record.error = "its claim was taken over from job \(previous), but the clip \(record.input) is not in it"
            try advance(&record, .failureDecided, folder: folder)
        }
        try save(&record)
        return .resume(record)
    }

    /// A committing holder's set — a single output's set of one too: each file (or ladder
    /// folder) published already (found by its inode) keeps its name, its manifest too;
    /// each one still under the holder's temporary name here is renamed to this job's (a
    /// holder still about to publish it finds it gone); a manifest not yet published is
    /// written again by `commit`. A file out of this host's sight renders the set again: at
    /// once when nothing of it is published, else `commit` takes the published ones back
    /// first.
    func takeFinishedSet(_ record: inout JobRecord, holderSet: [String], folder: FolderConfig) throws {
        guard var set = record.deliverables, set.count == holderSet.count else {
            try outOfSight(&record, folder: folder)
            return
        }
        for (index, holder) in holderSet.enumerated() {
            let mine = PartialOutput(directory: folder.outbox, filename: set[index].publishedName, tag: record.id).path
            // The holder's paths may be another view of the share: names only are kept.
            set[index].output = set[index].output.map { (folder.outbox as NSString).appendingPathComponent(($0 as NSString).lastPathComponent) }
            set[index].temporary = mine
            if set[index].isManifest {
                unlink(holder)
                // Published already — the commit's last act, which no record says — it is
                // kept, found by its inode as a file is: written again, the new one would
                // find its name taken by it and the set would go to the next suffix,
                // leaving it naming files no longer there.
                if let inode = set[index].inode, let published = Self.entry(withInode: inode, in: folder.outbox, besides: holder) {
                    set[index].output = published
                } else {
                    set[index].output = nil   // written again for the names the set gets
                    set[index].inode = nil
                }
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
        let missing = set.contains { entry in
            guard !entry.isManifest, entry.output == nil, let temporary = entry.temporary else { return false }
            var info = stat()
            return lstat(temporary, &info) != 0
        }
        // Nothing of it published, and not all of it here: rendered again. (With a file
        // published, the commit takes it back and the set is rendered again.)
        if missing && set.allSatisfy({ $0.output == nil }) {
            for entry in set { if let temporary = entry.temporary { PartialOutput(path: temporary).remove() } }
            try outOfSight(&record, folder: folder)
        }
    }

    /// A committing holder's output out of this host's sight (its own outbox): rendered
    /// again. Not a render that failed, so no strike against the clip either (with
    /// `retries: 0` it would fail unrendered).
    private func outOfSight(_ record: inout JobRecord, folder: FolderConfig) throws {
        record.deliverables = nil
        record.setSuffix = nil
        record.note("attempt \(record.attempts): rendered, but its output is out of this host's sight (not counted against the clip)")
        try advance(&record, .adopted(.outOfSight), folder: folder)
    }

    /// Ends a taken-over claim that holds nothing to do: its folder and this job's record go.
    private func removeClaim(_ record: inout JobRecord, _ folder: FolderConfig, _ why: String) throws -> Takeover {
        keeper.release(record.id)
        DurableFiles.removeTree(claimedDirectory(record, folder))
        store.remove(record.id)
        return .removed(why)
    }
}

extension JobRunner {
    /// How a job whose claim folder is gone ended, by its holder's last record and the last
    /// step it recorded: done once it was archiving, failed once it was moving the clip to
    /// failed/; nil when it had not got that far.
    static func endedState(_ holder: JobRecord, step: IrreversibleStep?) -> JobRecord.State? {
        if holder.state == .done || holder.state == .failed { return holder.state }
        switch step {
        case .archive?: return .done
        case .fail?: return .failed
        case .publish?, nil: return nil
        }
    }
}
