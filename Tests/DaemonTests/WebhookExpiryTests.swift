import Foundation
import Logging
import Synchronization
import Testing
@testable import DropcutDaemon
import TestSupport

/// An event older than its endpoint's `max_age` is dropped without an attempt, reported
/// as expired; the delivery loop then waits for the next event.
@Suite struct WebhookExpiryTests {
    @Test func anEventPastMaxAgeIsDroppedAndReported() async throws {
        let dir = try TemporaryDirectory()
        // Nothing listens on port 9 (discard) on loopback: an attempt would fail, not expire.
        var endpoint = WebhookConfig(url: "http://127.0.0.1:9/hook", secret: [UInt8](repeating: 3, count: 32))
        endpoint.maxAge = .seconds(60)
        let outbox = WebhookOutbox(stateDirectory: dir.file("state"), endpoints: [endpoint], host: "h")
        try outbox.record(job: "old", kind: .done) {
            WebhookEvent(type: .done, at: Date().addingTimeInterval(-3600),
                         data: WebhookEvent.Job(job: "old", folder: "f", host: "h", input: "clip.mov", attempts: 1))
        }
        let reports = Mutex<[WebhookDelivery.Report]>([])
        let delivery = WebhookDelivery(outbox: outbox, logger: Logger(label: "expiry"),
                                       backoff: WebhookBackoff(first: .milliseconds(10), cap: .milliseconds(10)),
                                       report: { report in reports.withLock { $0.append(report) } })
        let loop = Task { await delivery.deliver(0) }
        let deadline = ContinuousClock.now + .seconds(10)
        while reports.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        loop.cancel()
        await loop.value
        let seen = reports.withLock { $0 }
        #expect(seen == [WebhookDelivery.Report(outcome: .expired, url: endpoint.url, id: "msg_old_done", pending: 0)])
        #expect(outbox.pending(for: endpoint).events.isEmpty)
    }
}
