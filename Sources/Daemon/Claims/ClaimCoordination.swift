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
/// claim a renewal found gone. The scheduler and the job runner never ask which one it is.
/// Where work comes from differs (`WorkSource`: hosts racing on the share, or a
/// coordinator that assigns it — `ClaimAssignment`, which only a coordinator is); what a
/// claim is, once held, does not: every requirement here is something both do.
package protocol ClaimCoordination: AnyObject, Sendable {
    /// Who holds the claims.
    var owner: HostIdentity { get }

    /// The record the holder of a claim taken over as job `record` (its folder, in
    /// `claimDirectory`, renamed from `previous`) left to resume from, and who that holder
    /// was — or why there is none: the coordinator's stored record where it keeps one,
    /// else the lease the claim folder brought along.
    func holderRecord(of record: JobRecord, previous: ClaimName, claimDirectory: String) throws
        -> (record: Result<JobRecord, MissingRecord>, owner: String)

    /// Starts holding the claim of `record`, in folder `name` of `claimedDirectory`, and
    /// renewing its lease. `.lost` when it is not this host's to hold (taken over, or
    /// removed as an empty claim by another host's start-up); nothing is held then.
    func hold(_ record: JobRecord, name: ClaimName, claimedDirectory: String) throws -> ClaimRename.Outcome

    /// The job's newest record, for a taker to resume from, kept as soon as it costs no
    /// wait: a share writes it into the lease at once (durably), a coordinator at the next
    /// renewal (a save on the scheduler's actor never waits for a database that does not
    /// answer). A failure is left to the next renewal and to the fence, which decide
    /// whether the claim is still held.
    func update(_ record: JobRecord)

    /// The job's newest record, kept durably before this returns: what each step of a
    /// commit needs (`JobRunner.recordCommitStep`). After a kill between two steps, a
    /// taker — or this host, its own record cut short or gone (`ownCopy`) — resumes from
    /// the step the outbox shows, never from one before it. Throws `JobFailure.lost` when
    /// the claim is no longer this host's, or what kept the record from being stored (the
    /// step fails, and is retried). A claim not held (released) has nothing to keep.
    func store(_ record: JobRecord) throws

    /// The copy of job `id`'s record this host kept with its claim (`update`, `store`), for
    /// crash recovery when the state folder's record is unreadable or gone, and where it
    /// was — or nil: no claim of `id` held by this host (a claim another host took over is
    /// that host's), or a copy that cannot be read or is out of range (read as a record of
    /// the state folder is). Throws when the coordinator cannot be asked.
    func ownCopy(of id: String, folders: [FolderConfig]) throws -> RecordCopy?

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
