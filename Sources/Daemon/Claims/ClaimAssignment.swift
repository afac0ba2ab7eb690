/// A coordinator that assigns the work (`coordinator:` in the config: `DatabaseLeases`):
/// it decides which host takes which clip and which expired claim before any file moves,
/// keeps a farm-wide view of the jobs, and can be away. Hosts that race for clips on a
/// share have none of this (`SharedFolderWork`): it is a protocol of its own, so that no
/// coordination answers for what it does not do.
package protocol ClaimAssignment: AnyObject, Sendable {
    /// Makes the coordinator ready before anything is claimed (its schema, created,
    /// migrated and checked). Throws `DaemonError` when it can never be used as it is (the
    /// daemon does not start on it); any other error means it is away now, and it is made
    /// ready at the first `pick` instead.
    func prepare() throws

    /// Offers this host's listing of `folder`'s settled clips and takes up to `slots`
    /// pieces of work — expired claims first (older work; none with `takeOver` false, as
    /// `watch --once` leaves them to others), then the oldest clips. Throws when the
    /// coordinator cannot be reached (claiming waits for it).
    func pick(_ folder: FolderConfig, listed: [SettledClip], slots: Int, takeOver: Bool) throws -> [ClaimOffer]

    /// Whether the coordinator was away at the last statement.
    var isUnreachable: Bool { get }

    /// A reload changed `lease_timeout` (the coordinator judges leases by it).
    func leaseTimeoutChanged(to timeout: Duration)

    /// The coordinator's name in the status, beside its farm-wide view of the jobs.
    var farmCoordinator: String { get }

    /// Every host's jobs, the `recent` last ended ones too.
    func farm(recent: Int) throws -> [FarmJob]
}
