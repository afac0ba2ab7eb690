/// The formats a poster (a still picture of the output) is written in, by file extension.
public enum PictureFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG (libavcodec's mjpeg encoder, full-range 4:2:0).
    case jpeg
    /// PNG (RGB, 8 bits a channel).
    case png
    /// WebP (libwebp, lossy).
    case webp

    /// The extensions, in the order messages list them.
    public static let extensions = ["jpg", "jpeg", "png", "webp"]

    /// The format for a file name's extension (any letter case), or nil.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }

    /// `.jpg, .jpeg, .png or .webp`, for messages.
    public static var extensionList: String {
        let dotted = extensions.map { "." + $0 }
        return dotted.dropLast().joined(separator: ", ") + " or " + (dotted.last ?? "")
    }
}
