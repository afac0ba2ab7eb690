import Foundation

/// A first-in first-out queue between two threads that holds at most `capacity`
/// elements: `put` waits while it is full, `take` while it is empty, so the faster stage
/// waits for the slower instead of piling up frames. `close()` wakes both sides: after
/// it, `put` drops and `take` returns nil, which is how cancellation reaches a stage
/// blocked in the queue.
// @unchecked: waiting needs a condition variable (NSCondition), which Mutex does not offer.
package final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element?]
    private var head = 0, count = 0
    private var closed = false
    package let capacity: Int

    package init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        items = Array(repeating: nil, count: capacity)   // a ring: no allocation per element
    }

    /// Appends `element`, waiting for room; returns false (dropping it) once closed.
    @discardableResult
    package func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items[(head + count) % capacity] = element
        count += 1
        condition.broadcast()
        return true
    }

    /// The oldest element, waiting for one; nil once closed.
    package func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard !closed else { return nil }
        let element = items[head]
        items[head] = nil
        head = (head + 1) % capacity
        count -= 1
        condition.broadcast()
        return element
    }

    /// Wakes every waiter; from now on nothing goes in or comes out.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
