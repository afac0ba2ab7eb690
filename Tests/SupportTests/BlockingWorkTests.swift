import Foundation
import DropcutSupport
import Testing

@Suite struct BlockingWorkTests {
    /// The work runs on its own named thread, not on the cooperative pool.
    /// (The kernel's name for the thread is read back: a name it refused would leave the
    /// creating pool thread's name in place.)
    @Test func runsOnAThreadOfItsOwn() async throws {
        @Sendable func kernelName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .newlines)
        }
        #expect(try await BlockingWork.run("dropcut-work") { _ in kernelName() } == "dropcut-work")
        // Cut to the 15 bytes Linux keeps, rather than silently not named at all.
        #expect(try await BlockingWork.run("dropcut-a-much-longer-name") { _ in kernelName() } == "dropcut-a-much-")
    }

    /// Cancelling the waiting task reaches work already running on its thread.
    @Test func cancellationReachesRunningWork() async throws {
        let running = AsyncStream<Void>.makeStream()
        let task = Task {
            try await BlockingWork.run("dropcut-test-wait") { cancellation -> Bool in
                running.continuation.yield()
                // Bounded from the work's own start (the suite may keep the pool busy
                // for a while before it runs): fails rather than hangs without a cancel.
                let started = ContinuousClock.now
                while !cancellation.isCancelled && ContinuousClock.now - started < .seconds(60) { usleep(1000) }
                return cancellation.isCancelled
            }
        }
        var iterator = running.stream.makeAsyncIterator()
        _ = await iterator.next()   // the work is running on its thread
        task.cancel()
        #expect(try await task.value)
    }

    @Test func errorsComeBackToTheCaller() async {
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await BlockingWork.run("dropcut-test-fail") { _ in throw Failure() } }
    }
}
