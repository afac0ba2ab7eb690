import Foundation
import DropcutRender
import Synchronization

/// Progress on standard error: a redrawn bar on a terminal, a line per 10 % otherwise.
final class ProgressBar: Sendable {
    private let label: String
    private let isTerminal = isatty(2) == 1
    /// The last percentage (terminal) or 10 % step (log) shown.
    private let lastShown = Mutex(-1)

    init(label: String) {
        self.label = label
    }

    func update(_ progress: ExportProgress) {
        let percent = Int(progress.fraction * 100)
        lastShown.withLock { lastShown in
            if isTerminal {
                guard percent != lastShown else { return }
                lastShown = percent
                let width = 30, filled = width * percent / 100
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                writeStandardError("\r\(label) [\(bar)] \(percent)% \(progress.framesWritten)/\(progress.frameCount) frames")
            } else {
                let step = percent / 10 * 10
                guard step > lastShown else { return }
                lastShown = step
                writeStandardError("\(label): \(step)% (\(progress.framesWritten)/\(progress.frameCount) frames)\n")
            }
        }
    }

    func finish(success: Bool) {
        if isTerminal && lastShown.withLock({ $0 }) >= 0 { writeStandardError(success ? "\n" : " failed\n") }
    }
}
