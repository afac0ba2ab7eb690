import DropcutMediaIO
import DropcutTimeline

/// Why an export stopped, besides the `FFmpegError`s of reading and writing media.
public enum ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The export was cancelled; the partial file was removed.
    case cancelled
    /// The composition or video composition does not validate.
    case invalidComposition([String])
    /// A video track decoded to no frames at all.
    case noFrames(path: String, trackID: TrackID)

    public var description: String {
        switch self {
        case .cancelled: return "export cancelled"
        case let .invalidComposition(problems): return "invalid composition: " + problems.joined(separator: "; ")
        case let .noFrames(path, trackID): return "\(path): track \(trackID) has no decodable video frames"
        }
    }
}
