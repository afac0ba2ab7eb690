import Synchronization

/// A stop asked for from outside the actor (signal handlers, graceful shutdown).
final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    var isRequested: Bool { requested.load(ordering: .acquiring) }
    func request() { requested.store(true, ordering: .releasing) }
}
