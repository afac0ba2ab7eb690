import Foundation
import DropcutRender
import Synchronization

/// The progress of one input's render: the outputs it writes (one, or a deliverable set's
/// videos, which advance together from several threads), shown in one of the `--progress`
/// styles. Called for every frame; writes at most a few times a second (the per-frame
/// path reads the clock and compares under a lock, and allocates nothing).
///
/// - `bar`: one line on standard error, redrawn: `clip.mov [####....] 45% frame=135/300
///   fps=58 speed=1.94x eta=0:00:03`; for several videos each one's percentage, then the
///   figures of the one furthest behind.
/// - `lines`: a line per output per 10 % on standard error, for logs.
/// - `json`: one object per line on standard output, per output at most every half second
///   and when it completes (`ProgressSnapshot.json`); `ended` adds `"progress":"end"` for
///   each file once it is in place.
final class RenderProgress: Sendable {
    enum Style: Sendable, Equatable { case bar, lines, json, none }

    /// An output whose frames are counted.
    struct Output: Sendable {
        /// Shown on the bar and in lines: the file's name.
        var label: String
        /// In JSON: the path it is published at.
        var path: String
        /// Its duration, seconds (its `out_time` at the last frame).
        var duration: Double
    }

    private struct State {
        /// Frames written and to write, by output index; -1: none reported yet.
        var frames: [Int]
        var frameCounts: [Int]
        /// `lines`: the last 10 % step written, by output index.
        var steps: [Int]
        /// `json`: when each output's last object was written.
        var written: [ContinuousClock.Instant?]
        /// `bar`: the next redraw, at the earliest.
        var nextDraw: ContinuousClock.Instant
        var drawn = false
    }

    let style: Style
    private let input: String
    /// By item index: nil for what has no frames to count (posters, captions).
    private let outputs: [Output?]
    private let start = ContinuousClock.now
    private let state: Mutex<State>
    private static let redraw = Duration.milliseconds(250), jsonPeriod = Duration.milliseconds(500)

    init(style: Style, input: String, outputs: [Output?]) {
        self.style = style
        self.input = input
        self.outputs = outputs
        let none = Array(repeating: -1, count: outputs.count)
        state = Mutex(State(frames: none, frameCounts: none, steps: none, written: Array(repeating: nil, count: outputs.count),
                            nextDraw: start))
    }

    /// Output `index` has written `progress.framesWritten` of its frames.
    func update(_ index: Int, _ progress: ExportProgress) {
        guard style != .none, outputs.indices.contains(index), outputs[index] != nil else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            let previous = state.frames[index]
            guard progress.framesWritten > previous || state.frameCounts[index] != progress.frameCount else { return }
            state.frames[index] = progress.framesWritten
            state.frameCounts[index] = progress.frameCount
            let completes = progress.framesWritten >= progress.frameCount && previous < progress.frameCount
            switch style {
            case .bar:
                guard completes || now >= state.nextDraw else { return }
                state.nextDraw = now + Self.redraw
                state.drawn = true
                writeStandardError("\r" + barLine(state, now: now) + "\u{1B}[K")
            case .lines:
                let snapshot = self.snapshot(index, state, now: now)
                let step = Int(snapshot.percent) / 10 * 10
                guard step > state.steps[index], let label = outputs[index]?.label else { return }
                state.steps[index] = step
                writeStandardError("\(label): \(step)% (\(snapshot.statistics))\n")
            case .json:
                guard completes || state.written[index].map({ now - $0 >= Self.jsonPeriod }) ?? true,
                      let output = outputs[index] else { return }
                state.written[index] = now
                writeStandardOutput(snapshot(index, state, now: now).json(input: input, output: output.path, state: "continue") + "\n")
            case .none:
                return
            }
        }
    }

    /// The render is over: ends the redrawn line (` failed` after it when it failed).
    func finish(success: Bool) {
        guard style == .bar, state.withLock({ $0.drawn }) else { return }
        writeStandardError(success ? "\n" : " failed\n")
    }

    /// `json`: the file at `path` — output `index`, or nil for one without frames (a
    /// manifest) — is in place: its last object, `"progress":"end"`, percent 100.
    func ended(_ index: Int?, path: String) {
        guard style == .json else { return }
        let now = ContinuousClock.now
        let line = state.withLock { state -> String in
            if let index, outputs.indices.contains(index), outputs[index] != nil, state.frameCounts[index] >= 0 {
                return snapshot(index, state, now: now).json(input: input, output: path, state: "end")
            }
            return "{\"input\":\(ProbeReport.quote(input)),\"output\":\(ProbeReport.quote(path)),\"percent\":100,\"progress\":\"end\"}"
        }
        writeStandardOutput(line + "\n")
    }

    /// `json`: the render of `input` failed with `message` (also on standard error).
    static func failed(input: String, message: String) {
        writeStandardOutput("{\"input\":\(ProbeReport.quote(input)),\"progress\":\"failed\",\"error\":\(ProbeReport.quote(message))}\n")
    }

    private func snapshot(_ index: Int, _ state: State, now: ContinuousClock.Instant) -> ProgressSnapshot {
        let elapsed = (now - start) / .seconds(1)
        return ProgressSnapshot(frame: Swift.max(0, state.frames[index]), frames: Swift.max(0, state.frameCounts[index]),
                                duration: outputs[index]?.duration ?? 0, elapsed: elapsed)
    }

    /// The bar: one output's, or every video's percentage and the figures of the slowest
    /// one that has begun (one that has not shows 0 %).
    private func barLine(_ state: State, now: ContinuousClock.Instant) -> String {
        let counted = outputs.indices.filter { outputs[$0] != nil }
        let begun = counted.filter { state.frameCounts[$0] >= 0 }
        guard let slowest = begun.min(by: { snapshot($0, state, now: now).fraction < snapshot($1, state, now: now).fraction }) else {
            return ""
        }
        let figures = snapshot(slowest, state, now: now)
        if counted.count == 1, let output = outputs[slowest] {
            let width = 30, filled = Int(figures.fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            return "\(output.label) [\(bar)] \(ProgressSnapshot.decimal(figures.percent.rounded(.down), places: 0))% \(figures.statistics)"
        }
        let parts = counted.compactMap { index in
            outputs[index].map { "\($0.label) \(state.frameCounts[index] < 0 ? 0 : Int(snapshot(index, state, now: now).percent))%" }
        }
        return parts.joined(separator: " · ") + " · " + figures.statistics
    }
}
