import DropcutTimeline

/// A subtitle file, by its format: what a caption source names.
public enum SubtitleFormat: String, Sendable, Hashable, CaseIterable {
    case subRip = "srt"
    case webVTT = "vtt"

    /// The format a file name's extension says (any letter case), or nil.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        self.init(rawValue: fileName[fileName.index(after: dot)...].lowercased())
    }

    /// Reads `bytes` in this format; `path` names the file in errors and warnings. Throws
    /// only for what the format's rules refuse as a whole (WebVTT: a first line that is
    /// not the signature) and for the limits (`SubtitleLimits`); what they skip is skipped
    /// and said in the document's warnings.
    public func read(_ bytes: [UInt8], path: String) throws(SubtitleError) -> SubtitleDocument {
        switch self {
        case .subRip: try SubRipParser.read(bytes, path: path)
        case .webVTT: try WebVTTParser.read(bytes, path: path)
        }
    }
}
