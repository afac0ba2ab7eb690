import Foundation
import DropcutRender
import Synchronization

/// The progress of a deliverable set's videos on standard error. The videos of one decode
/// advance together, from several threads, so on a terminal they share one redrawn line
/// (`vertical.mp4 45% · square.mp4 44% · ...`) rather than bars overwriting each other;
/// otherwise a line per video per 10 %, as `ProgressBar` writes.
final class DeliverablesProgress: Sendable {
    /// The videos' file names, by item index (nil: not a video).
    private let labels: [String?]
    private let isTerminal = isatty(2) == 1
    /// Each item's last percentage (terminal) or 10 % step (log) shown; -1: none yet.
    private let shown: Mutex<[Int]>

    init(labels: [String?]) {
        self.labels = labels
        shown = Mutex(Array(repeating: -1, count: labels.count))
    }

    func update(_ index: Int, _ progress: ExportProgress) {
        let percent = Int(progress.fraction * 100)
        shown.withLock { shown in
            if isTerminal {
                guard percent != shown[index] else { return }
                shown[index] = percent
                let parts = labels.indices.compactMap { i in
                    labels[i].map { "\($0) \(Swift.max(0, shown[i]))%" }
                }
                writeStandardError("\r" + parts.joined(separator: " · ") + "\u{1B}[K")
            } else {
                let step = percent / 10 * 10
                guard step > shown[index], let label = labels[index] else { return }
                shown[index] = step
                writeStandardError("\(label): \(step)% (\(progress.framesWritten)/\(progress.frameCount) frames)\n")
            }
        }
    }

    func finish(success: Bool) {
        if isTerminal && shown.withLock({ $0.contains { $0 >= 0 } }) { writeStandardError(success ? "\n" : " failed\n") }
    }
}
