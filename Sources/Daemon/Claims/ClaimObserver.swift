import Foundation
import DropcutPipeline

/// What one daemon sees of the claims in an inbox's `.dropcut/claimed/` — its own and
/// every other host's — and how long each lease has stayed the same, by this daemon's
/// monotonic clock. A lease is judged only by whether it changes: the time since this
/// daemon last saw it change (or first read it: a claim seen for the first time is "just
/// seen", however old it may be). A lease unchanged for `leaseTimeout` has expired; no
/// clock of another host is read, so hosts whose clocks disagree still agree on that.
package struct ClaimObserver: Sendable {
    /// One claim folder as last read.
    package struct Sighting: Sendable {
        /// The claim folder's name.
        package var name: ClaimName
        /// Its lease as last read.
        package var reading: ClaimLease.Reading
        /// When this daemon last saw the lease change, or first read it.
        package var since: ContinuousClock.Instant
        /// `since` on this host's wall clock: for `dropcut status` on this same host only
        /// (never compared with another host's time).
        package var sinceDate: Date
        /// Whether a change has been seen (else `since` is the first reading).
        package var changeSeen: Bool
        /// The fingerprint of the lease file as read (`ClaimLease.read`).
        package var fingerprint: UInt64

        /// The lease as read, if it is one.
        package var lease: ClaimLease? {
            if case let .lease(lease) = reading { return lease }
            return nil
        }
    }

    /// `<inbox>/.dropcut/claimed`.
    package let claimedDirectory: String
    /// How long a lease may stay the same before it has expired.
    package var leaseTimeout: Duration
    private var byName: [String: Sighting] = [:]

    /// An observer that has seen nothing yet: every claim it reads first is "just seen".
    package init(claimedDirectory: String, leaseTimeout: Duration) {
        self.claimedDirectory = claimedDirectory
        self.leaseTimeout = leaseTimeout
    }

    /// Reads every claim folder's lease now. Entries that are not claim folders the
    /// protocol makes (hidden names, files, symlinks, folders of another user) are left
    /// out: nobody's claim, never taken over. An unreadable claimed folder lists nothing.
    package mutating func observe(now: ContinuousClock.Instant = .now, wallClock: Date = Date()) -> [Sighting] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: claimedDirectory)) ?? []
        var seen: [String: Sighting] = [:]
        for entry in names {
            guard let name = ClaimName(entry) else { continue }
            let directory = (claimedDirectory as NSString).appendingPathComponent(entry)
            guard (try? DurableFiles.requireOwnDirectory(directory)) != nil else { continue }
            let (reading, fingerprint) = ClaimLease.read(claimDirectory: directory, name: name)
            var sighting = byName[entry]
                ?? Sighting(name: name, reading: reading, since: now, sinceDate: wallClock, changeSeen: false, fingerprint: fingerprint)
            if sighting.fingerprint != fingerprint {
                sighting = Sighting(name: name, reading: reading, since: now, sinceDate: wallClock, changeSeen: true,
                                    fingerprint: fingerprint)
            }
            sighting.reading = reading
            seen[entry] = sighting
        }
        byName = seen
        return sightings
    }

    /// Every claim folder as last read, in job order.
    package var sightings: [Sighting] {
        byName.values.sorted { ($0.name.job, $0.name.fences) < ($1.name.job, $1.name.fences) }
    }

    /// How long the lease has gone unchanged, by this daemon's clock.
    package func age(of sighting: Sighting, now: ContinuousClock.Instant = .now) -> Duration {
        now - sighting.since
    }

    /// Whether the lease has gone unchanged for `leaseTimeout`.
    package func isExpired(_ sighting: Sighting, now: ContinuousClock.Instant = .now) -> Bool {
        age(of: sighting, now: now) >= leaseTimeout
    }

    /// The claim folder `entry` as last read.
    package func sighting(_ entry: String) -> Sighting? {
        byName[entry]
    }

    /// Forgets a claim folder (taken over, renamed by its holder).
    package mutating func forget(_ entry: String) {
        byName[entry] = nil
    }
}
