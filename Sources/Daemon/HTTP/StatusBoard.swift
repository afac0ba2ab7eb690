import Foundation
import Synchronization

/// The daemon's latest status for the listener: the scheduler posts each status it
/// publishes; the event stream (`/api/v1/events`) sends each new one.
package final class StatusBoard: Sendable {
    private let state = Mutex<(generation: Int, status: DaemonStatus?)>((0, nil))

    package init() {}

    package func post(_ status: DaemonStatus) {
        state.withLock { $0 = ($0.generation + 1, status) }
    }

    /// The latest status and its generation (one more at each post).
    package var latest: (generation: Int, status: DaemonStatus?) {
        state.withLock { $0 }
    }
}
