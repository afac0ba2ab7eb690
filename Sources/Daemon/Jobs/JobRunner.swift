import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// The claim/commit protocol for one clip (docs/daemon.md, steps 2–5): every step
/// writes the job record before it moves files, so `resume` can pick up a job from any
/// state a crash left it in, and nothing is lost or done twice.
struct JobRunner: Sendable {
    let store: JobStore
    let logger: Logger
    /// The claims this daemon holds, however they are decided (`ClaimCoordination`).
    let keeper: any ClaimCoordination
    /// Attempts and worker deaths are counted here.
    let metrics: DaemonMetrics
    /// The program run as each job's worker (`<it> worker`): this very binary.
    var workerExecutable = "/proc/self/exe"
    /// The output folders' filesystems at start: an unmounted share is waited for.
    let mounts = FolderMounts()
    /// Where the webhook events of the jobs' ends are written; nil without webhooks.
    var webhooks: WebhookOutbox?

    /// The logger with the job's journal fields.
    func logger(for record: JobRecord, folder: FolderConfig) -> Logger {
        var logger = self.logger
        logger[metadataKey: "DROPCUT_JOB"] = "\(record.id)"
        logger[metadataKey: "DROPCUT_FOLDER"] = "\(folder.name)"
        logger[metadataKey: "DROPCUT_INPUT"] = "\((folder.inbox as NSString).appendingPathComponent(record.input))"
        return logger
    }

    /// The job's claim folder under its current name (`<id>`, `<id>.committing-N`).
    func claimedDirectory(_ record: JobRecord, _ folder: FolderConfig) -> String {
        (folder.claimedDirectory as NSString).appendingPathComponent(record.claim.description)
    }

    /// Saves the record in the state folder, then hands it to the coordination
    /// (`ClaimCoordination.update`: the claim's lease at once, a coordinator's row at its
    /// next renewal): what another host resumes the job from if it takes the claim over.
    func save(_ record: inout JobRecord) throws(SystemError) {
        try store.save(&record)
        keeper.update(record)
    }

    /// A step of the set commit (`SetCommit`'s `step`) recorded: the record says where the
    /// commit is, in the state folder and, durably before the next step, in the
    /// coordination (`ClaimCoordination.store`: the lease, or the coordinator's row) — so
    /// a kill between two steps leaves the step the outbox shows to whoever resumes the job,
    /// this host with its own record cut short or gone included. Throws what kept it from
    /// being recorded (`JobFailure.lost`: the claim is another host's now); the commit
    /// stops there.
    func recordCommitStep(_ state: SetCommit.State, in record: inout JobRecord) throws {
        record.deliverables = state.entries
        record.setSuffix = state.suffix
        try store.save(&record)
        try keeper.store(record)
    }

    /// Proves the claim is still this daemon's just before an irreversible step
    /// (`ClaimCoordination.fence`; on a share, the claim folder is renamed to its next
    /// fence name, and the record says so). Throws `JobFailure.lost` when another host took the claim over.
    func fence(_ record: inout JobRecord, folder: FolderConfig, before step: IrreversibleStep) throws {
        let skipped = try keeper.fence(&record, claimedDirectory: folder.claimedDirectory, before: step)
        if !skipped.isEmpty {
            // Once per fence: the job goes on under the next free name.
            logger(for: record, folder: folder).warning(
                "the claim folder name \(skipped.map(\.description).joined(separator: ", ")) in \(folder.claimedDirectory) is taken by something dropcut did not make (left as it is); fenced to \(record.claim) instead")
        }
        try save(&record)
    }

    func claimedPath(_ record: JobRecord, _ folder: FolderConfig, _ name: String) -> String {
        (claimedDirectory(record, folder) as NSString).appendingPathComponent(name)
    }

    /// Paths inside the claimed folder as the person dropped them (`inbox/clip.mov`): what
    /// messages and error files name, since the claimed folder is gone afterwards.
    func droppedPath(_ text: String, _ record: JobRecord, _ folder: FolderConfig) -> String {
        text.replacingOccurrences(of: claimedDirectory(record, folder) + "/", with: folder.inbox + "/")
    }

