import Foundation
import DropcutSupport

/// The takeover of an expired claim: the claim folder is renamed from its holder's name to
/// the taker's new job id, only if its lease is still the one the taker watched expire.
/// Of several hosts that find the same lease expired at once, exactly one rename succeeds
/// (the others find the name gone); the holder's later renewals and fences fail by name.
package enum ClaimTakeover {
    /// Takes the claim folder of `sighting` (in `claimedDirectory`) as `job` (a new job id:
    /// a name no one else uses). Returns false — and changes nothing — when the lease has
    /// changed since it was judged expired (its holder is alive) or when another host took
    /// the claim first. The taker then reads the lease inside (the holder's last word)
    /// and writes its own.
    package static func attempt(_ sighting: ClaimObserver.Sighting, in claimedDirectory: String,
                               as job: String) throws(SystemError) -> Bool {
        try attempt(sighting.name, fingerprint: sighting.fingerprint, in: claimedDirectory, as: job)
    }

    /// Takes the claim folder `name` as `job` if its lease still has `fingerprint` (as
    /// judged expired): `attempt(_:in:as:)` by what a `TakeoverCandidate` keeps of it.
    package static func attempt(_ name: ClaimName, fingerprint: UInt64, in claimedDirectory: String,
                               as job: String) throws(SystemError) -> Bool {
        let source = (claimedDirectory as NSString).appendingPathComponent(name.description)
        // Looked at once more just before: a holder that renewed since is alive. (It may
        // still renew between this look and the rename: then the rename wins, and the
        // holder finds out at its next renewal or fence.)
        guard ClaimLease.read(claimDirectory: source, name: name).fingerprint == fingerprint else {
            return false
        }
        let destination = (claimedDirectory as NSString).appendingPathComponent(ClaimName(job: job).description)
        return try ClaimRename.rename(source, to: destination) == .renamed
    }
}
