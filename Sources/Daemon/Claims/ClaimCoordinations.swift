import Logging

/// The one place that chooses who decides the claims, from the config: the database of
/// `coordinator:` (`DatabaseLeases`: it holds the claims and assigns the work), or the
/// shared folders themselves (`LeaseKeeper`, and hosts racing for the clips). Everything
/// else holds what it makes and never asks which one it is.
package enum ClaimCoordinations {
    /// What `config` asks for: who holds the claims, where the work comes from, and the
    /// coordinator that assigns it (nil on a share).
    package struct Made: Sendable {
        package let keeper: any ClaimCoordination
        let work: any WorkSource
        package let assignment: (any ClaimAssignment)?
    }

    /// The coordination `config` asks for, holding claims as `owner`.
    package static func make(_ config: DaemonConfig, owner: HostIdentity, logger: Logger) -> Made {
        guard let coordinator = config.coordinator else {
            return Made(keeper: LeaseKeeper(owner: owner), work: SharedFolderWork(), assignment: nil)
        }
        let database = PostgresCoordinator(conninfo: coordinator.conninfo, target: coordinator.target, host: owner.description,
                                           notices: DatabaseLeases.noticeLogger(logger))
        let leases = DatabaseLeases(database: database, owner: owner, leaseTimeout: config.leaseTimeout, logger: logger)
        return Made(keeper: leases, work: CoordinatorWork(assignment: leases), assignment: leases)
    }
}