    /// A reason as the person who dropped the clip reads it: the clip and its sidecars by
    /// the names they were dropped with (`broken.mp4: is not a video…`), not by their
    /// claimed paths. Journal fields keep the full paths (`droppedPath`).
    func namedAsDropped(_ text: String, _ record: JobRecord, _ folder: FolderConfig) -> String {
        text.replacingOccurrences(of: claimedDirectory(record, folder) + "/", with: "")
    }

    // MARK: Claim

    /// Renames the clip and its sidecars into `<inbox>/.dropcut/claimed/<job-id>/`. Only
    /// the process whose rename succeeds owns the job: nil when another one was first.
    ///
    /// A name that is not UTF-8 (or holds control characters or backslashes) is renamed
    /// from its bytes to its printable form (`RawFileName`, shortened by `ClaimedNames`
    /// when that would not fit), so every later step works on an ordinary name; the record
    /// keeps the name as dropped, written before the rename, for the archive and failed/.
    ///
    /// `ticket` is what the claim starts from (`ClaimTicket`): a new job id, or — where a
    /// coordinator assigned the clip — its id, farm job and epoch, and how long the
    /// coordinator took (for the claim's time, `DROPCUT_CLAIM_MS`).
    func claim(_ clip: SettledClip, folder: FolderConfig, ticket: ClaimTicket = ClaimTicket()) throws -> JobRecord? {
        let clock = ContinuousClock(), began = clock.now
        let listed = [clip.name] + clip.sidecars
        let names = ClaimedNames.of(listed)
        var dropped: [String: String] = [:]
        for (name, claimed) in zip(listed, names) where name != claimed || RawFileName.isEscaped(name) {
            dropped[claimed] = name
        }
        guard let source = RawFileName(printable: clip.name) else {
            throw SystemError(errno: EINVAL, function: "claim: not a name the inbox listing gave",
                              path: (folder.inbox as NSString).appendingPathComponent(clip.name))
        }
        var record = JobRecord(ticket: ticket, folder: folder.name, input: names.first ?? clip.name, state: .claiming)
        record.unreadableSidecars = clip.unreadableSidecars.isEmpty ? nil : clip.unreadableSidecars
        record.arrival = ClipArrival(size: clip.size, modified: clip.modifiedNanoseconds)
        record.dropped = dropped.isEmpty ? nil : dropped
        let directory = claimedDirectory(record, folder)
        // Made if missing (an inbox share mounted again comes back without them), each
        // checked before anything is made inside it.
        try sys("mkdir", folder.workDirectory) { DurableFiles.mkdirIfMissing(folder.workDirectory) }
        try DurableFiles.requireOwnDirectory(folder.workDirectory)
        try sys("mkdir", folder.claimedDirectory) { DurableFiles.mkdirIfMissing(folder.claimedDirectory) }
        try checkOwnFolders(folder)
        try DurableFiles.makeDirectories(directory)
        try DurableFiles.requireOwnDirectory(directory)
        // The record, then the lease: a claim folder is never without its owner, so a
        // crash from here on leaves nothing that others cannot judge and take over.
        do {
            try store.save(&record)
            if try keeper.hold(record, name: record.claim, claimedDirectory: folder.claimedDirectory) == .lost {
                // Removed under us as an empty claim by another host's start-up: lost the race.
                store.remove(record.id)
                return nil
            }
        } catch {
            DurableFiles.removeTree(directory)
            store.remove(record.id)
            throw error
        }
        let destination = claimedPath(record, folder, record.input)
        let outcome: ClaimRename.Outcome
        do throws(SystemError) {
            // ENOENT is resolved by looking (an NFS rename repeated after a lost reply
            // finds its source gone although it succeeded): is the clip in this claim?
            outcome = try ClaimRename.rename(source.path(in: folder.inbox), to: destination,
                                             describedAs: (folder.inbox as NSString).appendingPathComponent(clip.name))
        } catch {
            release(record, directory)
            throw error
        }
        if outcome == .lost {
            // Another process claimed it first — or, where a coordinator assigned it, nobody
            // else could: the clip was gone (removed from the inbox since this host listed
            // it), and the coordinator hears its job ended missing (a share has nobody to
            // tell). A clip still in the inbox lost its claim folder to a taker instead: its
            // job is the taker's.
            var info = stat()
            if lstat(source.path(in: folder.inbox), &info) != 0, errno == ENOENT { keeper.ended(record, missing: true) }
            release(record, directory)
            return nil
        }
        for (sidecar, claimed) in zip(clip.sidecars, names.dropFirst()) {
            guard let original = RawFileName(printable: sidecar) else { continue }
            if rename(original.path(in: folder.inbox), claimedPath(record, folder, claimed)) == 0 { record.sidecars.append(claimed) }
        }
        if let kept = record.dropped?.filter({ ([record.input] + record.sidecars).contains($0.key) }) {
            record.dropped = kept.isEmpty ? nil : kept
        }
        // What the clip is as claimed: a render is published only if it is still so then.
        record.arrival?.identity = try? ClipIdentity.read(destination).identity
        try DurableFiles.sync(directory)
        try DurableFiles.sync(folder.inbox)
        try advance(&record, .clipClaimed, folder: folder)
        let took = clock.now - began + ticket.decided
        var fields: Logger.Metadata = ["MESSAGE_ID": "\(MessageID.jobClaimed.rawValue)",
                                       "DROPCUT_CLAIM_MS": "\(String(format: "%.2f", took.seconds * 1000))"]
        if !record.sidecars.isEmpty { fields["DROPCUT_SIDECARS"] = "\(record.sidecars.joined(separator: ","))" }
        let renamed = record.input == clip.name ? "" : " as \(record.input)"
        logger(for: record, folder: folder).info("claimed \(clip.name)\(renamed)", metadata: fields)
        return record
    }

