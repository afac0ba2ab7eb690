import Foundation
import Logging
internal import NIOCore
import Synchronization

/// The listener's connections as sockets: `ConnectionTable`'s answers applied (a connection
/// given up is closed, a refused one closed at once), counted in the metrics, and said in
/// the journal once per daemon run — the first time — rather than once per connection,
/// which a client opening thousands of them would turn into a flood of its own.
final class HTTPConnections: Sendable {
    private struct State {
        var table: ConnectionTable
        var channels: [Int: any Channel] = [:]
        var warned = false
    }
    private let state: Mutex<State>
    let limits: ConnectionLimits
    private let metrics: DaemonMetrics
    private let logger: Logger
    /// What the descriptor limit was when the caps were set (for the journal).
    private let descriptors: UInt64

    init(limits: ConnectionLimits, descriptors: UInt64, metrics: DaemonMetrics, logger: Logger) {
        self.limits = limits
        self.descriptors = descriptors
        self.metrics = metrics
        self.logger = logger
        state = Mutex(State(table: ConnectionTable(limits: limits)))
    }

    /// Admits `channel` (from `peer`) and returns its id, closing a connection it takes the
    /// place of; nil when it is refused (and closed).
    func admit(_ channel: any Channel, peer: String) -> Int? {
        let (admission, evicted, warn) = state.withLock { state -> (ConnectionTable.Admission, (any Channel)?, Bool) in
            let admission = state.table.admit(peer: peer)
            var evicted: (any Channel)?
            switch admission {
            case let .admitted(id, victim, _):
                state.channels[id] = channel
                if let victim { evicted = state.channels.removeValue(forKey: victim) }
            case .refused: break
            }
            let capped: Bool
            switch admission {
            case .admitted(_, nil, _): capped = false
            default: capped = true
            }
            let warn = capped && !state.warned
            if warn { state.warned = true }
            return (admission, evicted, warn)
        }
        if warn {
            logger.warning("http: connections are being refused: \(limits.total) at once at most (\(limits.perPeer) from one address), \(limits.reserve) of the \(descriptors) descriptors kept for rendering; the oldest unfinished requests are closed for new ones. Said once; dropcut_http_connections_refused_total counts them")
        }
        switch admission {
        case let .admitted(id, _, reason):
            if let evicted {
                metrics.connectionRefused(reason ?? "total")
                evicted.close(promise: nil)
            }
            return id
        case .refused:
            metrics.connectionRefused("refused")
            channel.close(promise: nil)
            return nil
        }
    }

    func set(_ id: Int, _ stage: ConnectionTable.Stage) {
        state.withLock { $0.table.set(id, stage) }
    }

    func remove(_ id: Int) {
        state.withLock { state in
            state.table.remove(id)
            state.channels[id] = nil
        }
    }

    var count: Int { state.withLock { $0.table.count } }
}
