import Foundation
import Testing
import DropcutDaemon
import DropcutPipeline
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28: one version, set in one place (`DropcutVersion`), shown by `dropcut
/// --version`, `dropcut status --json` (the reader's and the running daemon's) and the
/// journal's "ready" line.
@Suite(.tags(.slow)) struct VersionTests {
    @Test func theVersionIsTheSameEverywhereItIsShown() async throws {
        let version = DropcutVersion.current
        let printed = try await DropcutProcess.run(["--version"])
        #expect(printed.status == 0 && printed.stdout == "\(version) (commit \(DropcutVersion.commit))\n", "\(printed)")
        // The commit is git's (the tests run in a clone): one of this clone's commits — the
        // HEAD of when the binary was built, which a commit since may have moved on from.
        let commit = try #require(DropcutVersion.commit.wholeMatch(of: #/(?<hash>[0-9a-f]{12})(-dirty)?/#), "\(DropcutVersion.commit)")
        let known = try await Command.run("git", ["-C", Repository.path("."), "cat-file", "-e", "\(commit.output.hash)^{commit}"])
        #expect(known.status == 0, "\(DropcutVersion.commit) is not a commit of this clone: \(known.stderr)")

        try Journald.ensureRunning()
        let h = try DaemonHarness()
        let daemon = try h.startDaemon()
        #expect(await DaemonHarness.waitUntil(.seconds(20)) { h.daemonLog.contains("dropcut ready: version \(version), watching ") },
                "log:\n\(h.daemonLog)")
        #expect(await DaemonHarness.waitUntil(.seconds(10)) { (try? h.statusJSON())?["running"] as? Bool == true })
        let status = try h.statusJSON()
        #expect(status["version"] as? String == version)
        #expect((status["daemon"] as? [String: Any])?["version"] as? String == version, "\(status)")
        var ready: [String: String]?
        #expect(await DaemonHarness.waitUntilAsync(.seconds(10)) {
            ready = (try? await Journald.entries(matching: "MESSAGE_ID", value: MessageID.daemonReady.rawValue))?
                .first { $0["_PID"] == String(daemon.pid) }
            return ready != nil
        })
        #expect(ready?["DROPCUT_VERSION"] == version, "\(ready ?? [:])")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
    }
}
