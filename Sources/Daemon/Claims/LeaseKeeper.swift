import Foundation
import Logging
import DropcutPipeline
import DropcutSupport
import Synchronization

/// The claims this daemon holds in shared inboxes, and their leases (`ClaimLease`): it
/// writes each lease when the claim is made, at every step of the job (`update`, and
/// `store` for a commit's steps: the same durable write, its failure thrown) and at
/// every renewal (`renew`, from `LeaseRenewer`), and it fences (`fence`) before every
/// irreversible step. It is the one place that knows each claim folder's current name.
///
/// A claim is lost when its folder is no longer there under the name this daemon gave it:
/// another host judged the lease expired and renamed the folder to its own job id. Then
/// every later write or fence of this daemon fails by name, and the job is abandoned: its
/// render is cancelled (`attach`), nothing is published.
package final class LeaseKeeper: ClaimCoordination {
    /// Who holds the claims (written into each lease).
    package let owner: HostIdentity
    private let claims = Mutex<[String: Held]>([:])

    /// A claim this daemon holds.
    final class Held: Sendable {
        let claimedDirectory: String
        let state: Mutex<State>
        init(claimedDirectory: String, state: State) {
            self.claimedDirectory = claimedDirectory
            self.state = Mutex(state)
        }
    }

    struct State {
        var name: ClaimName
        var lease: ClaimLease
        /// The last time the lease was written (this host's monotonic clock).
        var renewed: ContinuousClock.Instant
        /// Why the claim was lost; nil while it is held.
        var lost: String?
        /// The render to stop when the claim is lost.
        var render: Cancellation?
        /// The last error of a renewal (logged once per cause).
        var failure: String?
        /// Given up (`release`): its folder is about to go, nothing is written into it again.
        var released = false
    }

    /// A keeper holding nothing yet, writing `owner` into the leases it writes.
    package init(owner: HostIdentity) {
        self.owner = owner
    }

    /// On a share the holder's record is the lease its claim folder brought along.
    package func holderRecord(of record: JobRecord, previous: ClaimName, claimDirectory: String)
        -> (record: Result<JobRecord, MissingRecord>, owner: String) {
        ClaimLease.holderRecord(claimDirectory: claimDirectory, name: previous)
    }

    private func held(_ id: String) -> Held? {
        claims.withLock { $0[id] }
    }

    /// Takes up the claim folder `name` in `claimedDirectory` for `record`: writes its lease
    /// (durably) and renews it from now on. `.lost` when the folder is not there (another
    /// host took it over, or removed it as an empty claim), and nothing is held then.
    package func hold(_ record: JobRecord, name: ClaimName, claimedDirectory: String) throws(SystemError) -> ClaimRename.Outcome {
        var record = record
        record.claimName = name.fences == 0 ? nil : name.description
        let lease = ClaimLease(owner: owner, record: record)
        let directory = (claimedDirectory as NSString).appendingPathComponent(name.description)
        do {
            try lease.write(in: directory, durable: true)
        } catch {
            if error.errno == ENOENT { return .lost }
            throw error
        }
        claims.withLock {
            $0[record.id] = Held(claimedDirectory: claimedDirectory,
                                 state: State(name: name, lease: lease, renewed: .now))
        }
        return .renamed
    }

    /// Writes the job's new record into its lease, durably (a taker resumes from it): the
    /// same write as `store`, its failure left to the next renewal and to the fence,
    /// which decide whether the claim is still held.
    package func update(_ record: JobRecord) {
        try? store(record)
    }

    /// Writes the job's new record into its lease, durably, or throws: `JobFailure.lost`
    /// when the claim folder is gone (a taker renamed it away), else the write's error.
    package func store(_ record: JobRecord) throws {
        guard let held = held(record.id) else { return }
        try held.state.withLock { state throws in
            if let lost = state.lost { throw JobFailure.lost(lost) }
            guard !state.released else { return }
            var lease = state.lease
            lease.record = record
            lease.record.claimName = state.name.fences == 0 ? nil : state.name.description
            lease.beat &+= 1
            let directory = (held.claimedDirectory as NSString).appendingPathComponent(state.name.description)
            do throws(SystemError) {
                try lease.write(in: directory, durable: true)
            } catch {
                if let lost = Self.lose(&state, after: error, directory: directory, in: held.claimedDirectory) {
                    throw JobFailure.lost(lost)
                }
                throw error
            }
            state.lease = lease
            state.renewed = .now
        }
    }

    /// The claim marked lost, and its render stopped, when a write into its folder failed
    /// because the folder is gone (another host renamed it to its own job id): the reason,
    /// or nil when the folder is still there (the error is another one's).
    private static func lose(_ state: inout State, after error: SystemError, directory: String, in claimedDirectory: String) -> String? {
        var info = stat()
        guard error.errno == ENOENT && lstat(directory, &info) != 0 && errno == ENOENT else { return nil }
        let silent = ContinuousClock.now - state.renewed
        let reason = "its claim \(state.name) is gone from \(claimedDirectory): another host took it over; "
            + "this host's last renewal of its lease was \(seconds(silent)) ago"
        state.lost = reason
        state.render?.cancel()
        return reason
    }

    /// This host's record of job `id` as its claim's lease holds it — in a claim folder of
    /// one of `folders`, under the job's name (a fence's too), written by this host (the
    /// state folder is this host's: a lease another host wrote is that host's claim).
    package func ownCopy(of id: String, folders: [FolderConfig]) -> RecordCopy? {
        for folder in folders {
            for name in ClaimName.entries(of: id, in: folder.claimedDirectory).reversed() {
                let directory = (folder.claimedDirectory as NSString).appendingPathComponent(name.description)
                guard case let .lease(lease) = ClaimLease.read(claimDirectory: directory, name: name).reading,
                      lease.record.id == id, lease.record.folder == folder.name,
                      lease.owner.host == owner.host, lease.owner.machineID == owner.machineID else { continue }
                return RecordCopy(record: lease.record, source: "the copy in its claim's lease")
            }
        }
        return nil
    }

    /// Renews every lease held (a new beat; not fsynced: it only has to be seen to
    /// change). Returns the claims found lost, whose renders are cancelled; logs a lease
    /// that cannot be written (once per cause), since others will take it over if that lasts.
    package func renew(logger: Logger) -> [LostClaim] {
        let all = claims.withLock { Array($0) }
        var lost: [LostClaim] = []
        for (id, held) in all {
            held.state.withLock { state in
                // Released since the list was taken: its folder may be going right now, and
                // a lease written into it would keep it from being removed.
                guard state.lost == nil, !state.released else { return }
                var lease = state.lease
                lease.beat &+= 1
                let directory = (held.claimedDirectory as NSString).appendingPathComponent(state.name.description)
                do throws(SystemError) {
                    try lease.write(in: directory, durable: false)
                    state.lease = lease
                    state.renewed = .now
                    state.failure = nil
                } catch {
                    if let reason = Self.lose(&state, after: error, directory: directory, in: held.claimedDirectory) {
                        lost.append(LostClaim(job: id, reason: reason))
                    } else if state.failure != "\(error.errno)" {
                        state.failure = "\(error.errno)"
                        var log = logger
                        log[metadataKey: "DROPCUT_JOB"] = "\(id)"
                        log.warning("cannot renew the lease of job \(id): \(error); other hosts take the claim over if this lasts")
                    }
                }
            }
        }
        return lost
    }

    /// Proves the claim is still held just before an irreversible step, by the one kind of
    /// operation no taker can interleave with: a rename of the claim folder from the name
    /// this daemon gave it to the next fence name (`<id>.committing-N`). A taker renames
    /// from the same name; only one of the two renames can succeed. Throws
    /// `JobFailure.lost` when the taker's came first. `record.claimName` follows.
    ///
    /// A next name already taken by something this job never made (a non-empty folder or a
    /// file planted there: ENOTEMPTY, EEXIST, ENOTDIR, EISDIR — the rename itself failed, so
    /// the claim is still under its current name) is resolved by stepping over it to the
    /// following fence name, at most `maximumFenceSkips` times; the names stepped over are
    /// returned, for one log line. Past that, the job gives the claim up (`lost`, logged
    /// once) and it is taken over, under a new job id, after `lease_timeout` — never an
    /// error repeated at every retry.
    @discardableResult
    package func fence(_ record: inout JobRecord, claimedDirectory: String, before step: IrreversibleStep = .publish) throws -> [ClaimName] {
        let held = self.held(record.id)
        let current = held?.state.withLock { $0.name } ?? record.claim
        if let reason = held?.state.withLock({ $0.lost }) { throw JobFailure.lost(reason) }
        let path = { (name: ClaimName) in (claimedDirectory as NSString).appendingPathComponent(name.description) }
        var skipped: [ClaimName] = []
        var next = current.fenced
        // The rename, stepping over taken names; nil when every name tried was taken.
        let renameStepping = { () throws(SystemError) -> ClaimRename.Outcome? in
            while true {
                do throws(SystemError) {
                    // Something at the next name before this rename is not this job's (it
                    // gives the name only by this rename): stepped over at once — else, were
                    // the claim taken meanwhile, ENOENT resolved by looking would find it
                    // and take a stranger's folder for this job's fence.
                    var info = stat()
                    if lstat(path(next), &info) == 0 {
                        throw SystemError(errno: EEXIST, function: "rename (fence name taken)", path: path(next))
                    }
                    return try ClaimRename.rename(path(current), to: path(next))
                } catch where Self.takenErrors.contains(error.errno) && Self.isDirectory(path(current)) {
                    // (Only while the claim is still a folder under its current name: else
                    // the error is the claim's own, and thrown.)
                    skipped.append(next)
                    guard skipped.count < Self.maximumFenceSkips, next.fences < ClaimName.maximumFences else { return nil }
                    next = next.fenced
                }
            }
        }
        // Renewals wait while the folder changes its name (they write into it by name).
        let outcome: ClaimRename.Outcome?
        if let held {
            outcome = try held.state.withLock { state throws(SystemError) -> ClaimRename.Outcome? in
                let outcome = try renameStepping()
                if outcome == .renamed {
                    state.name = next
                } else if outcome == .lost {
                    state.lost = "its claim \(current) was taken over by another host before this one could publish its result"
                    state.render?.cancel()
                }
                return outcome
            }
        } else {
            outcome = try renameStepping()
        }
        switch outcome {
        case .renamed?:
            record.claimName = next.description
            return skipped
        case .lost?:
            throw JobFailure.lost("its claim \(current) was taken over by another host before this one could publish its result")
        case nil:
            throw JobFailure.lost("its claim \(current) cannot be fenced: the next names \(skipped.map(\.description).joined(separator: ", ")) in \(claimedDirectory) are all taken by something dropcut did not make; the claim is left for a takeover under a new job id after lease_timeout")
        }
    }

    /// Always: the share decides who owns a name (`DurableFiles.publishExclusively`).
    package func reserve(output name: String, in outbox: String, for record: JobRecord) -> Bool { true }

    /// Nothing to tell: the claim folder's removal ends the claim.
    package func ended(_ record: JobRecord, missing: Bool) {}

    /// Whether `path` is a directory (not followed if a symlink).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// What a rename of a folder onto a name already taken fails with.
    static let takenErrors: Set<Int32> = [ENOTEMPTY, EEXIST, ENOTDIR, EISDIR]
    /// How many taken fence names one fence steps over before it gives the claim up.
    static let maximumFenceSkips = 8

    /// Stops holding the claim of job `id` (finished, or abandoned): no more renewals.
    /// Returns once a renewal writing into its folder right now has finished, so the
    /// folder can be removed after it without a lease appearing in it again.
    package func release(_ id: String) {
        let held = claims.withLock { $0.removeValue(forKey: id) }
        held?.state.withLock { $0.released = true }
    }

    /// Why the claim of job `id` was lost, or nil while it is held (or not held at all).
    package func lostReason(_ id: String) -> String? {
        held(id)?.state.withLock { $0.lost }
    }

    /// The render of job `id`, to cancel when its claim is lost (nil: none running).
    package func attach(_ render: Cancellation?, to id: String) {
        guard let held = held(id) else { return }
        let lostAlready = held.state.withLock { state in
            state.render = render
            return state.lost != nil
        }
        if lostAlready { render?.cancel() }
    }

    /// The claim folder names held in `claimedDirectory` (never taken over by this daemon).
    package func heldNames(in claimedDirectory: String) -> Set<String> {
        let all = claims.withLock { Array($0.values) }
        return Set(all.filter { $0.claimedDirectory == claimedDirectory }.map { $0.state.withLock { $0.name.description } })
    }

    /// The ids of the jobs held.
    package var heldJobs: Set<String> {
        claims.withLock { Set($0.keys) }
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", duration.seconds)
    }
}
