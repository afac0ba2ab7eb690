import Foundation
import Logging
import DropcutPipeline
import ServiceLifecycle
import DropcutSupport

/// Renews the leases of the scheduler's claims every third of `lease_timeout`, a `Service`
/// beside the scheduler: each lease file gets a new beat, which other hosts see change.
/// A claim found gone (taken over by another host while this one was paused or cut off)
/// is reported to the scheduler, which gives its job up.
///
/// Put it before the scheduler in the `ServiceGroup`: services stop in reverse order, so
/// it keeps renewing while the scheduler lets running jobs finish on SIGTERM.
public struct LeaseRenewer: Service {
    let scheduler: Scheduler
    let logger: Logger

    /// Renews `scheduler`'s leases, logging to `logger` what cannot be written.
    public init(scheduler: Scheduler, logger: Logger) {
        self.scheduler = scheduler
        self.logger = logger
    }

    /// The longest it sleeps before it looks at the renewal interval again.
    static let longestSleep: Duration = .seconds(1)

    /// Renews until graceful shutdown reaches it (after the scheduler has stopped).
    public func run() async throws {
        let keeper = scheduler.keeper, logger = self.logger
        await cancelWhenGracefulShutdown {
            var renewed = ContinuousClock.now
            while !Task.isCancelled {
                // Off the cooperative pool: a write to a hung share blocks its thread only.
                if let lost = try? await BlockingWork.run("dropcut-lease", { _ in keeper.renew(logger: logger) }), !lost.isEmpty {
                    await scheduler.claimsLost(lost)
                }
                renewed = .now
                // Slept in steps of at most a second, the interval asked again at each: a
                // reload that lowers lease_timeout is followed within a second, not after
                // a third of the old timeout (when other hosts, reloaded too, would
                // already take these claims for dead).
                while !Task.isCancelled {
                    let due = renewed + (await scheduler.leaseRenewal)
                    let now = ContinuousClock.now
                    if now >= due { break }
                    try? await Task.sleep(for: min(due - now, Self.longestSleep))
                }
            }
        }
    }
}
