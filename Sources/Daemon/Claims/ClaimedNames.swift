import Foundation
import DropcutSupport

/// The names a clip and its sidecars get in their claimed folder: their printable forms
/// (`RawFileName`), which are the names themselves for nearly every clip.
///
/// An escaped form can be four times as long as the name (`\xE9` for one byte), so a
/// 100-character Shift-JIS name would not fit NAME_MAX. Then the whole group is shortened
/// alike — every stem cut to the same length, with a hash of the clip's stem so two long
/// names stay apart — so the clip and its `<stem>.AAE` still pair by stem. The names as
/// dropped are kept in the job record, so nothing of the original name is lost.
enum ClaimedNames {
    /// The claimed names of `printable` (the clip first, then its sidecars), in order.
    static func of(_ printable: [String]) -> [String] {
        guard printable.contains(where: { $0.utf8.count > FileName.maximumBytes }),
              let clip = printable.first else { return printable }
        let stem = { (name: String) in (name as NSString).deletingPathExtension }
        let ext = { (name: String) in
            let found = (name as NSString).pathExtension
            return found.isEmpty ? "" : "." + found
        }
        let longestExtension = printable.map { ext($0).utf8.count }.max() ?? 0
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a: stable across runs and hosts
        for byte in stem(clip).lowercased().utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let mark = "~" + String(hash, radix: 16)
        let budget = max(0, FileName.maximumBytes - mark.utf8.count - longestExtension)
        return printable.map { truncated(stem($0), toBytes: budget) + mark + ext($0) }
    }

    /// The longest prefix of the printable `text` of at most `bytes` bytes that ends on a
    /// whole character and a whole escape (`\\`, `\xHH`: never a dangling backslash).
    static func truncated(_ text: String, toBytes bytes: Int) -> String {
        var cut = FileName.truncated(text, toBytes: bytes)
        // Backslashes at the end of the cut: an even run is whole `\\` escapes; an odd one
        // ends in the start of an escape, dropped with whatever of it the cut kept.
        let tail = cut.suffix(3)
        if let start = tail.lastIndex(of: "\\") {
            let run = cut[..<cut.index(after: start)].reversed().prefix { $0 == "\\" }.count
            if run % 2 == 1 { cut = String(cut[..<start]) }
        }
        return cut
    }
}
