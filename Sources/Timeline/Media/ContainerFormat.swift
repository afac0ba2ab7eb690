/// The containers dropcut writes, chosen by the output file's extension: the one list that
/// recipe validation and the muxer both read, so a name the recipe accepts is always one
/// the muxer can write.
package enum ContainerFormat: String, Sendable, Hashable, CaseIterable {
    /// MPEG-4 (`.mp4`, `.m4v`).
    case mp4
    /// QuickTime (`.mov`).
    case mov

    /// The extensions dropcut writes, in the order messages list them.
    package static let extensions = ["mp4", "mov", "m4v"]

    /// The container for a file name's extension (any letter case), or nil when dropcut
    /// does not write it. `.m4v` is plain MP4: the iPod variant refuses HEVC.
    package init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "mp4", "m4v": self = .mp4
        case "mov": self = .mov
        default: return nil
        }
    }

    /// The container for a path's extension (the part after the last dot of its last
    /// component, which must not start with it), or nil.
    package init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(pathExtension: String(name[name.index(after: dot)...]))
    }

    /// `.mp4, .mov or .m4v`, for messages.
    package static var extensionList: String {
        let dotted = extensions.map { "." + $0 }
        return dotted.dropLast().joined(separator: ", ") + " or " + (dotted.last ?? "")
    }
}
