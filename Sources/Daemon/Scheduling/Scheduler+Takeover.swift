import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// Shared inboxes: watching every host's claims, taking over the ones whose lease
/// expired, and giving up the jobs whose claims other hosts took from this one.
extension Scheduler {
    /// The key of a takeover in flight in `jobs` (a NUL cannot be in a name: no collision
    /// with a job id or a claim key).
    func takeoverKey(_ folder: String, _ entry: String) -> String {
        "takeover\u{0}\(folder)\u{0}\(entry)"
    }

    /// Reads the lease of every claim in the folder's inbox (for `dropcut status` and for
    /// judging them), and takes over the expired ones — unchanged for `lease_timeout` by
    /// this daemon's clock — while a worker is free, as it claims clips. Never its own,
    /// and not with `--once`, which does not watch long enough to judge a lease.
    func observeClaims(_ folder: FolderConfig, free: inout Int, into group: inout DiscardingTaskGroup) {
        guard var observer = inboxes.observers[folder.name] else { return }
        let now = ContinuousClock.now
        let sightings = observer.observe(now: now)
        inboxes.observers[folder.name] = observer
        if once { return }
        let held = keeper.heldNames(in: folder.claimedDirectory)
        for sighting in sightings where observer.isExpired(sighting, now: now) {
            let entry = sighting.name.description
            let key = takeoverKey(folder.name, entry)
            if held.contains(entry) || jobs[sighting.name.job] != nil || jobs[key] != nil { continue }
            if let blocked = jobs.blocked[key], blocked.until > now { continue }
            guard free > 0 && !loop.isStopping else { return }
            startTakeover(sighting, folder, age: observer.age(of: sighting, now: now), in: &group)
            free -= 1
        }
    }

    /// Takes the claim over off the actor (renames, reads and fsyncs on a share), then
    /// runs its job in the same task.
    func startTakeover(_ sighting: ClaimObserver.Sighting, _ folder: FolderConfig, age: Duration,
                       in group: inout DiscardingTaskGroup) {
        let key = takeoverKey(folder.name, sighting.name.description)
        jobs[key] = .claiming
        let candidate = TakeoverCandidate(sighting: sighting, age: age, leaseTimeout: config.leaseTimeout)
        group.addTask { [self] in await takeOver(candidate, folder, key: key) }
    }

    /// Takes `candidate` over off the actor, books it (`tookOver`) and runs the job it
    /// gives — however the candidate was found (a sighting on the share, or the
    /// coordinator's pick).
    func takeOver(_ candidate: TakeoverCandidate, _ folder: FolderConfig, key: String) async {
        let runner = self.runner
        let result: Result<JobRunner.Takeover, any Error>
        do {
            result = .success(try await BlockingWork.run("dropcut-takeover") { _ in try runner.takeOver(candidate, folder: folder) })
        } catch {
            result = .failure(error)
        }
        guard let record = tookOver(candidate, folder, key: key, result) else { return }
        await run(record, folder)
    }

    /// Books a finished takeover, however it was found: the job now runs under its new id,
    /// or there was nothing (another host was first, an empty claim removed), or it failed
    /// (logged once per cause, tried again at the next poll while the lease stays expired,
    /// or — granted by a coordinator — once its lease runs out again).
    func tookOver(_ candidate: TakeoverCandidate, _ folder: FolderConfig, key: String,
                  _ result: Result<JobRunner.Takeover, any Error>) -> JobRecord? {
        jobs[key] = nil
        if let previous = candidate.previous { inboxes.observers[folder.name]?.forget(previous.description) }
        defer { loop.signal() }
        switch result {
        case let .success(.resume(record)):
            jobs.blocked[key] = nil
            metrics.tookOver(folder: folder.name)
            return start(record, folder, ifStopping: "taken over as the daemon stops; it is resumed at the next start")
        case .success(.removed), .success(.missed):
            jobs.blocked[key] = nil
            return nil
        case let .failure(error):
            blocked(key, error, folder, "cannot take over \(candidate.what)")
            return nil
        }
    }

    /// Claims `LeaseRenewer` found taken over by other hosts: a job waiting for a retry is
    /// given up now; a running one stops by itself (its render is cancelled, and its next
    /// fence fails).
    package func claimsLost(_ lost: [LostClaim]) {
        for claim in lost {
            guard case let .waiting(record, folder, _) = jobs[claim.job] else { continue }
            jobs.ended(claim.job, retrying: false)
            abandon(record, folder, because: claim.reason)
            publish(urgent: true)
        }
    }

    /// Gives a job up whose claim another host took over: its temporary output is removed
    /// (nothing of it was published), its record says abandoned, and the journal says why
    /// and, where the claims show it, who has the clip now (job-abandoned).
    func abandon(_ finalRecord: JobRecord, _ folder: FolderConfig, because reason: String) {
        var record = finalRecord
        let published = record.state == .committed
        metrics.abandoned(folder: folder.name)
        keeper.release(record.id)
        runner.removeSetTemporaries(&record, folder: folder)
        record.error = reason
        do {
            try runner.announceNow(.abandoned, record, folder: folder)
        } catch {
            runner.logger(for: record, folder: folder).error("abandoned \(record.input): its webhook event could not be written: \(error)")
        }
        // The state folder only (`JobStateMachine`): the claim is another host's now.
        try? runner.advance(&record, .claimLost, folder: folder)
        var log = runner.logger(for: record, folder: folder)
        var taker = ""
        if let (name, lease) = Self.taker(of: record.id, in: folder.claimedDirectory) {
            taker = "; \(lease.owner.description) has it now as job \(name.job)"
            log[metadataKey: "DROPCUT_TAKEN_OVER_BY"] = "\(lease.owner.host)"
        }
        // Published before the claim was lost (the one window fencing leaves: see
        // docs/scale-out.md, "Fencing"): the taker finds the output by its inode and only archives.
        let done = published
            ? "its output \(record.outputNames.isEmpty ? "?" : record.outputNames.joined(separator: ", ")) was published before, the original is left to that host"
            : "nothing of it was published, archived or moved by this host"
        log.warning("abandoned \(record.input): \(reason)\(taker); \(done)",
                    metadata: ["MESSAGE_ID": "\(MessageID.jobAbandoned.rawValue)"])
    }

    /// The claim that took over job `id`'s (its lease lists `id` among the earlier holders).
    static func taker(of id: String, in claimedDirectory: String) -> (ClaimName, ClaimLease)? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: claimedDirectory)) ?? []
        for name in names.compactMap(ClaimName.init) {
            let directory = (claimedDirectory as NSString).appendingPathComponent(name.description)
            if case let .lease(lease) = ClaimLease.read(claimDirectory: directory, name: name).reading,
               lease.record.previousJobs?.contains(id) == true {
                return (name, lease)
            }
        }
        return nil
    }

    /// Every host's claims in every inbox, as last read, for `dropcut status`.
    func claimStatuses() -> [DaemonStatus.Claim] {
        let held = keeper.heldJobs
        return config.folders.flatMap { folder -> [DaemonStatus.Claim] in
            guard let observer = inboxes.observers[folder.name] else { return [] }
            return observer.sightings.map { sighting in
                DaemonStatus.Claim(folder: folder.name, sighting: sighting, mine: held.contains(sighting.name.job))
            }
        }
    }
}
