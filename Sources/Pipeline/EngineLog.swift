import Logging
import DropcutMediaIO

/// Where the media libraries' own messages go. FFmpeg prints to stderr unless told
/// otherwise, which would interleave with dropcut's output and bypass the journal; a front
/// end routes them once at start, without importing the engine.
public enum EngineLog {
    /// Sends FFmpeg's messages of `level` and above to `logger`, tagged
    /// `component: ffmpeg`. `.error` by default: FFmpeg's warnings are mostly about an
    /// input's quirks, which it handles.
    public static func route(to logger: Logger, level: Logger.Level = .error) {
        FFmpegLog.route(to: logger, level: level)
    }
}
