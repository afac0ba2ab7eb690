import Foundation
import Synchronization

/// Writes a worker's events to the daemon; progress at most every 1/200 of the render or
/// 250 ms, whichever is rarer, so the pipe carries a few hundred lines per job.
final class WorkerEventSink: Sendable {
    private let descriptor: Int32
    private let last = Mutex<(fraction: Double, at: ContinuousClock.Instant)>((-1, .now))

    init(descriptor: Int32) { self.descriptor = descriptor }

    func send(_ event: WorkerEvent) {
        let line = event.line
        // One write per line (a pipe write of up to PIPE_BUF bytes is atomic; longer ones
        // are still written whole by this one writer). A daemon that is gone: nothing to do.
        line.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written < 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }

    func progress(_ fraction: Double) {
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard fraction - last.fraction >= 0.005 && now - last.at >= .milliseconds(250) || fraction >= 1 && last.fraction < 1 else { return false }
            last = (fraction, now)
            return true
        }
        if due { send(.progress(fraction)) }
    }
}
