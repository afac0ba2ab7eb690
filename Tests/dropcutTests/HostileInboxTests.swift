import Foundation
import Testing
import TestSupport

/// Files in an inbox or on the command line that were made to hurt: the CLI and the daemon
/// refuse them at once, with the file and the cause, and go on.
@Suite struct HostileInboxTests {
    /// A 1 KB recipe of nested aliases ("billion laughs") is refused in well under a
    /// second and a few MB — it used to take 3.7 GB and crash.
    @Test func billionLaughsIsRefusedQuicklyInLittleMemory() throws {
        let dir = try TemporaryDirectory()
        var yaml = "version: 1\nl0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...8 {
            yaml += "l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ") + "]\n"
        }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "laughs.yaml", contents: yaml)
        let result = try PeakMemory.run(try BuildProducts.executable(named: "dropcut"), ["validate", recipe])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(recipe):2:5: YAML anchors and aliases (&l0, *l0) are not supported"), "\(result.stderr)")
        #expect(result.seconds < 1, "\(result.seconds) s")
        #expect(result.peakMiB < 100, "\(result.peakMiB) MiB")
    }

    /// `recipe.yaml` in an inbox that is a FIFO (nobody writes to it) or a symlink to a
    /// device: the daemon does not block or read it; the clip goes to failed/ saying why,
    /// and `--once` ends.
    @Test(arguments: ["fifo", "symlink"])
    func aRecipeThatIsNotAFileFailsTheClipWithoutBlocking(kind: String) throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let recipe = (h.inbox as NSString).appendingPathComponent("recipe.yaml")
        if kind == "fifo" {
            #expect(mkfifo(recipe, 0o644) == 0)
        } else {
            try FileManager.default.createSymbolicLink(atPath: recipe, withDestinationPath: "/dev/zero")
        }
        let started = ContinuousClock.now
        let result = try h.runOnce()
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.status == 1, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("0 done, 1 failed"), "\(result.stdout)")
        #expect(h.files(h.failed) == ["clip.mp4", "clip.mp4.error.txt"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("clip.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("recipe.yaml:1:1: the recipe is not a regular file"), "\(reason)")
        #expect(h.files(h.outbox) == [])
    }
}
