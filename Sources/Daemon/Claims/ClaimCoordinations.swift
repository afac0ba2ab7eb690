import Logging

/// The one place that chooses who decides the claims, from the config: the database of
/// `coordinator:` (`DatabaseLeases`), or the shared folders themselves (`LeaseKeeper`).
/// Everything else holds `any ClaimCoordination` and asks what it does, not which it is.
package enum ClaimCoordinations {
    /// The coordination `config` asks for, holding claims as `owner`.
    package static func make(_ config: DaemonConfig, owner: HostIdentity, logger: Logger) -> any ClaimCoordination {
        guard let coordinator = config.coordinator else { return LeaseKeeper(owner: owner) }
        let database = PostgresCoordinator(conninfo: coordinator.conninfo, target: coordinator.target, host: owner.description,
                                           notices: DatabaseLeases.noticeLogger(logger))
        return DatabaseLeases(database: database, owner: owner, leaseTimeout: config.leaseTimeout, logger: logger)
    }
}
