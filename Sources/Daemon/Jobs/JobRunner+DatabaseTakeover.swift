import Foundation
import Logging
import Pipeline

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
    func takeOver(_ held: PostgresCoordinator.Held, folder: FolderConfig) throws -> Takeover {
        try checkOwnFolders(folder)
        guard let claim = held.claim, let previous = held.previousClaim, ClaimName(claim)?.fences == 0,
              ClaimName(previous)?.fences == 0 else {
            throw JobFailure.permanent("the coordinator gave job \(held.job) over without claim ids to move it by", errno: nil)
        }
        // No record at all: its holder stopped between the database's claim and its first
        // renewal, before any irreversible step (each one stores the record with its
        // fence). Rendered again from the claim folder, as a claim just made.
        var fresh = JobRecord(id: claim, folder: folder.name, input: held.clip, sidecars: [], state: .claimed)
        fresh.farmJob = held.job
        fresh.epoch = held.epoch
        let reading = held.record.map(JobStore.reading(json:)) ?? .success(fresh)
        let holder = try? reading.get()
        var record = JobRecord(id: claim, folder: folder.name, input: holder?.input ?? held.clip, sidecars: [], state: .claiming)
        record.previousJobs = (holder?.previousJobs ?? []) + [previous]
        record.farmJob = held.job
        record.epoch = held.epoch
        try store.save(&record)
        let from = (folder.claimedDirectory as NSString).appendingPathComponent(previous)
        let outcome: Takeover
        switch try ClaimRename.rename(from, to: claimedDirectory(record, folder)) {
        case .renamed:
            outcome = try adopt(&record, found: reading, owner: "its holder", previous: previous, folder: folder)
        case .lost:
            if let holder, holder.isFinished {
                // It ended, and its holder stopped before the database heard.
                keeper.ended(holder.withFarm(of: record), missing: false)
                store.remove(record.id)
                outcome = .removed("its holder had finished the job (\(holder.state.rawValue))")
            } else if let claimed = try self.claim(SettledClip(name: held.clip, sidecars: [], modified: Date()), folder: folder, held: held) {
                outcome = .resume(claimed)
            } else {
                store.remove(record.id)
                outcome = .removed("its clip is in neither its claim folder nor the inbox; the job ends as missing")
            }
        }
        if case let .resume(resumed) = outcome {
            do {
                try announceNow(.takenOver, resumed, folder: folder)
            } catch {
                logger(for: resumed, folder: folder).error("took over \(resumed.input): its webhook event could not be written: \(error)")
            }
        }
        var log = logger(for: record, folder: folder)
        log[metadataKey: "DROPCUT_PREVIOUS_JOB"] = "\(previous)"
        let what: String
        switch outcome {
        case let .resume(resumed): what = Self.plan(for: resumed)
        case let .removed(why): what = why
        case .missed: what = ""
        }
        log.notice("took over \(record.input) from job \(previous): its lease had run out by the coordinator's clock (epoch now \(held.epoch)); \(what)",
                   metadata: ["MESSAGE_ID": "\(MessageID.jobTakenOver.rawValue)"])
        return outcome
    }
}

extension JobRecord {
    /// This record with `other`'s farm job and epoch (a holder's record ended by a taker).
    func withFarm(of other: JobRecord) -> JobRecord {
        var record = self
        record.id = other.id
        record.farmJob = other.farmJob
        record.epoch = other.epoch
        return record
    }
}
