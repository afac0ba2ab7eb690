internal import CDropcutFFmpeg
import Foundation
import Logging
import Synchronization

/// Where FFmpeg's own messages (`av_log`) go: by default FFmpeg prints them to stderr,
/// which would interleave with dropcut's output and bypass the daemon's journal. After
/// `route(to:)`, messages at or above the chosen level become swift-log messages on the
/// given logger, tagged `component: ffmpeg` (the text keeps FFmpeg's `[h264 @ 0x...]` prefix).
package enum FFmpegLog {
    private static let destination = Mutex<Logger?>(nil)

    /// Sends FFmpeg's messages of `level` and above (`.error` by default: FFmpeg's
    /// warnings are mostly about the input's quirks, which it handles) to `logger`.
    package static func route(to logger: Logger, level: Logger.Level = .error) {
        destination.withLock { $0 = logger }
        av_log_set_level(Self.ffmpegLevel(level))
        av_log_set_callback { context, level, format, arguments in
            guard level <= av_log_get_level(), let format, let arguments else { return }
            var line = [CChar](repeating: 0, count: 1024)
            var printPrefix: Int32 = 1
            av_log_format_line2(context, level, format, arguments, &line, Int32(line.count), &printPrefix)
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { return }
            FFmpegLog.destination.withLock { logger in
                logger?.log(level: FFmpegLog.swiftLogLevel(level), "\(text)", metadata: ["component": "ffmpeg"])
            }
        }
    }

    /// Logs a warning of dropcut's own about what FFmpeg met (damage concealed) where
    /// FFmpeg's messages go; nothing when they are not routed.
    static func warning(_ message: String, metadata: Logger.Metadata = [:]) {
        destination.withLock { logger in logger?.warning("\(message)", metadata: metadata) }
    }

    static func ffmpegLevel(_ level: Logger.Level) -> Int32 {
        switch level {
        case .trace: return AV_LOG_TRACE
        case .debug: return AV_LOG_DEBUG
        case .info, .notice: return AV_LOG_INFO
        case .warning: return AV_LOG_WARNING
        case .error: return AV_LOG_ERROR
        case .critical: return AV_LOG_FATAL
        }
    }

    static func swiftLogLevel(_ level: Int32) -> Logger.Level {
        switch level {
        case ...AV_LOG_FATAL: return .critical
        case ...AV_LOG_ERROR: return .error
        case ...AV_LOG_WARNING: return .warning
        case ...AV_LOG_INFO: return .info
        case ...AV_LOG_DEBUG: return .debug
        default: return .trace
        }
    }
}
