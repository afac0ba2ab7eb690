import Foundation
import Testing
import DropcutDaemon
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

    /// A name that is not UTF-8 used to be read as U+FFFD, which no file is called, and
    /// was skipped for ever: it is listed under its printable form, its sidecar paired by
    /// stem, and a file literally named like that form stays another clip.
    @Test func namesThatAreNotUTF8AreListedEscapedWithTheirSidecars() throws {
        let dir = try TemporaryDirectory()
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]   // "café" in Latin-1
        for name in [latin1 + Array(".mov".utf8), latin1 + Array(".yaml".utf8), latin1 + Array(".AAE".utf8),
                     Array(#"caf\xE9.mov"#.utf8), Array("new\nline.mp4".utf8)] {
            let fd = open(RawFileName(bytes: name).path(in: dir.path), O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(fd >= 0)
            close(fd)
        }
        var scanner = InboxScanner(inbox: dir.path, settle: .seconds(1))
        let start = ContinuousClock.now
        _ = scanner.scan(now: start)
        guard case let .listed(settled, arriving) = scanner.scan(now: start + .seconds(1)) else { Issue.record("unavailable"); return }
        #expect(arriving == 0)
        let byName = Dictionary(uniqueKeysWithValues: settled.map { ($0.name, $0.sidecars) })
        #expect(byName == [#"caf\xE9.mov"#: [#"caf\xE9.AAE"#, #"caf\xE9.yaml"#], #"caf\\xE9.mov"#: [], #"new\x0Aline.mp4"#: []])
    }

    /// Control characters in a name never reach sd_notify as separate assignments.
    @Test func statusLinesKeepControlCharactersEscaped() {
        #expect(SystemdNotifier.oneLine("rendering a\nSTOPPING=1\n.mov") == "rendering a\\nSTOPPING=1\\n.mov")
        #expect(SystemdNotifier.oneLine("tab\there\r\u{1b}[31m\u{7f}\u{2028}") == "tab\\there\\r\\u{1b}[31m\\u{7f}\\u{2028}")
        #expect(SystemdNotifier.oneLine("été 🎬 clip.mov") == "été 🎬 clip.mov")
        #expect(!SystemdNotifier.oneLine(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)).contains("\n"))
    }
}
