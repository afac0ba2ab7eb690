/// How long an endpoint waits after a failed attempt: `first` doubling with each failure in
/// a row, up to `cap`, with jitter (each wait drawn between half and all of that), so many
/// daemons whose receiver comes back do not all retry at the same instant.
package struct WebhookBackoff: Sendable, Hashable {
    package var first: Duration
    package var cap: Duration

    /// 1 s, 2 s, 4 s… up to 5 minutes.
    package init(first: Duration = .seconds(1), cap: Duration = .seconds(300)) {
        self.first = max(first, .milliseconds(1))
        self.cap = max(cap, self.first)
    }

    /// The longest wait after `failures` failures in a row (1: the first).
    package func bound(afterFailures failures: Int) -> Duration {
        var wait = first
        for _ in 1..<max(1, min(failures, 64)) {
            wait *= 2
            if wait >= cap { return cap }
        }
        return min(wait, cap)
    }

    /// The wait after `failures` failures in a row: between half of `bound` and all of it.
    package func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let bound = bound(afterFailures: failures)
        return bound / 2 + bound / 2 * Double.random(in: 0...1, using: &generator)
    }

    package func delay(afterFailures failures: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, using: &generator)
    }

    /// The schedule a test run asks for (`DROPCUT_WEBHOOK_BACKOFF_MS=<first>,<cap>`, in
    /// milliseconds): a delivery test with the real binary cannot wait minutes. Nil when
    /// unset or not two positive numbers.
    package static func fromEnvironment(_ environment: [String: String]) -> WebhookBackoff? {
        guard let text = environment["DROPCUT_WEBHOOK_BACKOFF_MS"] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int(parts[0]), let cap = Int(parts[1]),
              (1...3_600_000).contains(first), (1...3_600_000).contains(cap) else { return nil }
        return WebhookBackoff(first: .milliseconds(first), cap: .milliseconds(cap))
    }
}
