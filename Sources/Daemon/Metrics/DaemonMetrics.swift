import Foundation
internal import Prometheus

/// The daemon's Prometheus metrics (docs/connect.md lists them): counted always — a
/// registry is a few counters in memory, no thread — and served at `/metrics` only when
/// the config has an `http:` listener. One per daemon (not swift-metrics' global system):
/// tests run several daemons in one process, and each must count only its own jobs.
package final class DaemonMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()

    /// How a job's run ended, as `dropcut_jobs_total{outcome}` says it.
    package enum Outcome: String, Sendable, CaseIterable {
        case done, failed, retried, abandoned, cancelled
    }

    package init(version: String, workers: Int) {
        registry.makeGauge(descriptor: Self.name("build", "info", "The running dropcut's version (always 1)."),
                           labels: [("version", version)]).set(1.0)
        registry.makeGauge(descriptor: Self.name("start_time", "seconds", "When this daemon started, in seconds since the epoch."))
            .set(Date().timeIntervalSince1970)
        configuredWorkers(workers)
        running(0)
        for outcome in [WebhookDelivery.Outcome.delivered, .failed, .expired] { deliveries(outcome).increment(by: Int64(0)) }
    }

    // MARK: Jobs

    /// A job's run ended in `outcome`; a rendered one took `render` at `speed` × real time.
    package func jobEnded(folder: String, _ outcome: Outcome) {
        registry.makeCounter(descriptor: Self.name("jobs", "total", "Job runs by folder and how they ended (a retried run counts once per retry)."),
                             labels: [("folder", folder), ("outcome", outcome.rawValue)]).increment()
    }

    package func rendered(folder: String, elapsed: Duration, speed: Double?) {
        registry.makeDurationHistogram(descriptor: Self.name("render_duration", "seconds", "Wall time of each successful render."),
                                       labels: [("folder", folder)], buckets: Self.renderBuckets).record(elapsed)
        if let speed, speed.isFinite, speed >= 0 {
            registry.makeValueHistogram(descriptor: Self.name("render_speed", "ratio", "Render speed of each successful render, in multiples of real time (the output's duration over the render's wall time)."),
                                        labels: [("folder", folder)], buckets: Self.speedBuckets).record(speed)
        }
    }

    /// A render attempt started (the first, or a retry).
    package func attemptStarted(folder: String) {
        registry.makeCounter(descriptor: Self.name("attempts", "total", "Render attempts started, retries included."),
                             labels: [("folder", folder)]).increment()
    }

    /// A worker process died or was stopped without finishing (`cause`: the signal's
    /// name, `timeout`, `memory`, `exit`).
    package func workerDied(cause: String) {
        registry.makeCounter(descriptor: Self.name("worker_deaths", "total", "Worker processes that ended without a result, by cause."),
                             labels: [("cause", cause)]).increment()
    }

    package func tookOver(folder: String) {
        registry.makeCounter(descriptor: Self.name("takeovers", "total", "Claims taken over from hosts that stopped renewing them."),
                             labels: [("folder", folder)]).increment()
    }

    package func abandoned(folder: String) {
        registry.makeCounter(descriptor: Self.name("abandons", "total", "Jobs given up because another host took their claim over."),
                             labels: [("folder", folder)]).increment()
    }

    /// The HTTP listener closed a connection for its caps (`reason`: `peer` or `total`
    /// when a newer connection took its place, `refused` when a new one was turned away).
    package func connectionRefused(_ reason: String) {
        registry.makeCounter(descriptor: Self.name("http_connections_refused", "total",
                                                   "HTTP connections closed for the listener's caps, by reason."),
                             labels: [("reason", reason)]).increment()
    }

    // MARK: Queue and workers

    /// Clips settled in the folder's inbox and not yet running (retries waiting included),
    /// and how long the oldest of them has waited (0: none).
    package func queue(folder: String, depth: Int, oldestWaiting: Double) {
        registry.makeGauge(descriptor: Self.name("queue", "depth", "Clips waiting in the folder: settled in its inbox, or claimed and waiting to retry."),
                           labels: [("folder", folder)]).set(Double(depth))
        registry.makeGauge(descriptor: Self.name("oldest_waiting", "seconds", "How long the folder's oldest waiting clip has waited (since it was last modified, or since its retry was scheduled)."),
                           labels: [("folder", folder)]).set(max(0, oldestWaiting))
    }

    /// With a database coordinator: every host's jobs by state (`queued`, `claimed`; the
    /// ended ones are the newest read only, so not counted), and the claimed ones by host
    /// — the whole farm, as any one host's listener shows it.
    package func farm(counts: [String: Int], claimedByHost: [String: Int]) {
        for state in ["queued", "claimed"] {
            registry.makeGauge(descriptor: Self.name("farm_jobs", "", "The farm's jobs by state, as the coordinator database has them (every host's)."),
                               labels: [("state", state)]).set(Double(counts[state] ?? 0))
        }
        for (host, count) in claimedByHost {
            registry.makeGauge(descriptor: Self.name("farm_claimed", "", "The farm's claimed jobs by host, as the coordinator database has them."),
                               labels: [("host", host)]).set(Double(count))
        }
    }

    /// With a coordinator: whether its last read of the farm (every `FarmView.interval`)
    /// was answered — what the DropcutCoordinatorUnreachable alert watches.
    package func coordinatorReached(_ reached: Bool) {
        registry.makeGauge(descriptor: Self.name("coordinator", "up", "With coordinator: in the config, 1 when the coordinator answered the last read of the farm, else 0."))
            .set(reached ? 1.0 : 0.0)
    }

    package func running(_ count: Int) {
        registry.makeGauge(descriptor: Self.name("workers_running", "", "Jobs holding a worker now.")).set(Double(count))
    }

    package func configuredWorkers(_ count: Int) {
        registry.makeGauge(descriptor: Self.name("workers", "", "Jobs the config lets run at once.")).set(Double(count))
    }

    package func inboxScanned(folder: String, in duration: Duration) {
        registry.makeDurationHistogram(descriptor: Self.name("inbox_scan", "seconds", "Time to list an inbox and check what settled."),
                                       labels: [("folder", folder)], buckets: Self.scanBuckets).record(duration)
    }

    // MARK: Webhooks

    package func webhookAttempt(_ outcome: WebhookDelivery.Outcome) {
        deliveries(outcome).increment()
    }

    /// Events waiting for the config's `endpoint`-th webhook (1-based: URLs may carry
    /// secrets, so they are not labels).
    package func webhookPending(endpoint: Int, _ count: Int) {
        registry.makeGauge(descriptor: Self.name("webhook_pending", "", "Webhook events written and not yet delivered or expired, by the endpoint's place in the config."),
                           labels: [("endpoint", String(endpoint))]).set(Double(count))
    }

    private func deliveries(_ outcome: WebhookDelivery.Outcome) -> Counter {
        registry.makeCounter(descriptor: Self.name("webhook_deliveries", "total", "Webhook delivery attempts by outcome (expired: dropped after max_age)."),
                             labels: [("outcome", outcome.rawValue)])
    }

    // MARK: Exposition

    /// The Prometheus text format (version 0.0.4).
    package func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        registry.emit(into: &buffer)
        return buffer
    }

    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "dropcut", metricName: metric, unitName: unit, helpText: help)
    }

    private static let renderBuckets: [Duration] = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600].map { .seconds($0) }
    private static let speedBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64]
    private static let scanBuckets: [Duration] = [1, 5, 10, 50, 100, 500, 1000, 5000].map { .milliseconds($0) }
}
