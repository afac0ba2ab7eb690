import Foundation
import Logging
import Pipeline
import Support
import Synchronization

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

    /// Saves the record in the state folder, then in the claim's lease: what another host
    /// resumes the job from if it takes the claim over.
    func save(_ record: inout JobRecord) throws(SystemError) {
        try store.save(&record)
        keeper.update(record)
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
        try DurableFiles.sync(directory)
        try DurableFiles.sync(folder.inbox)
        record.state = .claimed
        try save(&record)
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
        // Each state takes up where it stopped and goes on through the steps after it.
        switch record.state {
        case .claiming, .claimed, .preparing, .rendering, .waiting:
            try await render(&record, folder: folder, limits: limits, progress: progress, rendering: rendering)
            fallthrough
        case .committing:
            try await offPool(&record, "dropcut-commit") {
                try fence(&$0, folder: folder, before: .publish)
                if $0.deliverables != nil {
                    try commitSet(&$0, folder: folder)
                } else {
                    try commit(&$0, folder: folder)
                }
            }
            fallthrough
        case .committed:
            try await offPool(&record, "dropcut-finish") {
                try fence(&$0, folder: folder, before: .archive)
                try finishSuccess(&$0, folder: folder)
            }
        case .failing:
            try await offPool(&record, "dropcut-finish") {
                try fence(&$0, folder: folder, before: .fail)
                try finishFailure(&$0, folder: folder)
            }
        case .done, .failed, .abandoned:
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

    /// The recipe files for this job, most general first: the folder's default, the inbox's
    /// `recipe.yaml`, the clip's sidecar `<stem>.yaml`.
    func recipeFiles(_ record: JobRecord, _ folder: FolderConfig) -> [String] {
        var files: [String] = []
        if let recipe = folder.recipe { files.append(recipe) }
        for name in ["recipe.yaml", "recipe.yml"] {
            // Whatever is there (lstat: a symlink or FIFO too) is the inbox's recipe; the
            // loader refuses what is not a regular file, with that reason.
            let path = (folder.inbox as NSString).appendingPathComponent(name)
            var info = stat()
            if lstat(path, &info) == 0 { files.append(path); break }
        }
        if let sidecar = record.sidecars.first(where: { ["yaml", "yml"].contains(($0 as NSString).pathExtension.lowercased()) }) {
            files.append(claimedPath(record, folder, sidecar))
        }
        return files
    }

    /// Renders the job in a worker process (`WorkerProcess`): records the attempt first,
    /// then lets the worker load the recipe, probe and render into a temporary file in
    /// the outbox, and makes that durable. A worker that crashes, overruns its limits or
    /// reports a failure fails this attempt only; the record keeps what each attempt met.
    private func render(_ record: inout JobRecord, folder: FolderConfig, limits: WorkerLimits,
                        progress: @escaping @Sendable (Double) -> Void,
                        rendering: @escaping @Sendable (Double) -> Void) async throws {
        let log = logger(for: record, folder: folder)
        // A clip waiting because it was still being written is rendered only once it has
        // stopped changing.
        try await offPool(&record, "dropcut-arrival") { try checkArrival(&$0, folder: folder, incomplete: false, attemptCounted: false) }
        let request = try await offPool(&record, "dropcut-attempt") { try beginAttempt(&$0, folder: folder, limits: limits) }
        log.info("rendering \(record.input) (attempt \(record.attempts))", metadata: [
            "DROPCUT_RECIPE": "\(record.recipes.joined(separator: ","))",
        ])
        let box = JobRecordBox(record)
        let (exit, pid) = try await BlockingWork.run("dropcut-worker") { [workerExecutable] cancellation in
            // A claim lost while the worker runs (another host took it over) stops it.
            keeper.attach(cancellation, to: request.job)
            defer { keeper.attach(nil, to: request.job) }
            // Spawned and supervised on this one thread: the worker's PR_SET_PDEATHSIG fires
            // when the thread that spawned it ends, which is after the worker is reaped —
            // or when the daemon dies, so no orphan renders on for a job a restart takes up.
            let worker = try WorkerProcess(executable: workerExecutable, request: request)
            let exit = worker.supervise(limits: limits, cancellation: cancellation) { event in
                switch event {
                case let .rendering(temporary, output, duration):
                    if duration.isFinite && duration > 0 { rendering(duration) }
                    // What a worker says is checked like any input (a worker taken over by
                    // a hostile file must not make the daemon link, chmod or delete
                    // anything else): the temporary name must be the one this job's
                    // output gets in this outbox.
                    guard Self.isPlainName(output),
                          temporary == PartialOutput(directory: folder.outbox, filename: output, tag: request.job).path else { return }
                    // Recorded at once: a daemon that crashes now still finds and removes it.
                    box.record.withLock { record in
                        record.temporaryOutput = temporary
                        record.output = output   // the name it will get (a suffix may follow)
                        try? save(&record)
                    }
                case let .renderingSet(files, manifest, duration):
                    if duration.isFinite && duration > 0 { rendering(duration) }
                    // Every name checked as a single output's is, and the set recorded
                    // whole before the worker writes its first file.
                    guard let set = Self.checkedSet(files, manifest: manifest, outbox: folder.outbox, job: request.job) else { return }
                    box.record.withLock { record in
                        record.deliverables = set
                        try? save(&record)
                    }
                case let .described(described):
                    box.record.withLock { record in
                        guard var set = record.deliverables else { return }
                        for index in set.indices where !set[index].isManifest {
                            set[index].file = described.first { $0.name == set[index].describedName }
                        }
                        record.deliverables = set
                    }
                case let .progress(fraction):
                    if fraction.isFinite { progress(min(max(fraction, 0), 1)) }
                case .finished, .failed, .thumbnail:
                    break
                }
            }
            return (exit, worker.pid)
        }
        record = box.record.withLock { $0 }
        if let reported = exit.failure(limits: limits) {
            if let leftover = record.temporaryOutput { PartialOutput(path: leftover).remove() }
            record.temporaryOutput = nil
            removeSetTemporaries(&record, folder: folder)
            if case .cancelled? = exit.stoppedBy {
                if let lost = keeper.lostReason(record.id) { throw JobFailure.lost(lost) }
                throw CancellationError()
            }
            // Still being written? Then the attempt was not the clip's: it waits instead.
            try await offPool(&record, "dropcut-arrival") { try checkArrival(&$0, folder: folder, incomplete: exit.reportedIncompleteFile) }
            // Incomplete and unchanged after a second look: said how to avoid it.
            let failure = exit.reportedIncompleteFile
                ? JobFailure.permanent(reported.reason + "\n  " + ClipArrival.advice, errno: reported.errno) : reported
            record.recordAttempt(namedAsDropped(failure.reason, record, folder))
            if exit.outcome == nil || exit.stoppedBy != nil {
                metrics.workerDied(cause: exit.deathCause)
                var log = log
                log[metadataKey: "DROPCUT_WORKER_PID"] = "\(pid)"
                if let signal = exit.signal { log[metadataKey: "SIGNAL"] = "\(signal)" }
                // A crash's report (a trap's message, the backtrace): what a bug report needs.
                if !exit.stderr.isEmpty { log[metadataKey: "DROPCUT_WORKER_STDERR"] = "\(exit.stderr)" }
                log.error("\(record.input): attempt \(record.attempts): \(namedAsDropped(failure.reason, record, folder))",
                          metadata: ["MESSAGE_ID": "\(MessageID.workerFailed.rawValue)"])
            }
            throw failure
        }
        do {
            // Rendered from a file that changed meanwhile: not the clip as it will be.
            try await offPool(&record, "dropcut-arrival") { try checkArrival(&$0, folder: folder, incomplete: false) }
        } catch {
            if let leftover = record.temporaryOutput { PartialOutput(path: leftover).remove() }
            record.temporaryOutput = nil
            removeSetTemporaries(&record, folder: folder)
            throw error
        }
        if record.deliverables != nil {
            guard case let .finished(milliseconds, speed)? = exit.outcome else {
                throw JobFailure.transient("the worker reported success without an output", errno: nil)
            }
            try await offPool(&record, "dropcut-sync") { try syncSet(&$0, folder: folder, milliseconds: milliseconds, speed: speed) }
            return
        }
        guard let temporary = record.temporaryOutput, case let .finished(milliseconds, speed)? = exit.outcome else {
            throw JobFailure.transient("the worker reported success without an output", errno: nil)
        }
        try await offPool(&record, "dropcut-sync") { record in
            // A regular file, not a symlink the worker left there (apply follows links).
            var own = stat()
            guard lstat(temporary, &own) == 0, (own.st_mode & S_IFMT) == S_IFREG else {
                throw JobFailure.transient("the worker's output \(temporary) is missing or not a regular file", errno: nil)
            }
            try DurableFiles.apply(mode: folder.outputMode, group: folder.outputGroup, to: temporary)
            try DurableFiles.sync(temporary)
            var info = stat()
            try sys("stat", temporary) { stat(temporary, &info) }
            record.temporaryInode = UInt64(info.st_ino)
            record.elapsedMilliseconds = max(0, milliseconds)
            record.speed = speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }   // NaN would not encode
            record.state = .committing
            try save(&record)
        }
    }

    /// Whether `path` (a record's temporary output) is a hidden file of this job in the
    /// folder's outbox — the only kind of file recovery removes: a path read back from a
    /// record is never trusted to name anything else.
    func isOwnPartialOutput(_ path: String, _ record: JobRecord, _ folder: FolderConfig) -> Bool {
        let name = (path as NSString).lastPathComponent
        return (path as NSString).deletingLastPathComponent == folder.outbox && Self.isPlainName(name)
            && name.hasPrefix(".") && name.contains(record.id)
    }

    /// A file name without a folder in it (what a worker may name its output).
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.utf8.contains(0)
            && name.utf8.count <= Int(NAME_MAX)
    }

    /// Starts an attempt, durably, before anything of the job is read: counts it (a job
    /// that has had all its attempts fails here, so a clip that kills its worker cannot
    /// loop) and marks it `preparing` (a clip that kills the daemon while it reads the
    /// clip's files is bounded by `JobRecord.interrupted`), removes a previous attempt's
    /// partial output, lists the recipes, marks it `rendering`, and returns what the
    /// worker is told.
    private func beginAttempt(_ record: inout JobRecord, folder: FolderConfig, limits: WorkerLimits) throws -> WorkerRequest {
        if let leftover = record.temporaryOutput { PartialOutput(path: leftover).remove() }
        record.temporaryOutput = nil
        removeSetTemporaries(&record, folder: folder)
        // Before the attempt is counted: a share that is away is not the clip's fault.
        try mounts.require(folder.outbox, role: "outbox")
        try DurableFiles.makeDirectories(folder.outbox)
        guard record.attempts <= folder.retries else {
            throw JobFailure.permanent("gave up after \(record.attempts) attempt(s) (retries: \(folder.retries))", errno: nil)
        }
        record.attempts += 1
        metrics.attemptStarted(folder: folder.name)
        // Durably in the preparing phase before the daemon reads anything of the clip: a
        // daemon death from here until the worker starts may be the clip's doing.
        record.state = .preparing
        try save(&record)
        let files = recipeFiles(record, folder)
        record.recipes = files.isEmpty ? ["identity"] : files.map { droppedPath($0, record, folder) }
        var info = stat()
        let input = claimedPath(record, folder, record.input)
        // lstat: what was renamed into the claim is used only if it is a regular file (a
        // symlink dropped into an inbox could name any file the daemon can read).
        if lstat(input, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw JobFailure.permanent("\(namedAsDropped(input, record, folder)): not a regular file (a symlink, FIFO or device is never read)", errno: nil)
            }
            if info.st_size == 0 {
                throw JobFailure.permanent("\(namedAsDropped(input, record, folder)): the file is empty (0 bytes)", errno: nil)
            }
        }
        if let refused = record.unreadableSidecars?.first {
            // As `dropcut render` refuses it: the clip is not rendered without what was
            // dropped beside it. The sidecar itself stays where it was dropped.
            throw JobFailure.permanent("\((folder.inbox as NSString).appendingPathComponent(refused)): is not a regular file (a symlink, folder, FIFO or device is never read); "
                                       + "it was left in the inbox. Put the file itself there and drop \(record.droppedName(record.input)?.printable ?? record.input) again", errno: nil)
        }
        // From here on the clip is read by its worker only: a daemon death is no strike.
        record.state = .rendering
        try save(&record)
        return WorkerRequest(job: record.id, folder: folder.name, input: input, recipes: files,
                             droppedRecipes: files.filter { $0 != folder.recipe }, assets: folder.assets, outbox: folder.outbox,
                             limits: limits, logFields: [
                                 "DROPCUT_JOB": record.id, "DROPCUT_FOLDER": folder.name,
                                 "DROPCUT_INPUT": (folder.inbox as NSString).appendingPathComponent(record.input),
                             ], parent: getpid(), inbox: folder.inbox)
    }

    /// Links the finished temporary output to its final name (`-1`, `-2`... on collision,
    /// never overwriting). After a crash mid-commit, the output already linked is found by
    /// the temporary file's inode, so the clip never appears twice.
    private func commit(_ record: inout JobRecord, folder: FolderConfig) throws {
        guard let temporary = record.temporaryOutput, let name = record.output, let inode = record.temporaryInode else {
            throw JobFailure.permanent("job \(record.id) has no rendered output to commit", errno: nil)
        }
        try mounts.require(folder.outbox, role: "outbox")
        if let linked = Self.entry(withInode: inode, in: folder.outbox, besides: temporary) {
            unlink(temporary)     // linked before a crash; the temporary name may remain
            record.output = linked
        } else if access(temporary, F_OK) == 0 {
            record.output = try publishUnique(temporary, into: folder.outbox, name: (name as NSString).lastPathComponent, record)
        } else {
            record.state = .claimed
            try save(&record)
            throw JobFailure.transient("the rendered output \(temporary) vanished before it was committed", errno: ENOENT)
        }
        record.temporaryOutput = nil
        record.state = .committed
        try save(&record)
    }

    /// Links `temporary` into `outbox` under the first free `name`, `name-1`...: a name
    /// the coordinator gives this job (`ClaimCoordination.reserve`: a database's unique
    /// key; with shared-folder claims every name) and that the outbox does not hold yet
    /// (an exclusive link or rename: never an overwrite) — `DurableFiles.linkUnique` with
    /// the coordinator asked first.
    func publishUnique(_ temporary: String, into outbox: String, name: String, _ record: JobRecord) throws -> String {
        for n in 0..<DurableFiles.maximumNumbered {
            let candidate = DurableFiles.numbered(name, n)
            guard try keeper.reserve(output: candidate, in: outbox, for: record) else { continue }
            let path = (outbox as NSString).appendingPathComponent(candidate)
            if try DurableFiles.publishExclusively(temporary, as: path, tag: record.id) {
                try DurableFiles.sync(outbox)
                return path
            }
        }
        throw SystemError(errno: EEXIST, function: "link (10,000 names taken)", path: (outbox as NSString).appendingPathComponent(name))
    }

    /// The entry of `directory` other than `path` whose inode is `inode` (a finished link,
    /// or rename: an HLS ladder's folder, published by renaming it, is found the same way —
    /// any kind of entry counts, nothing is followed).
    static func entry(withInode inode: UInt64, in directory: String, besides path: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        for name in names where !name.hasPrefix(".") {
            let candidate = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            if candidate != path, lstat(candidate, &info) == 0, UInt64(info.st_ino) == inode { return candidate }
        }
        return nil
    }

    /// Archives or deletes the original and its sidecars, removes the claimed folder, and
    /// marks the job done.
    private func finishSuccess(_ record: inout JobRecord, folder: FolderConfig) throws {
        let directory = claimedDirectory(record, folder)
        try checkOwnFolders(folder)
        try DurableFiles.requireOwnDirectory(directory, missingIsFine: true)
        if let archive = folder.archive, folder.afterSuccess == .archive {
            try mounts.require(archive, role: "archive")
            // Under the names they were dropped with (`DurableFiles+DroppedNames`).
            let names = [record.input] + record.sidecars
            for tag in record.moveTags {
                try DurableFiles.finishMoves(in: archive, tag: tag, names: names, dropped: record.droppedNames)
            }
            for name in names where access(claimedPath(record, folder, name), F_OK) == 0 {
                try DurableFiles.move(claimedPath(record, folder, name), into: archive, name: name,
                                      dropped: record.droppedName(name), tag: record.id)
            }
        } else {
            for name in [record.input] + record.sidecars { unlink(claimedPath(record, folder, name)) }
        }
        // The event first: a crash before the record says done writes it again (the
        // outbox keeps the first), so a done job always has its event.
        try announce(.done, &record, folder: folder)
        // Done in the record and the lease before the folder goes: a crash in between
        // leaves a claim whose lease says done, which whoever finds it only removes.
        record.state = .done
        try save(&record)
        keeper.ended(record, missing: false)
        keeper.release(record.id)
        DurableFiles.removeTree(directory)
        try? DurableFiles.sync(folder.claimedDirectory)
        var log = logger(for: record, folder: folder)
        if let output = record.output { log[metadataKey: "DROPCUT_OUTPUT"] = "\(output)" }
        if let set = record.deliverables {
            // Every file of a set, the manifest last (DROPCUT_OUTPUT is the manifest).
            // A ladder's is its master playlist in its folder, as the manifest lists it.
            log[metadataKey: "DROPCUT_OUTPUTS"] = "\(set.compactMap(\.publishedPath).joined(separator: ","))"
        }
        log[metadataKey: "DROPCUT_RECIPE"] = "\(record.recipes.joined(separator: ","))"
        if let ms = record.elapsedMilliseconds { log[metadataKey: "DROPCUT_ELAPSED_MS"] = "\(ms)" }
        if let speed = record.speed { log[metadataKey: "DROPCUT_SPEED"] = "\(String(format: "%.2f", speed))" }
        let names = record.outputNames
        let output = names.isEmpty ? "?" : names.joined(separator: ", ")
        log.notice("done \(record.input) -> \(output)", metadata: ["MESSAGE_ID": "\(MessageID.jobDone.rawValue)"])
    }

    // MARK: Failure

    /// Records the failure, then moves the original, its sidecars and `<name>.error.txt`
    /// with the reason to the failed folder — after a fence: a host whose claim was taken
    /// over must not move the clip another host now renders.
    func fail(_ record: inout JobRecord, folder: FolderConfig, failure: JobFailure) throws {
        // A commit that kept failing before anything was published: its output never was.
        if record.isCommittingUnpublished && record.deliverables == nil { record.output = nil }
        if let leftover = record.temporaryOutput { PartialOutput(path: leftover).remove() }
        record.temporaryOutput = nil
        removeSetTemporaries(&record, folder: folder)
        // Named before the fence: it renames the claimed folder the reason's paths are in.
        let reason = namedAsDropped(failure.reason, record, folder)
        try fence(&record, folder: folder, before: .fail)
        record.error = reason
        record.state = .failing
        try save(&record)
        var log = logger(for: record, folder: folder)
        if let code = failure.errno { log[metadataKey: "ERRNO"] = "\(code)" }
        try finishFailure(&record, folder: folder, logger: log)
    }

    private func finishFailure(_ record: inout JobRecord, folder: FolderConfig, logger log: Logger? = nil) throws {
        try checkOwnFolders(folder)
        try DurableFiles.requireOwnDirectory(claimedDirectory(record, folder), missingIsFine: true)
        try mounts.require(folder.failed, role: "failed folder")
        try DurableFiles.makeDirectories(folder.failed)
        // Under the names they were dropped with; the error file is named after the clip's
        // printable form (a UTF-8 name, unique to the clip's bytes).
        let names = [record.input] + record.sidecars
        for tag in record.moveTags {
            try DurableFiles.finishMoves(in: folder.failed, tag: tag, names: names, dropped: record.droppedNames)
        }
        var failedName = record.droppedName(record.input)?.printable ?? record.input
        for name in names where access(claimedPath(record, folder, name), F_OK) == 0 {
            let moved = try DurableFiles.move(claimedPath(record, folder, name), into: folder.failed, name: name,
                                              dropped: record.droppedName(name), tag: record.id,
                                              mode: folder.outputMode, group: folder.outputGroup)
            if name == record.input { failedName = moved.printable }
        }
        let reason = record.error ?? "unknown error"
        // A reason's detail line stays under its attempt.
        let attempts = (record.history ?? []).map { "  \($0.replacingOccurrences(of: "\n", with: "\n  "))\n" }.joined()
        let text = """
            dropcut could not render \(record.droppedName(record.input)?.printable ?? record.input)

            Reason: \(reason)
            \(attempts.isEmpty ? "" : "\nAttempts:\n" + attempts)

            Folder:   \(folder.name) (inbox \(folder.inbox))
            Job:      \(record.id)
            Attempts: \(record.attempts)
            Recipes:  \(record.recipes.isEmpty ? "(not loaded)" : record.recipes.joined(separator: ", "))
            Failed:   \(ISO8601DateFormatter().string(from: Date()))

            Fix the cause, then drop the clip into the inbox again.

            """
        // A new name too (`-1`... if taken): failed/ is shared by every host, and the error file
        // of another clip of that name is not ours to replace.
        let errorFile = try DurableFiles.writeUnique(Data(text.utf8), into: folder.failed,
                                                     name: FileName.fitting(failedName, suffix: ".error.txt"),
                                                     tag: record.id, mode: folder.outputMode)
        try announce(.failed, &record, folder: folder)
        record.state = .failed
        try save(&record)
        keeper.ended(record, missing: false)
        keeper.release(record.id)
        DurableFiles.removeTree(claimedDirectory(record, folder))
        var log = log ?? logger(for: record, folder: folder)
        log[metadataKey: "DROPCUT_OUTPUT"] = "\(errorFile)"
        // The reason names the clip already when it is about the clip ("clip.mov: is not a
        // video…"): said once.
        let cause = reason.hasPrefix(record.input + ": ") ? String(reason.dropFirst(record.input.count + 2)) : reason
        log.error("failed \(record.input): \(cause)", metadata: ["MESSAGE_ID": "\(MessageID.jobFailed.rawValue)"])
    }
}

/// A job record lent to a step running on another thread.
final class JobRecordBox: Sendable {
    let record: Mutex<JobRecord>
    init(_ record: JobRecord) { self.record = Mutex(record) }
}
