import Foundation

/// Files dropped beside a clip that belong to it: `<stem>.AAE`, `<stem>.srt`, `<stem>.vtt`,
/// found by listing the clip's folder (the letter case of the name is unknown and the file
/// system may be case-sensitive).
enum SidecarFile {
    /// The regular file beside `input` named `<stem>.<ext>` for one of `extensions`
    /// (lower case; the file's extension may be in any case). A stem that matches exactly
    /// is preferred to one that differs only in letter case (`CLIP.aae` for `clip.mov`, as
    /// copies through case-insensitive file systems produce), then an earlier extension of
    /// `extensions`, then the name, so the choice is deterministic. Nil when there is none
    /// or the folder cannot be listed.
    static func path(besides input: String, extensions: [String]) -> String? {
        let directory = (input as NSString).deletingLastPathComponent
        let name = (input as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        guard !stem.isEmpty,
              let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return nil }
        func full(_ entry: String) -> String {
            directory.isEmpty ? entry : (directory as NSString).appendingPathComponent(entry)
        }
        func rank(_ entry: String) -> (Int, Int, String) {
            let ext = (entry as NSString).pathExtension.lowercased()
            return ((entry as NSString).deletingPathExtension == stem ? 0 : 1, extensions.firstIndex(of: ext) ?? extensions.count, entry)
        }
        let candidates = entries.filter { entry in
            guard entry != name, extensions.contains((entry as NSString).pathExtension.lowercased()),
                  (entry as NSString).deletingPathExtension.lowercased() == stem.lowercased() else { return false }
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: full(entry), isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        return candidates.min { rank($0) < rank($1) }.map(full)
    }
}
