import Foundation
import DropcutSupport
import Testing

@Suite struct BoundedQueueTests {
    @Test func deliversInOrderAcrossThreads() {
        let queue = BoundedQueue<Int>(capacity: 3)
        let producer = Thread { for i in 0..<1000 { queue.put(i) } }
        producer.start()
        var received: [Int] = []
        for _ in 0..<1000 { if let value = queue.take() { received.append(value) } }
        #expect(received == Array(0..<1000))
    }

    @Test func closeWakesABlockedTakerAndRefusesPuts() {
        let queue = BoundedQueue<Int>(capacity: 1)
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        let taker = Thread {
            result.value = queue.take()
            done.signal()
        }
        taker.start()
        Thread.sleep(forTimeInterval: 0.05)
        queue.close()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(result.value == nil)
        #expect(queue.put(1) == false)
    }

    final class ResultBox: @unchecked Sendable { var value: Int? = -1 }
}
