import Foundation

extension TakeoverCandidate {
    /// The job `held`, given to this host by the database after its lease ran out by the
    /// database's clock (`PostgresCoordinator.takeOverExpired`): the epoch moved on, so its
    /// old holder's steps are refused. `lease` is `lease_timeout` (the lease's age is that
    /// plus how long it had run out).
    init(_ held: PostgresCoordinator.Held, lease: Duration) {
        // The claim ids are this host's new job id and the holder's: plain job ids, never
        // fenced names (an id that is not one is refused by `JobRunner.takeOver`).
        let previous = held.previousClaim.flatMap(ClaimName.init).flatMap { $0.fences == 0 ? $0 : nil }
        let job = held.claim.flatMap { ClaimName($0)?.fences == 0 ? $0 : nil } ?? ""
        // No record at all: its holder stopped between the database's claim and its first
        // renewal, before any irreversible step (each one stores the record with its
        // fence). Rendered again from the claim folder, as a claim just made.
        var fresh = JobRecord(id: job, folder: held.folder, input: held.clip, sidecars: [], state: .claimed)
        fresh.farmJob = held.job
        fresh.epoch = held.epoch
        let stored = held.record.map(JobStore.reading(json:)) ?? .success(fresh)
        let expired = held.expiredMilliseconds ?? 0
        self.init(previous: previous, job: job, grant: .granted, clip: held.clip, farmJob: held.job, epoch: held.epoch,
                  seen: try? stored.get(), stored: stored, step: held.step.flatMap(IrreversibleStep.init(rawValue:)),
                  holder: held.previousHost ?? "its holder", holderHost: held.previousHost.map(HostIdentity.name(of:)) ?? "unknown",
                  // As the shared folder's takeover says it: the lease's age when taken over.
                  age: lease + .milliseconds(expired),
                  expiry: "its lease had run out \(Self.seconds(.milliseconds(expired))) before, by the coordinator's clock (epoch now \(held.epoch))",
                  what: "job \(held.job) (\(held.clip))")
    }
}
