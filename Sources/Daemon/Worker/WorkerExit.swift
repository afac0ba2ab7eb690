import Foundation

/// How a worker process ended, and what that means for its job's attempt.
struct WorkerExit: Sendable {
    /// Why the daemon stopped a worker.
    enum Stop: Sendable, Equatable {
        case timedOut(after: Duration, limit: Duration)
        case cancelled
    }

    /// The exit status, or nil when a signal ended it.
    var status: Int32?
    var signal: Int32?
    var stoppedBy: Stop?
    var elapsed: Duration
    /// The last event it sent that ends a job (finished or failed).
    var outcome: WorkerEvent?
    /// Whether it had started writing its output (sent `rendering`).
    var wasRendering: Bool
    /// The first lines it wrote to stderr (a trap's message, then its backtrace).
    var stderr: String

    /// The failure this exit is for the job: nil when the worker rendered the output and
    /// said so. A worker that crashed, was killed or overran a limit fails the attempt as
    /// a transient failure (retried up to the folder's `retries`, then failed/: a poison
    /// file cannot loop); one that reported a failure fails as it said.
    func failure(limits: WorkerLimits) -> JobFailure? {
        if stoppedBy == nil, status == 0, case .finished? = outcome { return nil }
        if stoppedBy == nil, status == 1, case let .failed(transient, reason, code, _)? = outcome {
            // Out of memory (or of room for a thread's stack) under a memory limit.
            if code == ENOMEM || code == EAGAIN, let bytes = limits.memoryBytes {
                return .transient("\(reason): the worker reached its memory limit (memory_limit: \(WorkerLimits.describe(bytes: bytes)))", errno: code)
            }
            return transient ? .transient(reason, errno: code) : .permanent(reason, errno: code)
        }
        return .transient(summary(limits: limits), errno: nil)
    }

    /// Whether the worker failed saying the clip ends before its own index says it should.
    var reportedIncompleteFile: Bool {
        if stoppedBy == nil, case .failed(_, _, _, true?)? = outcome { return true }
        return false
    }

    /// What happened, for the attempt's line in the error file ("killed by signal 11
    /// (SIGSEGV) after 3.1 s while rendering").
    func summary(limits: WorkerLimits) -> String {
        let when = "after \(String(format: "%.1f", elapsed.seconds)) s while \(wasRendering ? "rendering" : "preparing (reading the recipe, probing the media)")"
        switch stoppedBy {
        case let .timedOut(_, limit)?:
            return "stopped \(when): it ran past its time limit of \(String(format: "%.0f", limit.seconds)) s"
                + " (job_timeout: \(String(format: "%g", limits.timeoutFactor))x the clip's duration, at least \(String(format: "%g", limits.timeoutMinimumSeconds)) s)"
        case .cancelled?:
            return "stopped \(when): cancelled by shutdown"
        case nil:
            break
        }
        var text: String
        if let signal {
            text = "killed by signal \(signal) (\(Self.name(ofSignal: signal))) \(when)"
            if signal == SIGXCPU, let cpu = limits.cpuSeconds { text += ": it used up its CPU time limit (cpu_limit: \(cpu) s)" }
        } else {
            text = "the worker exited with status \(status ?? -1) \(when) without saying why"
        }
        if let bytes = limits.memoryBytes, Self.ranOutOfMemory(stderr) {
            text += ": it reached its memory limit (memory_limit: \(WorkerLimits.describe(bytes: bytes)))"
        }
        if let words = lastWords { text += "; it said: \(words)" }
        return text
    }

    /// What the worker said about its end: a Swift trap's "Fatal error" line, a crash
    /// report's first line, or else its last line on stderr; cut to a readable length.
    var lastWords: String? {
        let lines = stderr.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        guard let line = lines.first(where: { $0.contains("Fatal error") }) ?? lines.first(where: { $0.contains("crashed") }) ?? lines.last
        else { return nil }
        let cut = line.trimmingCharacters(in: .whitespaces).prefix(300)
        return String(cut) + (cut.count < line.count ? "…" : "")
    }

    /// Whether stderr says an allocation failed (Swift's runtime, glibc, FFmpeg).
    /// Why a worker that ended without a result ended, as `dropcut_worker_deaths_total`
    /// labels it: `timeout`, `cancelled`, `memory`, the signal's name, or `exit`.
    var deathCause: String {
        switch stoppedBy {
        case .timedOut?: return "timeout"
        case .cancelled?: return "cancelled"
        case nil: break
        }
        if Self.ranOutOfMemory(stderr) { return "memory" }
        if let signal { return Self.name(ofSignal: signal) }
        return "exit"
    }

    static func ranOutOfMemory(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["could not allocate", "cannot allocate memory", "out of memory", "failed to allocate", "bad_alloc"]
            .contains { lower.contains($0) }
    }


    /// The usual name of a signal (`SIGSEGV`), for error files and logs.
    static func name(ofSignal signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
