import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// `systemd/dropcut.catalog`: journald's own parser takes it, and it explains every
/// MESSAGE_ID the daemon defines, and nothing else.
@Suite(.tags(.slow)) struct CatalogTests {
    @Test func everyMessageIDHasAnEntryWithSubjectAndExplanation() throws {
        let entries = try JournalCatalog.entries()
        #expect(Set(entries.keys) == Set(MessageID.allCases.map(\.rawValue)))
        for id in MessageID.allCases {
            let entry = try #require(entries[id.rawValue])
            #expect(entry.contains("Subject: "), "\(id.name)")
            #expect(entry.contains("Defined-By: dropcut"), "\(id.name)")
            let body = entry.components(separatedBy: "\n\n").dropFirst().joined()
            #expect(body.count > 100, "\(id.name) explains what happened and what to do")
        }
    }

    @Test func fieldsTheEntriesNameAreFieldsTheDaemonSends() throws {
        let sent: Set<String> = ["DROPCUT_JOB", "DROPCUT_FOLDER", "DROPCUT_INPUT", "DROPCUT_OUTPUT", "DROPCUT_RECIPE",
                                 "DROPCUT_ELAPSED_MS", "DROPCUT_SPEED", "DROPCUT_CONFIG",
                                 "DROPCUT_PREVIOUS_HOST", "DROPCUT_PREVIOUS_JOB", "DROPCUT_LEASE_AGE_MS"]
        let named = try JournalCatalog.entries().values.reduce(into: Set<String>()) { $0.formUnion(JournalCatalog.fields(in: $1)) }
        #expect(!named.isEmpty)
        #expect(named.isSubset(of: sent), "not fields dropcut sends: \(named.subtracting(sent))")
        // Each event's own entries carry its fields: WatchOnceTests checks them on real
        // journal entries (JournalCatalog.missingFields).
    }

    @Test func journalctlBuildsItsDatabaseAndListsEveryID() async throws {
        let root = try TemporaryDirectory(prefix: "dropcut-catalog")
        let folder = root.file("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repository.path("systemd/dropcut.catalog"), toPath: folder + "/dropcut.catalog")
        let update = try await Command.run("journalctl", ["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0)
        #expect(update.stderr.isEmpty, "journalctl's parser complained: \(update.stderr)")
        let list = try await Command.runChecked("journalctl", ["--root=\(root.path)", "--list-catalog"])
        for id in MessageID.allCases {
            #expect(list.contains(id.rawValue + " dropcut: "), "\(id.name) listed")
        }
        let entry = try await Command.runChecked("journalctl", ["--root=\(root.path)", "--dump-catalog", MessageID.jobFailed.rawValue])
        #expect(entry.contains("failed folder"))
    }
}
