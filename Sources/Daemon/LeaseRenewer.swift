import Foundation
import Logging
import Pipeline
import ServiceLifecycle

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

    /// Renews until graceful shutdown reaches it (after the scheduler has stopped).
    public func run() async throws {
        let keeper = scheduler.keeper, logger = self.logger
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // Off the cooperative pool: a write to a hung share blocks its thread only.
                if let lost = try? await BlockingWork.run("dropcut-lease", { _ in keeper.renew(logger: logger) }), !lost.isEmpty {
                    await scheduler.claimsLost(lost)
                }
                try? await Task.sleep(for: await scheduler.leaseRenewal)
            }
        }
    }
}
