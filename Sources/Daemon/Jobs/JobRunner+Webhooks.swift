import Foundation
import DropcutPipeline
import DropcutSupport
import DropcutDigest

/// The webhook events of a job's ends (docs/connect.md, "Webhooks"), written into the
/// outbox before the record says done, failed, taken over or abandoned: a crash between
/// the two writes it again, and the outbox keeps the first.
extension JobRunner {
    /// Writes the event of a job's end (`job.done`, `job.failed`) for every endpoint that
    /// wants it; nothing without webhooks. Its time is recorded first (one more save), so a
    /// step rerun after a crash writes the very same bytes again, even when the first
    /// event was already delivered and removed. Blocking (a done job's outputs are
    /// hashed): off the pool.
    func announce(_ kind: WebhookEventKind, _ record: inout JobRecord, folder: FolderConfig) throws {
        guard let webhooks, webhooks.wants(kind) else { return }
        if record.endedAtMilliseconds == nil {
            record.endedAtMilliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            try save(&record)
        }
        let date = Date(timeIntervalSince1970: Double(record.endedAtMilliseconds ?? 0) / 1000)
        try webhooks.record(job: record.id, kind: kind) { [record] in
            Self.event(kind, record, folder: folder, host: webhooks.host, at: date)
        }
    }

    /// Writes the event `kind` of `record`, happening now (`job.taken_over`, `job.abandoned`:
    /// steps that are not rerun), for every endpoint that wants it; nothing without webhooks.
    func announceNow(_ kind: WebhookEventKind, _ record: JobRecord, folder: FolderConfig) throws {
        guard let webhooks, webhooks.wants(kind) else { return }
        try webhooks.record(job: record.id, kind: kind) {
            Self.event(kind, record, folder: folder, host: webhooks.host)
        }
    }

    /// The event as it is posted: the job, and for `job.done` every published file.
    static func event(_ kind: WebhookEventKind, _ record: JobRecord, folder: FolderConfig, host: String,
                      at date: Date = Date()) -> WebhookEvent {
        var data = WebhookEvent.Job(job: record.id, folder: folder.name, host: host,
                                    input: record.droppedName(record.input)?.printable ?? record.input, attempts: record.attempts)
        data.elapsedSeconds = record.elapsedMilliseconds.map { Double($0) / 1000 }
        data.speed = record.speed
        switch kind {
        case .done:
            data.outputs = outputs(of: record)
        case .failed, .abandoned:
            data.error = record.error
        case .takenOver:
            data.previousJob = record.previousJobs?.last
        }
        return WebhookEvent(type: kind, at: date, data: data)
    }

    /// Every published file once: a set's as the worker described them (the manifest
    /// hashed here), a single output probed and hashed here. A file that cannot be
    /// read is still listed, by its path and kind: the job is done either way.
    static func outputs(of record: JobRecord) -> [WebhookEvent.Output] {
        (record.deliverables ?? []).compactMap { entry in
            guard let path = entry.publishedPath else { return nil }
            if let file = entry.file {
                return WebhookEvent.Output(path: path, kind: entry.kind, bytes: file.bytes, duration: file.duration,
                                           width: file.width, height: file.height, sha256: file.sha256)
            }
            // A single output (described by nobody: it has no manifest), probed here.
            if entry.isSingleOutput, let file = try? OutputDescription.describe(path) {
                return WebhookEvent.Output(path: path, kind: file.kind, bytes: file.bytes, duration: file.duration,
                                           width: file.width, height: file.height, sha256: file.sha256)
            }
            return WebhookEvent.Output(path: path, kind: entry.isSingleOutput ? "video" : entry.kind, bytes: try? FileSize.bytes(at: path),
                                       sha256: try? SHA256.hex(ofFile: path))
        }
    }
}
