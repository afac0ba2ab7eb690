/// The claim folders of one inbox that nothing accounts for — no row of the coordinator
/// names them as a job's claim, and this host holds none of them — and for how long each
/// has been so, by this host's monotonic clock. Pure state: `DatabaseLeases.orphans` feeds
/// it what it listed and what the database said.
///
/// A folder without a row is normal for a moment: a takeover updates the row before it
/// renames the folder to its new claim, and a holder whose row was lost with its table
/// puts it back at its next renewal (every third of `lease_timeout`). Only one unaccounted
/// for a whole `lease_timeout` is an orphan: its holder is gone (down, or its state lost),
/// and the clip would stay in `.dropcut/claimed/` for ever.
package struct OrphanClaims: Sendable {
    private var since: [String: ContinuousClock.Instant] = [:]
    package let timeout: Duration

    package init(timeout: Duration) {
        self.timeout = timeout
    }

    /// `unaccounted` are the folders listed now that nothing accounts for: returns those
    /// unaccounted for since at least `timeout` ago (oldest first); any other is forgotten,
    /// so a folder accounted for even once starts again.
    package mutating func observe(unaccounted: Set<String>, at now: ContinuousClock.Instant) -> [String] {
        since = since.filter { unaccounted.contains($0.key) }
        for name in unaccounted where since[name] == nil { since[name] = now }
        return since.filter { now - $0.value >= timeout }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
    }

    /// Forgets `name` (put back, or gone).
    package mutating func forget(_ name: String) {
        since[name] = nil
    }
}
