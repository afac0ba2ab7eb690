/// What a webhook can be told of a job.
package enum WebhookEventKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Its output (every deliverable) is published and its original archived or deleted.
    case done = "job.done"
    /// It is in the failed folder with its error file.
    case failed = "job.failed"
    /// This daemon took the job over from a host that stopped renewing its claim.
    case takenOver = "job.taken_over"
    /// This daemon gave the job up: another host took its claim over.
    case abandoned = "job.abandoned"
}
