import Foundation

/// `systemd/dropcut.catalog`, read the way journald reads it: entries that start at a
/// `-- <MESSAGE_ID>` line, whose `@FIELD@`s `journalctl -x` fills from the journal entry.
public enum JournalCatalog {
    /// Each entry's text (headers, blank line, body) by its MESSAGE_ID.
    public static func entries() throws -> [String: String] {
        let text = try String(contentsOfFile: Repository.path("systemd/dropcut.catalog"), encoding: .utf8)
        var entries: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("-- ") {
                current = String(line.dropFirst(3))
                entries[current!] = ""
            } else if let id = current {
                entries[id, default: ""] += line + "\n"
            }
        }
        return entries
    }

    /// The journal fields an entry's text names as `@FIELD@`.
    public static func fields(in entry: String) -> Set<String> {
        Set(entry.split(separator: "@", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    /// The fields the entry for `messageID` names that `journalEntry` lacks (journalctl
    /// would show the bare field name there).
    public static func missingFields(for messageID: String, in journalEntry: [String: String]) throws -> Set<String> {
        fields(in: try entries()[messageID] ?? "").subtracting(journalEntry.keys)
    }
}
