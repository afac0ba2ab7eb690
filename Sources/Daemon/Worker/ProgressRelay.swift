import Synchronization

/// Passes an export's per-frame progress on only when the whole percent changes, so the
/// actor is not called for every frame.
final class ProgressRelay: Sendable {
    private let lastPercent = Atomic<Int>(-1)
    private let send: @Sendable (Double) -> Void

    init(_ send: @escaping @Sendable (Double) -> Void) {
        self.send = send
    }

    func report(_ fraction: Double) {
        let percent = Int(fraction * 100)
        if lastPercent.exchange(percent, ordering: .relaxed) != percent { send(fraction) }
    }
}
