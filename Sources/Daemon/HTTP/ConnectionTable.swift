import Foundation

/// The listener's open connections and which to give up when a new one comes past a cap
/// (`ConnectionLimits`). Pure bookkeeping; `HTTPConnections` applies its answers to sockets.
///
/// A cap is not a plain refusal: that would let one client who opens connections and
/// trickles their heads lock everyone else out (the scraper, the status page) until its
/// connections time out. When a cap is reached, the connection that has waited longest
/// without sending a whole request is closed for the newcomer — from the same peer when
/// that peer is at its cap, else from the peer holding the most — so a trickling client
/// mostly displaces itself, while a real request, whole within milliseconds, gets through.
/// Event streams go after unfinished requests (a browser reconnects them by itself). A
/// newcomer is refused only when every connection is busy answering a request.
package struct ConnectionTable: Sendable {
    package enum Stage: Sendable, Hashable {
        /// Its request is not whole yet.
        case reading
        /// Its request is being answered.
        case answering
        /// An event stream is being sent.
        case streaming
    }

    package struct Entry: Sendable, Hashable {
        package var peer: String
        /// Order of arrival.
        package var sequence: Int
        package var stage: Stage
    }

    package enum Admission: Sendable, Hashable {
        /// Admitted as `id`; `evicting` is closed to make room (`reason`: which cap).
        case admitted(id: Int, evicting: Int?, reason: String?)
        /// Turned away: every connection is busy answering.
        case refused(reason: String)
    }

    package let limits: ConnectionLimits
    package private(set) var entries: [Int: Entry] = [:]
    private var next = 0

    package init(limits: ConnectionLimits) {
        self.limits = limits
    }

    package var count: Int { entries.count }

    package func count(of peer: String) -> Int {
        entries.values.reduce(0) { $0 + ($1.peer == peer ? 1 : 0) }
    }

    /// A new connection from `peer`.
    package mutating func admit(peer: String) -> Admission {
        var victim: Int?
        var reason: String?
        if count(of: peer) >= limits.perPeer {
            reason = "peer"
            victim = evictable { $0.peer == peer }
        } else if entries.count >= limits.total {
            reason = "total"
            victim = evictable { _ in true }
        }
        if let reason, victim == nil { return .refused(reason: reason) }
        if let victim { entries[victim] = nil }
        let id = next
        next += 1
        entries[id] = Entry(peer: peer, sequence: id, stage: .reading)
        return .admitted(id: id, evicting: victim, reason: victim == nil ? nil : reason)
    }

    package mutating func set(_ id: Int, _ stage: Stage) {
        entries[id]?.stage = stage
    }

    package mutating func remove(_ id: Int) {
        entries[id] = nil
    }

    /// The connection to give up among those `eligible`: unfinished requests before event
    /// streams, then the peer holding the most connections, then the oldest.
    func evictable(_ eligible: (Entry) -> Bool) -> Int? {
        var held: [String: Int] = [:]
        for entry in entries.values { held[entry.peer, default: 0] += 1 }
        var best: (key: (Int, Int, Int), id: Int)?
        for (id, entry) in entries where entry.stage != .answering && eligible(entry) {
            let key = (entry.stage == .reading ? 0 : 1, -(held[entry.peer] ?? 0), entry.sequence)
            if best == nil || key < best!.key { best = (key, id) }
        }
        return best?.id
    }
}
