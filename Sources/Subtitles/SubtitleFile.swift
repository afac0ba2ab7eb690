import Timeline

/// A subtitle file, by its format: what a caption source names.
public enum SubtitleFormat: String, Sendable, Hashable, CaseIterable {
    case subRip = "srt"
    case webVTT = "vtt"

    /// The format a file name's extension says (any letter case), or nil.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
    }

    /// The cues of `bytes` in this format; `path` names the file in errors.
    public func parse(_ bytes: [UInt8], path: String) throws(SubtitleError) -> [CaptionCue] {
        switch self {
        case .subRip: try SubRipParser.parse(bytes, path: path)
        case .webVTT: try WebVTTParser.parse(bytes, path: path)
        }
    }
}
