import Foundation
import Logging
import DropcutPipeline
import DropcutSupport

/// The scheduler's bookkeeping of a coordinator's picks (`CoordinatorWork`): the worker
/// slots a pick holds while it is in flight, and what it left.
extension Scheduler {
    /// The key of a worker slot a pick of `folder` holds in `jobs` until its job starts (a
    /// NUL cannot be in a name: no collision with a job id or a claim key).
    nonisolated func pickKey(_ folder: String, _ slot: Int) -> String {
        "pick\u{0}\(folder)\u{0}\(slot)"
    }

    /// A pick came back with `taken` jobs: the slots it did not fill are free again, for
    /// the next poll (not at once: a pick that found nothing, woken again at once, would
    /// ask the coordinator in a loop).
    func picked(_ folder: FolderConfig, slots: Int, taken: Int) {
        for slot in taken..<max(taken, slots) { jobs[pickKey(folder.name, slot)] = nil }
    }
}
