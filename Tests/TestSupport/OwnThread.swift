import Foundation

/// Blocking work awaited without holding a thread of the Swift concurrency pool.
///
/// On Linux the pool has as many threads as cores, and Swift Testing runs every test as a
/// task on it: a test that blocks its thread (waiting for a child process, reading a pipe to
/// its end) keeps that thread from every other test meanwhile, so on a 2-core machine one
/// such wait idles half the machine. `OwnThread.run` moves the blocking call to a thread of
/// its own (not the pool's, not a Dispatch worker) and suspends the calling task until it
/// returns.
public enum OwnThread {
    /// Runs `body` on a new thread and returns (or throws) what it does.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
