import Foundation
import Logging
import DropcutSupport

/// How the hosts that share an inbox agree on who renders which clip: the one interface
/// the scheduler and the job runner use, with two implementations.
///
/// - `LeaseKeeper`: the shared-folder protocol. A claim is a rename on the share, a
///   lease is a file each holder rewrites, a fence is a rename of the claim folder, and
///   the share decides who owns an output name (an exclusive link or rename).
/// - `DatabaseLeases`: PostgreSQL decides (`coordinator:` in the config). A claim is a
///   row taken with `FOR UPDATE SKIP LOCKED`, a lease is a deadline in the database's
///   clock, a fence is a step recorded under the job's epoch, and an output name is a row
///   under a unique key. The media still moves on the share, as it does without.
///
/// Whichever decides, every irreversible step of a job (publishing, archiving or
/// deleting the original, moving it to failed/) comes right after a `fence`, which throws
/// `JobFailure.lost` when another host took the job over.
///
/// What they hand out is the same whichever decides: a `ClaimTicket` to claim a clip
/// with, a `TakeoverCandidate` to take an expired claim over with, a `LostClaim` for a
/// claim a renewal found gone. The scheduler and the job runner never ask which one it is;
/// they ask what it does (`assignsClaims`).
package protocol ClaimCoordination: AnyObject, Sendable {
    /// Who holds the claims.
    var owner: HostIdentity { get }

    /// Whether claims are assigned (`pick`) before any file moves — a coordinator decides
    /// which host takes which clip and which expired claim. False: hosts race for each clip
    /// by renaming it, and judge each other's leases on the share (`ClaimObserver`).
    var assignsClaims: Bool { get }

    /// Makes the coordination ready before anything is claimed (a database's schema,
    /// created, migrated and checked). Throws `DaemonError` when it can never be used as
    /// it is (the daemon does not start on it); any other error means it is away now, and
    /// it is made ready at the first `pick` instead.
    func prepare() throws

    /// With `assignsClaims`: offers this host's listing of `folder`'s settled clips and
    /// takes up to `slots` pieces of work — expired claims first (older work; none with
    /// `takeOver` false, as `watch --once` leaves them to others), then the oldest clips.
    /// Throws when the coordinator cannot be reached (claiming waits for it).
    func pick(_ folder: FolderConfig, listed: [SettledClip], slots: Int, takeOver: Bool) throws -> [ClaimOffer]

    /// Whether the coordinator was away at the last statement (always false on a share).
    var isUnreachable: Bool { get }

    /// A reload changed `lease_timeout`.
    func leaseTimeoutChanged(to timeout: Duration)

    /// The coordinator's name in the status, where it keeps a farm-wide view of the jobs
    /// (`farm`); nil: no such view.
    var farmCoordinator: String? { get }

    /// Every host's jobs, the `recent` last ended ones too (with `farmCoordinator`).
    func farm(recent: Int) throws -> [FarmJob]

    /// The record the holder of a claim taken over as job `record` last stored with the
    /// coordinator, to resume from — or why there is none; nil where the record is read from
    /// the lease in the claim folder instead (crash recovery of a takeover).
    func storedRecord(of record: JobRecord) throws -> Result<JobRecord, MissingRecord>?

    /// Starts holding the claim of `record`, in folder `name` of `claimedDirectory`, and
    /// renewing its lease. `.lost` when it is not this host's to hold (taken over, or
    /// removed as an empty claim by another host's start-up); nothing is held then.
    func hold(_ record: JobRecord, name: ClaimName, claimedDirectory: String) throws -> ClaimRename.Outcome

    /// The job's newest record, for a taker to resume from. A failure is left to the next
    /// renewal and to the fence, which decide whether the claim is still held.
    func update(_ record: JobRecord)

    /// Renews every lease held; returns the claims found lost, whose renders are cancelled.
    func renew(logger: Logger) -> [LostClaim]

    /// Proves the claim is still held just before the irreversible `step`; throws
    /// `JobFailure.lost` when it is not. Returns the claim folder names a shared-folder
    /// fence stepped over (for one log line).
    @discardableResult
    func fence(_ record: inout JobRecord, claimedDirectory: String, before step: IrreversibleStep) throws -> [ClaimName]

    /// Whether `name` in `outbox` may be this job's output name (asked before each name is
    /// tried): the database's unique key, or always true where the share decides.
    func reserve(output name: String, in outbox: String, for record: JobRecord) throws -> Bool

    /// The job ended (its record says done or failed), or its clip was gone when the claim
    /// came to move it (`missing`): the coordinator is told before the claim is released.
    func ended(_ record: JobRecord, missing: Bool)

    /// Stops holding the claim of job `id`: no more renewals.
    func release(_ id: String)

    /// Why the claim of job `id` was lost, or nil while it is held (or not held at all).
    func lostReason(_ id: String) -> String?

    /// The render of job `id`, to cancel when its claim is lost (nil: none running).
    func attach(_ render: Cancellation?, to id: String)

    /// The claim folder names held in `claimedDirectory`.
    func heldNames(in claimedDirectory: String) -> Set<String>

    /// The ids of the jobs held.
    var heldJobs: Set<String> { get }
}

/// A step of a job that cannot be taken back, as a fence records it.
package enum IrreversibleStep: String, Sendable {
    /// Publishing the output in the outbox.
    case publish
    /// Archiving or deleting the original.
    case archive
    /// Moving the clip to the failed folder.
    case fail
}
