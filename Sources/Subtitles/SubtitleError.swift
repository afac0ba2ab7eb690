/// Why a subtitle file (SRT or WebVTT) could not be read: the file as named to the user,
/// the line (counting from 1; 0 for the file as a whole) and the cause in words, so the
/// message alone says where to look: `talk.srt:12: the end 00:00:03,000 is before the start`.
public struct SubtitleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var reason: String

    public init(path: String, line: Int, reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }

    public var description: String {
        line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)"
    }
}
