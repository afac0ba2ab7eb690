import Foundation

/// An MP4 file played in a real headless Chromium: a player is an oracle independent of
/// FFmpeg, and a stricter one about what copied and re-encoded pieces joined into one file
/// must agree on (one avcC for every SPS/PPS the packets name, edit lists, timestamps at
/// the joins). ffmpeg decodes many files a browser refuses.
///
/// `chromium_playback.py` beside this file does the work: it serves the file over
/// loopback HTTP with byte ranges, drives Chromium through `chromium_cdp.py` (the status
/// page test's driver), plays the file to `ended` at 16x, then seeks to each time and waits
/// for a presented frame (`requestVideoFrameCallback`). By hand:
/// `python3 Tests/TestSupport/chromium_playback.py out.mp4 1 2.5`.
public enum ChromiumPlayback {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("chromium_playback.py").path

    /// Plays `file` to its end, then seeks to each of `seekTimes` (seconds) in turn and
    /// reports what the browser did. A file that does not play is a report saying so;
    /// throws only when the check itself could not run (no python3 or Chromium, the
    /// browser closing, an unreadable answer).
    public static func check(file: String, seekTimes: [Double]) throws -> PlaybackReport {
        let result = try Command.run("python3", [script, file] + seekTimes.map { "\($0)" })
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw CommandError(command: ["python3", script, file], status: result.status,
                               stderr: "no report: \(result.stdout) \(result.stderr)")
        }
        if let driverError = object["driverError"] as? String {
            throw CommandError(command: ["python3", script, file], status: result.status,
                               stderr: "the browser could not be driven: \(driverError)")
        }
        return PlaybackReport(object)
    }

    /// `check`, awaited: Chromium runs and is waited for on a thread of its own
    /// (`OwnThread`), leaving the calling task's pool thread to other tests meanwhile.
    public static func check(file: String, seekTimes: [Double]) async throws -> PlaybackReport {
        try await OwnThread.run { try check(file: file, seekTimes: seekTimes) }
    }
}

/// What Chromium did with a file (`ChromiumPlayback.check`).
public struct PlaybackReport: Sendable, CustomStringConvertible {
    /// One seek: whether a frame was presented after it within 10 s, and that frame's
    /// presentation time (the frame shown at the seek time: at or just before it).
    public struct Seek: Sendable {
        public var time: Double
        public var fired: Bool
        public var mediaTime: Double?
        public var presentedFrames: Int?
    }

    /// A `MediaError` of the video element: code 3 is a decode error, 4 a file the
    /// browser would not open (`video.error.message` says more).
    public struct MediaError: Sendable {
        public var code: Int
        public var message: String
    }

    /// Whether playback at 16x reached `ended` within 60 s plus 2 s per second of the file.
    public var reachedEnded: Bool
    /// The element's `duration` once its metadata loaded; nil when it never did.
    public var duration: Double?
    public var seeks: [Seek]
    public var errors: [MediaError]

    /// The file played to its end without an error and every seek showed a frame.
    public var playedCleanly: Bool {
        reachedEnded && errors.isEmpty && seeks.allSatisfy(\.fired)
    }

    init(_ object: [String: Any]) {
        reachedEnded = object["reachedEnded"] as? Bool ?? false
        duration = (object["duration"] as? NSNumber)?.doubleValue
        seeks = (object["seeks"] as? [[String: Any]] ?? []).map { seek in
            Seek(time: (seek["time"] as? NSNumber)?.doubleValue ?? .nan, fired: seek["fired"] as? Bool ?? false,
                 mediaTime: (seek["mediaTime"] as? NSNumber)?.doubleValue,
                 presentedFrames: (seek["presentedFrames"] as? NSNumber)?.intValue)
        }
        errors = (object["errors"] as? [[String: Any]] ?? []).map { error in
            MediaError(code: (error["code"] as? NSNumber)?.intValue ?? 0, message: error["message"] as? String ?? "")
        }
    }

    public var description: String {
        let seekText = seeks.map { seek in
            seek.fired ? "\(seek.time) s → frame at \(seek.mediaTime.map { "\($0)" } ?? "?") s" : "\(seek.time) s → no frame"
        }
        let errorText = errors.map { "code \($0.code): \($0.message)" }
        return "ended: \(reachedEnded), duration: \(duration.map { "\($0)" } ?? "unknown"), seeks: [\(seekText.joined(separator: ", "))], errors: [\(errorText.joined(separator: "; "))]"
    }
}
