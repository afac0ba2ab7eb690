import Testing
@testable import DropcutDaemon
import TestSupport

@Suite struct WebhookBackoffTests {
    /// 1 s doubling to the 5-minute cap; each wait between half the bound and the bound.
    @Test func waitsDoubleWithinBoundsUpToTheCap() {
        let backoff = WebhookBackoff()
        #expect((1...10).map { backoff.bound(afterFailures: $0) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300].map { Duration.seconds($0) })
        #expect(backoff.bound(afterFailures: 10_000) == .seconds(300))
        var generator = SplitMix64(state: 32)
        for failures in 1...20 {
            let bound = backoff.bound(afterFailures: failures)
            for _ in 0..<50 {
                let delay = backoff.delay(afterFailures: failures, using: &generator)
                #expect(delay >= bound / 2 && delay <= bound, "\(failures): \(delay) outside \(bound / 2)...\(bound)")
            }
        }
        // Jitter: not every wait the same.
        let waits = Set((0..<20).map { _ in backoff.delay(afterFailures: 5, using: &generator) })
        #expect(waits.count > 10)
    }

    @Test func testScheduleFromTheEnvironment() {
        #expect(WebhookBackoff.fromEnvironment(["DROPCUT_WEBHOOK_BACKOFF_MS": "100,500"])
                == WebhookBackoff(first: .milliseconds(100), cap: .milliseconds(500)))
        for bad in ["", "100", "0,5", "100,x", "1,2,3", "-1,5", "100,99999999"] {
            #expect(WebhookBackoff.fromEnvironment(["DROPCUT_WEBHOOK_BACKOFF_MS": bad]) == nil, "\(bad)")
        }
        #expect(WebhookBackoff.fromEnvironment([:]) == nil)
        // A cap below the first wait is raised to it.
        #expect(WebhookBackoff(first: .seconds(2), cap: .seconds(1)).bound(afterFailures: 3) == .seconds(2))
    }
}
