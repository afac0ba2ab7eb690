import Foundation
import Logging
import DropcutPipeline

/// Taking over a job a database coordinator gave this host after its lease ran out by the
/// database's clock (`DatabaseLeases.pick`): the database already decided — the job's
/// epoch moved on, so its old holder's steps are refused — and the takeover moves the
/// claim folder to this host's job id and resumes from the record the holder stored.
extension JobRunner {
    /// Takes the job of `held` over as this daemon's job `held.claim`: the new record is
    /// written first, then the claim folder is renamed from the previous holder's name (a
    /// stalled holder finds its files gone), and the job resumes as `adopt` decides. With
    /// no claim folder to rename — the holder stopped between its claim and moving the
    /// clip — the clip is claimed from the inbox, or the job ends missing.
    func takeOver(_ held: PostgresCoordinator.Held, folder: FolderConfig, lease: Duration) throws -> Takeover {
        try checkOwnFolders(folder)
        guard let claim = held.claim, let previous = held.previousClaim, ClaimName(claim)?.fences == 0,
              ClaimName(previous)?.fences == 0 else {
            throw JobFailure.permanent("the coordinator gave job \(held.job) over without claim ids to move it by", errno: nil)
        }
        // No record at all: its holder stopped between the database's claim and its first
        // renewal, before any irreversible step (each one stores the record with its
        // fence). Rendered again from the claim folder, as a claim just made.
        let fresh = JobRecord(claim: claim, of: held, folder: folder.name, state: .claimed)
        let reading = held.record.map(JobStore.reading(json:)) ?? .success(fresh)
        let holder = try? reading.get()
        var record = JobRecord(claim: claim, of: held, folder: folder.name, input: holder?.input, state: .claiming)
        record.previousJobs = (holder?.previousJobs ?? []) + [previous]
        try store.save(&record)
        let from = (folder.claimedDirectory as NSString).appendingPathComponent(previous)
        let outcome: Takeover
        switch try ClaimRename.rename(from, to: claimedDirectory(record, folder)) {
        case .renamed:
            // Taken while its holder was between making the folder and moving the clip in:
            // the clip is still in the inbox, and comes in now.
            if holder.map({ $0.state == .claiming || $0.state == .claimed }) ?? true,
               access(claimedPath(record, folder, held.clip), F_OK) != 0, let name = RawFileName(printable: held.clip) {
                _ = try ClaimRename.rename(name.path(in: folder.inbox), to: claimedPath(record, folder, held.clip),
                                           describedAs: (folder.inbox as NSString).appendingPathComponent(held.clip))
            }
            outcome = try adopt(&record, found: reading, owner: "its holder", previous: previous, folder: folder)
            if case .removed = outcome {
                // Nothing left to do (a finished job's leftover, an empty claim): the job
                // ends here, or its lease would run out again and again.
                let over = JobRecord(claim: claim, of: held, folder: folder.name, state: holder?.state ?? .claiming)
                keeper.ended(over, missing: !(holder.map { $0.state == .done || $0.state == .failed } ?? false))
            }
        case .lost:
            // No claim folder. Its holder removes it last, once the original is archived
            // or in failed/: with the archive or fail step recorded (or the job ended), the
            // job is over and only the database had not heard (it was away).
            if let holder, let ended = Self.endedState(holder, step: held.step) {
                keeper.ended(JobRecord(claim: claim, of: held, folder: folder.name, state: ended), missing: false)
                store.remove(record.id)
                outcome = .removed("its holder had finished the job (\(ended.rawValue)) before the coordinator heard")
            } else if let claimed = try self.claim(SettledClip(name: held.clip, sidecars: [], modified: Date()), folder: folder, held: held) {
                outcome = .resume(claimed)
            } else {
                store.remove(record.id)
                outcome = .removed("its clip is in neither its claim folder nor the inbox; the job ends as missing")
            }
        }
        announce(outcome, folder: folder)
        var log = logger(for: record, folder: folder)
        let host = held.previousHost.map(HostIdentity.name(of:)) ?? "unknown"
        let expired = held.expiredMilliseconds ?? 0
        log[metadataKey: "DROPCUT_PREVIOUS_JOB"] = "\(previous)"
        log[metadataKey: "DROPCUT_PREVIOUS_HOST"] = "\(host)"
        // As the shared folder's takeover says it: the lease's age when taken over.
        log[metadataKey: "DROPCUT_LEASE_AGE_MS"] = "\(Int64(lease.seconds * 1000) + expired)"
        log.notice("took over \(record.input) from \(held.previousHost ?? "its holder"), job \(previous): its lease had run out \(LeaseKeeper.seconds(.milliseconds(expired))) before, by the coordinator's clock (epoch now \(held.epoch)); \(outcome.plan)",
                   metadata: ["MESSAGE_ID": "\(MessageID.jobTakenOver.rawValue)"])
        return outcome
    }
}

extension JobRunner {
    /// How a job whose claim folder is gone ended, by its holder's last record and the last
    /// step it recorded: done once it was archiving, failed once it was moving the clip to
    /// failed/; nil when it had not got that far.
    static func endedState(_ holder: JobRecord, step: String?) -> JobRecord.State? {
        if holder.state == .done || holder.state == .failed { return holder.state }
        switch step.flatMap(IrreversibleStep.init(rawValue:)) {
        case .archive?: return .done
        case .fail?: return .failed
        case .publish?, nil: return nil
        }
    }
}

extension JobRecord {
    /// Claim `claim` (a job id of this host's) of the database's job `held`: its clip (or
    /// `input`), its farm job and its epoch.
    init(claim: String, of held: PostgresCoordinator.Held, folder: String, input: String? = nil, state: State) {
        self.init(id: claim, folder: folder, input: input ?? held.clip, sidecars: [], state: state)
        farmJob = held.job
        epoch = held.epoch
    }
}
