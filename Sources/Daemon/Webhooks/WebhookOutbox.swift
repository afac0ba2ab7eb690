import Foundation
import DropcutPipeline
import DropcutSupport
import DropcutDigest

/// The durable outbox of webhook events (docs/connect.md, "Webhooks"): one folder per
/// endpoint under `<state_dir>/webhooks/`, one file per event, `<webhook-id>.json`, holding
/// the exact body that is posted. An event is written (fsynced) before the job's record
/// says what it announces, so a crash in between writes it again — and the file already
/// there is kept, so a receiver never sees two different events under one id. Delivered
/// events are removed by `WebhookDelivery`.
///
/// Made only when the config has webhooks: without one nothing of this exists.
package final class WebhookOutbox: Sendable {
    /// `<state_dir>/webhooks`.
    package let directory: String
    package let endpoints: [WebhookConfig]
    /// The host named in the events.
    package let host: String
    /// One per endpoint, signalled when an event is written for it: its delivery wakes at once.
    let wakeups: [Wakeup]

    package init(stateDirectory: String, endpoints: [WebhookConfig], host: String) {
        self.directory = (stateDirectory as NSString).appendingPathComponent("webhooks")
        self.endpoints = endpoints
        self.host = host
        self.wakeups = endpoints.map { _ in Wakeup() }
    }

    /// The endpoint's folder: named by a hash of its URL, so reordering the config keeps
    /// each endpoint's pending events with it (and a URL needs no escaping).
    package func folder(for endpoint: WebhookConfig) -> String {
        (directory as NSString).appendingPathComponent(String(SHA256.hex(of: Array(endpoint.url.utf8)).prefix(16)))
    }

    /// Whether any endpoint wants events of `kind`.
    package func wants(_ kind: WebhookEventKind) -> Bool {
        endpoints.contains { $0.events.contains(kind) }
    }

    /// Writes the event `kind` of `job` for every endpoint that wants it and does not have
    /// it yet; `make` builds it only then (a job's outputs are hashed once, and not again
    /// when the step is rerun after a crash). Returns how many endpoints were given it.
    @discardableResult
    package func record(job: String, kind: WebhookEventKind, _ make: () throws -> WebhookEvent) throws -> Int {
        let id = WebhookEvent.id(job: job, kind: kind)
        var body: Data?
        var written = 0
        for (endpoint, wakeup) in zip(endpoints, wakeups) where endpoint.events.contains(kind) {
            let folder = folder(for: endpoint)
            let path = (folder as NSString).appendingPathComponent(id + ".json")
            // Written before a crash: the first stays (same id, same body on every attempt).
            if access(path, F_OK) == 0 { continue }
            if body == nil { body = try make().encoded() }
            try DurableFiles.makeDirectories(folder)
            try DurableFiles.write(body!, to: path, mode: 0o600)
            written += 1
            wakeup.signal()
        }
        return written
    }

    /// One event waiting in an endpoint's folder.
    package struct Pending: Sendable, Hashable {
        package var path: String
        package var id: String
        /// The bytes posted.
        package var body: Data
        package var event: WebhookEvent
        /// When it happened (what `max_age` counts from); nil only for a body not read back.
        package var date: Date
    }

    /// What went wrong reading a pending file (logged; the file is set aside).
    package struct Unreadable: Sendable, Hashable {
        package var path: String
        package var reason: String
    }

    /// The endpoint's pending events, oldest first (ties: taken over before done, then by
    /// id), and the files that are not events (written by something else, or damaged).
    package func pending(for endpoint: WebhookConfig) -> (events: [Pending], unreadable: [Unreadable]) {
        let folder = folder(for: endpoint)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return ([], []) }
        var events: [Pending] = [], unreadable: [Unreadable] = []
        for name in names where !name.hasPrefix(".") && name.hasSuffix(".json") {
            let path = (folder as NSString).appendingPathComponent(name)
            do {
                let body = try Data(contentsOf: URL(fileURLWithPath: path))
                let event = try WebhookEvent.decoded(body)
                guard let date = event.date, name == event.id + ".json" else {
                    unreadable.append(Unreadable(path: path, reason: "its timestamp or id is not one dropcut writes"))
                    continue
                }
                events.append(Pending(path: path, id: event.id, body: body, event: event, date: date))
            } catch {
                unreadable.append(Unreadable(path: path, reason: "\(error)"))
            }
        }
        // A taken-over job's takeover is announced before how it ended, even within one millisecond.
        func rank(_ kind: WebhookEventKind) -> Int { kind == .takenOver ? 0 : 1 }
        events.sort { ($0.date, rank($0.event.type), $0.id) < ($1.date, rank($1.event.type), $1.id) }
        return (events, unreadable)
    }

    /// Removes a delivered (or expired) event for good: the folder is fsynced, so a crash
    /// does not bring it back to be delivered twice.
    package func remove(_ path: String) throws(SystemError) {
        try sys("unlink", path) { unlink(path) }
        try DurableFiles.syncParent(of: path)
    }
}
