import Synchronization

/// Lets the scheduler sleep until its next poll unless something happens sooner (a job
/// finished, inotify saw a new file, a reload, shutdown). A signal while nobody waits is
/// kept, so it is never lost between a check and the wait.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
        var nextID = 0
        /// A timeout that fired before its waiter was registered (a busy machine can
        /// delay the registration past a short timeout): the wait returns at once.
        var expiredEarly: Int?
    }

    private let state = Mutex(State())

    /// Wakes the current or next `wait`.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        // Resumed outside the lock: the waiter's task may run (and call in again) at once.
        waiter?.resume()
    }

    /// Resumes the waiter `id` if it is still waiting.
    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter, waiter.id == id else {
                if state.nextID == id { state.expiredEarly = id }   // not registered yet
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns after `timeout` or at the first `signal`, whichever comes first.
    func wait(timeout: Duration) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let signalled = state.withLock { state in
                if state.pending || state.expiredEarly == id {
                    state.pending = false
                    state.expiredEarly = nil
                    return true
                }
                state.waiter = (id, continuation)
                return false
            }
            if signalled { continuation.resume() }
        }
        timer.cancel()
    }
}
