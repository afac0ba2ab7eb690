import Foundation
import Logging
import DropcutSupport
import Testing
import DropcutDaemon
import DropcutMediaIO
import TestSupport

/// The swift-log handler against a real journald, and how errors are sorted.
@Suite struct JournalLogHandlerTests {
    @Test func logMessagesArriveAsStructuredJournalEntries() async throws {
        try Journald.ensureRunning()
        let id = UUID().uuidString
        let logger = Logger(label: "test") { _ in JournalLogHandler(identifier: "dropcut-test", toStandardError: false) }
        var log = logger
        log[metadataKey: "DROPCUT_JOB"] = "job-9"
        log[metadataKey: "test id"] = "\(id)"
        log.warning("disk nearly full", metadata: ["MESSAGE_ID": "\(MessageID.jobRetry.rawValue)", "ERRNO": "28"])

        let entries = try await Journald.entries(matching: "DROPCUT_TEST_ID", value: id, timeout: .seconds(10))
        let entry = try #require(entries.first, "no entry")
        #expect(entry["MESSAGE"] == "disk nearly full")
        #expect(entry["PRIORITY"] == "4")
        #expect(entry["SYSLOG_IDENTIFIER"] == "dropcut-test")
        #expect(entry["MESSAGE_ID"] == MessageID.jobRetry.rawValue)
        #expect(entry["ERRNO"] == "28")
        #expect(entry["DROPCUT_JOB"] == "job-9")
        #expect(entry["CODE_FILE"]?.hasSuffix("JournalLogHandlerTests.swift") == true)
        #expect(entry["CODE_FUNC"]?.contains("logMessagesArriveAsStructuredJournalEntries") == true)
        #expect(entry["CODE_LINE"].flatMap(Int.init) != nil)
    }

    @Test func stderrIsTheJournalOnlyWhenJournalStreamMatchesFd2() throws {
        var info = stat()
        try #require(fstat(2, &info) == 0)
        #expect(JournalLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]))
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"]))
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: [:]))
        #expect(!JournalLogHandler.standardErrorIsJournal(environment: ["JOURNAL_STREAM": "garbage"]))
    }

    @Test func messageIDsAreDistinct128BitHex() {
        let ids = MessageID.allCases.map(\.rawValue)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        #expect(Set(MessageID.allCases.map(\.name)).isSuperset(of: ["job-claimed", "job-done", "job-failed", "job-retry", "config-reloaded"]))
    }

    @Test func errorsAreSortedIntoTransientAndPermanent() {
        let full = FFmpegError(code: -ENOSPC, function: "av_interleaved_write_frame", path: "/out/x.mp4")
        let bad = FFmpegError(code: FFmpegError.decoderNotFound, function: "avcodec_find_decoder", path: "/in/x.mov")
        guard case .transient(_, errno: ENOSPC) = JobFailure.classify(full) else { Issue.record("ENOSPC is transient"); return }
        guard case .permanent = JobFailure.classify(bad) else { Issue.record("no decoder is permanent"); return }
        guard case .transient = JobFailure.classify(SystemError(errno: EIO, function: "read", path: "/x")) else { Issue.record("EIO"); return }
        guard case .transient = JobFailure.classify(SystemError(errno: EMFILE, function: "open", path: "/x")) else { Issue.record("EMFILE"); return }
        guard case .permanent = JobFailure.classify(SystemError(errno: EISDIR, function: "open", path: "/x")) else { Issue.record("EISDIR"); return }
        // A share that is briefly away is waited for, not a reason to fail every clip.
        for code in [EROFS, ENOTCONN, EHOSTDOWN, ESTALE, ETIMEDOUT] {
            guard case .transient = JobFailure.classify(SystemError(errno: code, function: "rename", path: "/share/x")) else {
                Issue.record("errno \(code) should be transient"); return
            }
        }
        guard case .cancelled = JobFailure.classify(CancellationError()) else { Issue.record("cancellation"); return }
    }
}
