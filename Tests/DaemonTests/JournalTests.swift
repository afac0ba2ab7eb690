import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// `Journal.send` against a real systemd-journald, read back with journalctl.
@Suite struct JournalTests {
    @Test func structuredEntryRoundTripsThroughJournald() async throws {
        try Journald.ensureRunning()
        let id = UUID().uuidString
        let multiLine = "first line\nsecond line: café ✓\n\tindented third line"
        let message = "dropcut journal round trip \(id)"

        try Journal.send([
            ("MESSAGE", message),
            ("PRIORITY", "6"),
            ("SYSLOG_IDENTIFIER", "dropcut-test"),
            ("DROPCUT_TEST_ID", id),
            ("DROPCUT_JOB", "job-42"),
            ("DROPCUT_DETAIL", multiLine),
        ])

        let entries = try await Journald.entries(matching: "DROPCUT_TEST_ID", value: id, timeout: .seconds(10))
        try #require(entries.count == 1, "entries with DROPCUT_TEST_ID=\(id): \(entries)")
        let entry = entries[0]
        #expect(entry["MESSAGE"] == message)
        #expect(entry["PRIORITY"] == "6")
        #expect(entry["SYSLOG_IDENTIFIER"] == "dropcut-test")
        #expect(entry["DROPCUT_JOB"] == "job-42")
        #expect(entry["DROPCUT_DETAIL"] == multiLine)
        #expect(entry["DROPCUT_TEST_ID"] == id)
        // Sent over the native protocol by this very process.
        #expect(entry["_TRANSPORT"] == "journal")
        #expect(entry["_PID"] == String(ProcessInfo.processInfo.processIdentifier))
    }

    @Test func entriesAreKeptApartByTheirFields() async throws {
        try Journald.ensureRunning()
        let id = UUID().uuidString
        for job in ["job-1", "job-2", "job-3"] {
            try Journal.send([("MESSAGE", "rendering \(job)"), ("DROPCUT_TEST_ID", id), ("DROPCUT_JOB", job)])
        }

        // Wait until all three are visible (entries returns as soon as one is).
        var entries: [[String: String]] = []
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            entries = try await Journald.entries(matching: "DROPCUT_TEST_ID", value: id, timeout: .seconds(10))
        } while entries.count < 3 && ContinuousClock.now < deadline
        #expect(entries.compactMap { $0["DROPCUT_JOB"] } == ["job-1", "job-2", "job-3"])

        let none = try await Journald.entries(matching: "DROPCUT_TEST_ID", value: UUID().uuidString, timeout: .milliseconds(300))
        #expect(none.isEmpty)
    }

    @Test func ensureRunningIsSafeToCallConcurrently() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try Journald.ensureRunning() } }
            try await group.waitForAll()
        }
        #expect(Journald.isAcceptingEntries())
    }
}
