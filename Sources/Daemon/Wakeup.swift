import Foundation

/// Lets the scheduler sleep until its next poll unless something happens sooner (a job
/// finished, inotify saw a new file, a reload, shutdown). A signal while nobody waits is
/// kept, so it is never lost between a check and the wait.
final class Wakeup: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextID = 0

    /// Wakes the current or next `wait`.
    func signal() {
        lock.lock()
        guard let waiter else {
            pending = true
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.continuation.resume()
    }

    /// Resumes the waiter `id` if it is still waiting.
    private func expire(_ id: Int) {
        lock.lock()
        guard let waiter, waiter.id == id else {
            lock.unlock()
            return
        }
        self.waiter = nil
        lock.unlock()
        waiter.continuation.resume()
    }

    /// Returns after `timeout` or at the first `signal`, whichever comes first.
    func wait(timeout: Duration) async {
        let id: Int = lock.withLock {
            nextID += 1
            return nextID
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if pending {
                pending = false
                lock.unlock()
                continuation.resume()
                return
            }
            waiter = (id, continuation)
            lock.unlock()
        }
        timer.cancel()
    }
}