    /// Gives up a claim that got nothing (its clip went to another process): no lease,
    /// no folder, no record.
    private func release(_ record: JobRecord, _ directory: String) {
        keeper.release(record.id)
        DurableFiles.removeTree(directory)
        store.remove(record.id)
    }

    /// `.dropcut` and `.dropcut/claimed` are still the daemon's own directories (checked
    /// before every claim and every clean-up: see `DurableFiles.requireOwnDirectory`).
    func checkOwnFolders(_ folder: FolderConfig) throws(SystemError) {
        try DurableFiles.requireOwnDirectory(folder.workDirectory)
        try DurableFiles.requireOwnDirectory(folder.claimedDirectory)
    }

    // MARK: Resume

    /// Takes the job from its recorded state to done: render and commit, finish a commit, or
    /// archive. Throws what stopped it; the record then says where it stopped.
    ///
    /// Each irreversible step (publishing the output, archiving or deleting the original,
    /// moving it to failed/) comes right after a fence (`fence`): a host that lost its
    /// claim while it was paused finds out there, and publishes nothing.
    func resume(_ record: inout JobRecord, folder: FolderConfig, limits: WorkerLimits,
                progress: @escaping @Sendable (Double) -> Void,
                rendering: @escaping @Sendable (Double) -> Void = { _ in }) async throws {
        // Each state takes up where it stopped (`JobStateMachine.step`) and goes on through
        // the steps after it.
        switch JobStateMachine.step(for: record.state) {
        case .render:
            try await render(&record, folder: folder, limits: limits, progress: progress, rendering: rendering)
            fallthrough
        case .publish:
            try await offPool(&record, "dropcut-commit") {
                try fence(&$0, folder: folder, before: .publish)
                try commit(&$0, folder: folder)
            }
            fallthrough
        case .archive:
            try await offPool(&record, "dropcut-finish") {
                try fence(&$0, folder: folder, before: .archive)
                try finishSuccess(&$0, folder: folder)
            }
        case .moveToFailed:
            try await offPool(&record, "dropcut-finish") {
                try fence(&$0, folder: folder, before: .fail)
                try finishFailure(&$0, folder: folder)
            }
        case .none:
            return
        }
    }

    /// Runs a step that fsyncs, links and moves files (across filesystems: copies) on a
    /// thread of its own (`BlockingWork`), keeping whatever it recorded in `record` even
    /// when it throws — the record says where the job stopped.
    @discardableResult
    func offPool<T: Sendable>(_ record: inout JobRecord, _ name: String,
                              _ step: @escaping @Sendable (inout JobRecord) throws -> T) async throws -> T {
        let box = JobRecordBox(record)
        defer { record = box.record.withLock { $0 } }
        return try await BlockingWork.run(name) { _ in try box.record.withLock { try step(&$0) } }
    }
}
