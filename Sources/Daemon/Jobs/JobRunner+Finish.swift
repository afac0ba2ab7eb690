import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// A job's last steps: archiving (or deleting) the original once the output is published,
/// or moving it with its error file to the failed folder — each after a fence.
extension JobRunner {
    /// Archives or deletes the original and its sidecars, removes the claimed folder, and
    /// marks the job done.
    func finishSuccess(_ record: inout JobRecord, folder: FolderConfig) throws {
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
        // Done in the record and the lease before the folder goes (`JobStateMachine`).
        try advance(&record, .archived, folder: folder)
        var log = logger(for: record, folder: folder)
        if let output = record.output { log[metadataKey: "DROPCUT_OUTPUT"] = "\(output)" }
        if let set = record.deliverables, set.count > 1 {
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
        removeSetTemporaries(&record, folder: folder)
        // Named before the fence: it renames the claimed folder the reason's paths are in.
        let reason = namedAsDropped(failure.reason, record, folder)
        try fence(&record, folder: folder, before: .fail)
        record.error = reason
        // A step after the render that failed for good: its last try, listed and counted
        // with the retried ones.
        if record.state == .committing || record.state == .committed {
            record.recordFinishTry(reason)
            record.finishRetries = (record.finishRetries ?? 0) + 1
        }
        try advance(&record, .failureDecided, folder: folder)
        var log = logger(for: record, folder: folder)
        if let code = failure.errno { log[metadataKey: "ERRNO"] = "\(code)" }
        try finishFailure(&record, folder: folder, logger: log)
    }

    /// "1", or "1 render, then 3 tries of the steps after it" when the render succeeded
    /// and what came after (publishing, archiving) failed.
    static func attemptCount(_ record: JobRecord) -> String {
        guard let tries = record.finishRetries, tries > 0 else { return "\(record.attempts)" }
        return "\(record.attempts) render\(record.attempts == 1 ? "" : "s"), then \(tries) tr\(tries == 1 ? "y" : "ies") of the steps after it"
    }

    func finishFailure(_ record: inout JobRecord, folder: FolderConfig, logger log: Logger? = nil) throws {
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
            Attempts: \(Self.attemptCount(record))
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
        try advance(&record, .movedToFailed, folder: folder)
        var log = log ?? logger(for: record, folder: folder)
        log[metadataKey: "DROPCUT_OUTPUT"] = "\(errorFile)"
        // The reason names the clip already when it is about the clip ("clip.mov: is not a
        // video…"): said once.
        let cause = reason.hasPrefix(record.input + ": ") ? String(reason.dropFirst(record.input.count + 2)) : reason
        log.error("failed \(record.input): \(cause)", metadata: ["MESSAGE_ID": "\(MessageID.jobFailed.rawValue)"])
    }
}
