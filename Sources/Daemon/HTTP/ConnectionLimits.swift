import Foundation

/// How many connections the listener holds at once, in all and from one peer address,
/// set from the daemon's descriptor limit (RLIMIT_NOFILE) so that the network can never
/// take the descriptors rendering needs: `reserve` of them are never given to connections
/// (workers' pipes, the files a job moves and syncs, the journal, inotify, the database).
package struct ConnectionLimits: Sendable, Hashable {
    /// Connections in all.
    package var total: Int
    /// Connections from one address.
    package var perPeer: Int
    /// Descriptors kept from connections.
    package var reserve: Int

    /// The most connections a listener holds, however many descriptors there are: a
    /// status page, a scraper and scripts need a handful.
    package static let maximum = 512

    package init(total: Int, perPeer: Int, reserve: Int = 0) {
        self.total = max(1, total)
        self.perPeer = max(1, min(perPeer, self.total))
        self.reserve = reserve
    }

    /// For a soft descriptor limit of `descriptors` of which `inUse` are open already: a
    /// quarter of them (at least 64) kept for jobs on top of those in use, the rest (at
    /// most `maximum`) for connections, a quarter of those per peer.
    package init(descriptors: UInt64, inUse: Int = 0) {
        let soft = Int(min(descriptors, UInt64(Int32.max)))
        let reserve = max(64, soft / 4)
        let free = soft - max(0, inUse) - reserve
        let total = free > 0 ? min(Self.maximum, free) : max(1, soft / 8)
        self.init(total: total, perPeer: max(4, total / 4), reserve: reserve)
    }
}
