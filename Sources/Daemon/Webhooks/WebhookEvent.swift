import Foundation

/// What a webhook is told of a job (docs/connect.md, "Webhooks"): the JSON body posted,
/// `{"type": "job.done", "timestamp": …, "data": {…}}`. Written once into the outbox
/// before the job's record says done (or failed, taken over, abandoned); the very bytes
/// written are what is posted, on every attempt.
package struct WebhookEvent: Codable, Sendable, Hashable {
    /// One published file: a deliverable of a set (the manifest among them) or the one output.
    package struct Output: Codable, Sendable, Hashable {
        package var path: String
        package var kind: String
        package var bytes: Int64?
        /// Seconds; videos and previews.
        package var duration: Double?
        package var width: Int?
        package var height: Int?
        package var sha256: String?

        package init(path: String, kind: String, bytes: Int64? = nil, duration: Double? = nil, width: Int? = nil,
                     height: Int? = nil, sha256: String? = nil) {
            self.path = path
            self.kind = kind
            self.bytes = bytes
            self.duration = duration
            self.width = width
            self.height = height
            self.sha256 = sha256
        }
    }

    /// The job the event is about.
    package struct Job: Codable, Sendable, Hashable {
        package var job: String
        package var folder: String
        /// The host whose daemon wrote the event.
        package var host: String
        /// The clip's name as it was dropped (its printable form when not UTF-8).
        package var input: String
        /// `job.done`: every published file, each once.
        package var outputs: [Output]?
        package var elapsedSeconds: Double?
        /// The render's speed against the output's duration (2.0: twice realtime).
        package var speed: Double?
        package var attempts: Int
        /// `job.failed` and `job.abandoned`: the reason, as the error file gives it.
        package var error: String?
        /// `job.taken_over`: the job whose claim this one took.
        package var previousJob: String?

        enum CodingKeys: String, CodingKey {
            case job, folder, host, input, outputs, speed, attempts, error
            case elapsedSeconds = "elapsed_seconds"
            case previousJob = "previous_job"
        }

        package init(job: String, folder: String, host: String, input: String, attempts: Int) {
            self.job = job
            self.folder = folder
            self.host = host
            self.input = input
            self.attempts = attempts
        }
    }

    package var type: WebhookEventKind
    /// When it happened, ISO 8601 in UTC to the millisecond.
    package var timestamp: String
    package var data: Job

    package init(type: WebhookEventKind, at date: Date = Date(), data: Job) {
        self.type = type
        self.timestamp = Self.format(date)
        self.data = data
    }

    /// The `webhook-id`: one per job and kind, so the event written again after a crash,
    /// and every attempt to deliver it, carry the same id and a receiver can drop repeats.
    package var id: String { Self.id(job: data.job, kind: type) }

    package static func id(job: String, kind: WebhookEventKind) -> String {
        let suffix = kind.rawValue.hasPrefix("job.") ? String(kind.rawValue.dropFirst(4)) : kind.rawValue
        return "msg_\(job)_\(suffix)"
    }

    /// `timestamp` read back; nil when it is not one this type wrote.
    package var date: Date? { Self.formatter().date(from: timestamp) }

    /// The body: compact JSON, keys sorted, slashes not escaped (paths stay readable).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    package static func decoded(_ data: Data) throws -> WebhookEvent {
        try JSONDecoder().decode(WebhookEvent.self, from: data)
    }

    static func format(_ date: Date) -> String { formatter().string(from: date) }

    /// A new formatter each time: ISO8601DateFormatter is not Sendable.
    private static func formatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
