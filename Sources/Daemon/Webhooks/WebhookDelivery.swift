import Foundation
import Logging
import ServiceLifecycle
import DropcutSupport
import Synchronization

/// Delivers the outbox's events (docs/connect.md, "Webhooks"), a swift-service-lifecycle
/// `Service` in the daemon's group when the config has webhooks. Each endpoint has a loop
/// of its own: its pending events oldest first, one at a time (so a job's events arrive in
/// order), at least once — a 2xx removes the event, anything else (another status, a
/// timeout, a refused connection) waits `backoff` and tries the same event again. An event
/// older than the endpoint's `max_age` is dropped, logged as an error. What is pending is
/// read from the folders at start, so events survive restarts and kill -9; a new event
/// wakes its endpoint's loop at once.
package struct WebhookDelivery: Service {
    /// How one attempt (or expiry) ended, for metrics.
    package enum Outcome: String, Sendable, Hashable {
        case delivered, failed, expired
    }

    /// Told after every attempt and expiry: the metrics' source
    /// (`dropcut_webhook_deliveries_total{outcome}`, pending events).
    package struct Report: Sendable, Hashable {
        package var outcome: Outcome
        package var url: String
        /// The event's `webhook-id`.
        package var id: String
        /// Events still waiting for this endpoint afterwards.
        package var pending: Int
    }

    let outbox: WebhookOutbox
    let logger: Logger
    let backoff: WebhookBackoff
    let report: (@Sendable (Report) -> Void)?
    /// An idle endpoint looks at its folder this often even without a signal (events
    /// signal it when written; this is only a backstop).
    static let idleRecheck: Duration = .seconds(60)

    package init(outbox: WebhookOutbox, logger: Logger, backoff: WebhookBackoff = WebhookBackoff(),
                 report: (@Sendable (Report) -> Void)? = nil) {
        self.outbox = outbox
        self.logger = logger
        self.backoff = backoff
        self.report = report
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                for index in outbox.endpoints.indices {
                    group.addTask { await deliver(index) }
                }
            }
        }
    }

    /// The loop of endpoint `index`, until cancelled.
    func deliver(_ index: Int) async {
        let endpoint = outbox.endpoints[index], wakeup = outbox.wakeups[index]
        var log = logger
        log[metadataKey: "DROPCUT_WEBHOOK"] = "\(endpoint.url)"
        let poster: PosterBox
        do {
            poster = PosterBox(try WebhookPoster(endpoint: endpoint))
        } catch {
            log.error("webhook \(endpoint.url): cannot deliver: \(error)")
            return
        }
        var failures = 0
        var lastCause: String?
        var lastKind: String?
        // Listed once and worked through oldest first; listed again only when done (what was
        // written meanwhile is newer): a long queue after an outage is not re-read per event.
        var queue: [WebhookOutbox.Pending] = []
        while !Task.isCancelled {
            if queue.isEmpty {
                let listed = try? await BlockingWork.run("dropcut-webhook") { [outbox] _ in outbox.pending(for: endpoint) }
                guard let (events, unreadable) = listed else { return }
                queue = events
                setAside(unreadable, log: log)
            }
            guard let next = queue.first else {
                await withTaskCancellationHandler {
                    await wakeup.wait(timeout: Self.idleRecheck)
                } onCancel: {
                    wakeup.signal()
                }
                continue
            }
            var eventLog = log
            eventLog[metadataKey: "DROPCUT_JOB"] = "\(next.event.data.job)"
            eventLog[metadataKey: "DROPCUT_WEBHOOK_ID"] = "\(next.id)"
            let age = Date().timeIntervalSince(next.date)
            if age > endpoint.maxAge.seconds {
                await remove(next, log: eventLog)
                queue.removeFirst()
                eventLog.error("webhook \(endpoint.url): dropped \(next.event.type.rawValue) \(next.id) of \(next.event.data.input) undelivered: it is \(Int(age)) s old, past max_age (\(Int(endpoint.maxAge.seconds)) s)\(lastCause.map { "; last attempt: \($0)" } ?? "")")
                report?(Report(outcome: .expired, url: endpoint.url, id: next.id, pending: queue.count))
                continue
            }
            do {
                _ = try await BlockingWork.run("dropcut-webhook") { cancellation in
                    try poster.post(id: next.id, body: next.body, cancellation: cancellation)
                }
                await remove(next, log: eventLog)
                queue.removeFirst()
                if let cause = lastCause {
                    eventLog.notice("webhook \(endpoint.url): delivering again after \(failures) failed attempt(s) (last: \(cause))")
                }
                eventLog.debug("webhook \(endpoint.url): delivered \(next.event.type.rawValue) \(next.id)")
                failures = 0
                lastCause = nil
                lastKind = nil
                report?(Report(outcome: .delivered, url: endpoint.url, id: next.id, pending: queue.count))
            } catch {
                let failure = error as? WebhookDeliveryError
                if failure?.cause == .cancelled || Task.isCancelled { return }
                failures += 1
                let cause = failure?.causeText ?? "\(error)", kind = failure?.causeKind ?? cause
                let delay = backoff.delay(afterFailures: failures)
                let message: Logger.Message = "webhook \(endpoint.url): attempt \(failures) for \(next.id) failed: \(cause); next in \(Self.seconds(delay))"
                // Once per cause: a receiver down for hours is one warning, not thousands.
                if kind != lastKind { eventLog.warning(message) } else { eventLog.debug(message) }
                lastKind = kind
                lastCause = cause
                report?(Report(outcome: .failed, url: endpoint.url, id: next.id, pending: queue.count))
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// Files in the endpoint's folder that are not events: never posted, never retried, set
    /// aside under a hidden name for a person to look at.
    private func setAside(_ files: [WebhookOutbox.Unreadable], log: Logger) {
        for file in files {
            let name = (file.path as NSString).lastPathComponent
            let aside = ((file.path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(".\(name).unreadable")
            let moved = rename(file.path, aside) == 0
            log.error("webhook: \(file.path) is not an event dropcut can send (\(file.reason))\(moved ? "; set aside as \(aside)" : "")")
        }
    }

    /// Removes a delivered or expired event; a removal that fails is logged (the event
    /// would be sent again: at least once, never lost).
    private func remove(_ pending: WebhookOutbox.Pending, log: Logger) async {
        do {
            try await BlockingWork.run("dropcut-webhook") { [outbox] _ in try outbox.remove(pending.path) }
        } catch {
            log.error("webhook: could not remove the delivered event \(pending.path): \(error); it may be delivered again")
            try? await Task.sleep(for: .seconds(1))
        }
    }

    static func seconds(_ duration: Duration) -> String { String(format: "%.1f s", duration.seconds) }
}

/// A poster lent to one blocking thread at a time.
final class PosterBox: Sendable {
    private let poster: Mutex<WebhookPoster>
    init(_ poster: sending WebhookPoster) { self.poster = Mutex(poster) }

    func post(id: String, body: Data, cancellation: Cancellation) throws -> Int {
        try poster.withLock { poster in try poster.post(id: id, body: body, cancellation: cancellation) }
    }
}
