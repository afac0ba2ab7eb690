import Foundation
import Testing
import Daemon
import TestSupport

/// Names and times anyone who can write to an inbox can choose.
@Suite struct HostileNameTests {
    /// An mtime in 2300 overflowed the scanner's nanoseconds (a trap in every poll): now the
    /// clip is listed, waits while it is "in the future" by the wall clock, and settles by
    /// the scanner's own observation.
    @Test func anMtimeAfter2262IsListedAndSettlesByObservation() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("future.mov")
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: 10_413_792_000, tv_nsec: 0), timespec(tv_sec: 10_413_792_000, tv_nsec: 0)]   // 2300-01-01
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        let start = ContinuousClock.now
        guard case let .listed(first, arriving) = scanner.scan(now: start) else { Issue.record("unavailable"); return }
        #expect(first.isEmpty && arriving == 1)
        guard case let .listed(later, _) = scanner.scan(now: start + .seconds(1)) else { Issue.record("unavailable"); return }
        #expect(later.map(\.name) == ["future.mov"])
    }

    /// Control characters in a name never reach sd_notify as separate assignments.
    @Test func statusLinesKeepControlCharactersEscaped() {
        #expect(SystemdNotifier.oneLine("rendering a\nSTOPPING=1\n.mov") == "rendering a\\nSTOPPING=1\\n.mov")
        #expect(SystemdNotifier.oneLine("tab\there\r\u{1b}[31m\u{7f}\u{2028}") == "tab\\there\\r\\u{1b}[31m\\u{7f}\\u{2028}")
        #expect(SystemdNotifier.oneLine("été 🎬 clip.mov") == "été 🎬 clip.mov")
        #expect(!SystemdNotifier.oneLine(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)).contains("\n"))
    }
}
