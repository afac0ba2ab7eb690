/// File names that must fit a directory entry: Linux filesystems allow 255 bytes
/// (NAME_MAX), and anyone may drop a clip whose name already uses them all. Every name
/// dropcut derives from a clip's — outputs, temporary files, error files — is cut here.
public enum FileName {
    /// NAME_MAX on Linux filesystems.
    public static let maximumBytes = 255

    /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends on a whole
    /// character.
    public static func truncated(_ text: String, toBytes bytes: Int) -> String {
        var result = "", used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// `name` followed by `suffix`, `name` shortened so the whole fits `maximumBytes`.
    public static func fitting(_ name: String, suffix: String) -> String {
        truncated(name, toBytes: maximumBytes - suffix.utf8.count) + suffix
    }

    /// `.<name><suffix>`: a hidden temporary name beside `name`, `name` shortened so the
    /// whole fits `maximumBytes`.
    public static func hidden(_ name: String, suffix: String) -> String {
        "." + truncated(name, toBytes: maximumBytes - 1 - suffix.utf8.count) + suffix
    }

    /// `name` itself when it fits, else its stem shortened, its extension kept (the
    /// extension picks the container).
    public static func fitting(_ name: String) -> String {
        guard name.utf8.count > maximumBytes else { return name }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return truncated(name, toBytes: maximumBytes) }
        return fitting(String(name[..<dot]), suffix: String(name[dot...]))
    }
}
