import Synchronization
import Testing
@testable import DropcutDaemon

/// The gate in front of thumbnail decoding: never more holders than its limit, and every
/// waiter gets its turn.
@Suite struct AsyncGateTests {
    final class Tally: Sendable {
        let counts = Mutex<(inside: Int, most: Int, done: Int)>((0, 0, 0))
        func enter() { counts.withLock { $0.inside += 1; $0.most = max($0.most, $0.inside) } }
        func leave() { counts.withLock { $0.inside -= 1; $0.done += 1 } }
    }

    @Test func neverMoreThanTheLimitAtOnce() async throws {
        let gate = AsyncGate(limit: 2)
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await gate.run {
                        tally.enter()
                        try await Task.sleep(for: .milliseconds(2))
                        tally.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        let counts = tally.counts.withLock { $0 }
        #expect(counts.done == 40)
        #expect(counts.most == 2, "the gate let \(counts.most) in at once")
    }
}
