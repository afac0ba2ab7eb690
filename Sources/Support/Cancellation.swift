import Synchronization

/// Set once when the task that waits for some blocking work is cancelled, and polled by
/// that work on its plain thread, where `Task.isCancelled` cannot see the task. An
/// export's stages share one; `BlockingWork` hands one to each piece of work.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    /// True once cancelled.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Marks it cancelled (from a task cancellation handler).
    public func cancel() { flag.store(true, ordering: .relaxed) }
}
