import DropcutMediaIO

/// Why a clip could not be analysed for `fit: smart`.
public enum SubjectAnalysisError: Error, CustomStringConvertible {
    /// OpenCV's detector could not be made (its model file is missing or unreadable).
    case detectorMissing(String)
    /// OpenCV failed on a picture (what it was looking for).
    case detectorFailed(String)
    /// The clip's video could not be read.
    case media(FFmpegError)

    public var description: String {
        switch self {
        case let .detectorMissing(reason): return "the subject detector is not available: \(reason)"
        case let .detectorFailed(what): return "OpenCV failed while looking for \(what)"
        case let .media(error): return "\(error)"
        }
    }
}
