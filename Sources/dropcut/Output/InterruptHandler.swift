import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into task cancellation, so an interrupted render removes its
/// partial file instead of dying with it on disk. A signal that arrives between renders
/// (while probing, say) is remembered: the next render is cancelled as it starts.
final class InterruptHandler: Sendable {
    private struct State {
        var action: (@Sendable () -> Void)?
        var interrupted = false
    }
    private let state = Mutex(State())
    /// Kept alive for the handler's life; only touched in `init`.
    nonisolated(unsafe) private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let action = self.state.withLock { state in
                    state.interrupted = true
                    return state.action
                }
                action?()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True once a signal has arrived.
    var wasInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Runs `action` on the next signal — at once if one has already arrived.
    func onInterrupt(_ action: (@Sendable () -> Void)?) {
        let already = state.withLock { state in
            state.action = action
            return state.interrupted
        }
        if already { action?() }
    }
}
