import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// One attempt at rendering a job: the recipes it is rendered with, the attempt counted
/// and recorded before anything of the clip is read, and the worker process that renders
/// it (`WorkerProcess`), whose word is checked like any input.
extension JobRunner {
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
    func render(_ record: inout JobRecord, folder: FolderConfig, limits: WorkerLimits,
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
                    // Recorded at once, as a set of one: a daemon that crashes now still finds
                    // and removes it.
                    box.record.withLock { record in
                        record.recordSingleOutput(output, temporary: temporary)
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
            removeSetTemporaries(&record, folder: folder)
            throw error
        }
        guard record.deliverables != nil, case let .finished(milliseconds, speed)? = exit.outcome else {
            throw JobFailure.transient("the worker reported success without an output", errno: nil)
        }
        try await offPool(&record, "dropcut-sync") { try syncSet(&$0, folder: folder, milliseconds: milliseconds, speed: speed) }
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
        removeSetTemporaries(&record, folder: folder)
        // Before the attempt is counted: a share that is away is not the clip's fault.
        try mounts.require(folder.outbox, role: "outbox")
        try DurableFiles.makeDirectories(folder.outbox)
        guard record.attempts <= folder.retries else {
            throw JobFailure.permanent("gave up after \(record.attempts) attempt(s) (retries: \(folder.retries))", errno: nil)
        }
        // Counted, and durably in the preparing phase before the daemon reads anything of
        // the clip: a daemon death from here until the worker starts may be the clip's doing.
        try advance(&record, .attemptStarted, folder: folder)
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
        try advance(&record, .workerStarted, folder: folder)
        return WorkerRequest(job: record.id, folder: folder.name, input: input, recipes: files,
                             droppedRecipes: files.filter { $0 != folder.recipe }, assets: folder.assets, outbox: folder.outbox,
                             limits: limits, logFields: [
                                 "DROPCUT_JOB": record.id, "DROPCUT_FOLDER": folder.name,
                                 "DROPCUT_INPUT": (folder.inbox as NSString).appendingPathComponent(record.input),
                             ], parent: getpid(), inbox: folder.inbox)
    }

}
