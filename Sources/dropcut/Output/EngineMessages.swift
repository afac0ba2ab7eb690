import Logging
import DropcutPipeline
import Synchronization

/// Where the engine's log messages go during `dropcut render`. FFmpeg's own lines
/// (`component: ffmpeg`, routed by `EngineLog`) are held back, so they never come before
/// dropcut's message about a bad input: a failed render shows them after its message as
/// `  detail:` lines (`heldLines`), a good one drops them. With `--verbose` they are
/// written as they come, with FFmpeg's warnings too. dropcut's own warnings (damage
/// concealed) are written as they come, except with `--quiet`.
final class EngineMessages: Sendable {
    /// At most this many FFmpeg lines are kept for one input (the first ones: the cause).
    static let keptLines = 20

    private let verbose: Bool
    private let quiet: Bool
    private let held = Mutex<[String]>([])

    init(verbose: Bool, quiet: Bool) {
        self.verbose = verbose
        self.quiet = quiet
    }

    /// Routes FFmpeg's messages here and returns the logger the render logs to.
    func install() -> Logger {
        var logger = Logger(label: "dropcut") { _ in Handler(messages: self) }
        logger.logLevel = verbose ? .info : quiet ? .error : .warning
        EngineLog.route(to: logger, level: verbose ? .warning : .error)
        return logger
    }

    /// FFmpeg's lines held back since the last call, as `  detail: ...` lines (empty when
    /// none), and forgets them.
    func heldLines() -> String {
        let lines = held.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
        return lines.map { "\n  detail: ffmpeg: \($0)" }.joined()
    }

    fileprivate func receive(_ event: LogEvent) {
        let text = event.message.description
        guard case .string("ffmpeg")? = event.metadata?["component"] else {
            printError("dropcut: \(event.level): \(text)")
            return
        }
        if verbose {
            printError("ffmpeg: \(text)")
        } else {
            held.withLock { lines in
                if lines.count < Self.keptLines { lines.append(text) }
            }
        }
    }

    private struct Handler: LogHandler {
        let messages: EngineMessages
        var logLevel: Logger.Level = .warning
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            messages.receive(event)
        }
    }
}
