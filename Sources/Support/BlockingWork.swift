import Foundation

/// Runs blocking work — probing, measuring sound, fsync, copies across filesystems — on a
/// thread of its own, so it never occupies one of the few threads of Swift's cooperative
/// pool (on 2 cores, two jobs blocking there would starve the daemon's watchdog pings).
///
/// Cancelling the awaiting task sets the `Cancellation` the work is handed; the work
/// polls it (`Task.isCancelled` cannot see the task from a plain thread).
public enum BlockingWork {
    /// Runs `body` on a new thread named `name` and returns its result. Linux keeps 15
    /// bytes of a thread's name (what `top -H` and core dumps show): longer names are cut.
    public static func run<T: Sendable>(_ name: String,
                                        _ body: @escaping @Sendable (Cancellation) throws -> T) async throws -> T {
        let cancellation = Cancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                do {
                    try DetachedThread.start(name) { continuation.resume(with: Result { try body(cancellation) }) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
