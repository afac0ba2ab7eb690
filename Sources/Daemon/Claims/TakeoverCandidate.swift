import Foundation

/// A claim whose lease ran out, to be taken over as a new job of this host — however it
/// was found: judged expired on the share by this host's own clock (`init(sighting:…)`),
/// or granted by a coordinator that moved the job's epoch on (`ClaimCoordination.pick`).
/// `JobRunner.takeOver` takes it, whichever found it.
package struct TakeoverCandidate: Sendable {
    /// How the claim folder becomes this host's.
    package enum Grant: Sendable, Hashable {
        /// Hosts race for it: the folder is renamed only while its lease is still the one
        /// judged expired (its fingerprint, `ClaimLease.read`); of several takers one
        /// rename wins, and a holder that renewed since keeps it.
        case ifUnchanged(fingerprint: UInt64)
        /// The coordinator gave it to this host alone: no other host renames it. A folder
        /// found gone then means its holder ended the job unheard, or never moved its clip
        /// in (it is still in the inbox).
        case granted
    }

    /// The holder's claim folder, as named in `.dropcut/claimed/` (a fence may have renamed
    /// it `<job>.committing-N`); nil: the coordinator gave no usable name.
    package var previous: ClaimName?
    /// This host's new job id for it (a name nobody else uses); the folder is renamed to it.
    package var job: String
    /// How the folder is taken.
    package var grant: Grant
    /// The clip, as the coordinator knows it (nil: as the holder's record names it).
    package var clip: String?
    /// The coordinator's job and the epoch this takeover got; nil where the share decides.
    package var farmJob: String?
    package var epoch: Int64?
    /// The holder's record as it was seen before the takeover (its lease as judged), for
    /// the new record's clip and earlier holders; nil: none seen.
    package var seen: JobRecord?
    /// The holder's record to resume from, as the coordinator stored it; nil: read from
    /// the lease inside the claim folder once it is taken.
    package var stored: Result<JobRecord, MissingRecord>?
    /// The last irreversible step the coordinator recorded for the job.
    package var step: IrreversibleStep?
    /// For the job-taken-over log line: who held it, its host (`DROPCUT_PREVIOUS_HOST`),
    /// how long its lease had gone unrenewed (`DROPCUT_LEASE_AGE_MS`), and why it counts
    /// as expired.
    package var holder: String
    package var holderHost: String
    package var age: Duration
    package var expiry: String
    /// What is taken over, for an error's log line.
    package var what: String

    /// A claim this host saw on the share, its lease unchanged for `age` by this host's
    /// clock (`ClaimObserver`), taken as a new job if it is still so.
    package init(sighting: ClaimObserver.Sighting, age: Duration, leaseTimeout: Duration, job: String = JobRecord.newID()) {
        let owner = sighting.lease?.owner
        previous = sighting.name
        self.job = job
        grant = .ifUnchanged(fingerprint: sighting.fingerprint)
        seen = sighting.lease?.record
        holder = owner.map { "\($0.description), machine \($0.machineID)" } ?? "an unknown holder (no readable lease)"
        holderHost = owner?.host ?? "unknown"
        self.age = age
        expiry = "its lease had not changed for \(Self.seconds(age)) here (lease_timeout \(Self.seconds(leaseTimeout)))"
        what = "the claim \(sighting.name) of \(owner?.description ?? "an unknown holder")"
    }

    /// A candidate described field by field (a coordinator's grant).
    package init(previous: ClaimName?, job: String, grant: Grant, clip: String?, farmJob: String?, epoch: Int64?,
                 seen: JobRecord?, stored: Result<JobRecord, MissingRecord>?, step: IrreversibleStep?,
                 holder: String, holderHost: String, age: Duration, expiry: String, what: String) {
        self.previous = previous
        self.job = job
        self.grant = grant
        self.clip = clip
        self.farmJob = farmJob
        self.epoch = epoch
        self.seen = seen
        self.stored = stored
        self.step = step
        self.holder = holder
        self.holderHost = holderHost
        self.age = age
        self.expiry = expiry
        self.what = what
    }

    /// A duration as the journal says it (`61.0 s`).
    package static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", duration.seconds)
    }
}
