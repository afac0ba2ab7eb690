import Foundation
import DropcutSupport
import Testing
import TestSupport
import DropcutTimeline

/// Files in an inbox or on the command line that were made to hurt: the CLI and the daemon
/// refuse them at once, with the file and the cause, and go on.
@Suite(.tags(.slow)) struct HostileInboxTests {
    /// A 1 KB recipe of nested aliases ("billion laughs") is refused in well under a
    /// second and a few MB — it used to take 3.7 GB and crash.
    @Test func billionLaughsIsRefusedQuicklyInLittleMemory() throws {
        let dir = try TemporaryDirectory()
        var yaml = "version: 1\nl0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n"
        for level in 1...8 {
            yaml += "l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ") + "]\n"
        }
        let recipe = try Fixtures.makeFile(in: dir.path, name: "laughs.yaml", contents: yaml)
        let plain = try Fixtures.makeFile(in: dir.path, name: "plain.yaml", contents: "version: 1\n")
        let dropcut = try BuildProducts.executable(named: "dropcut")
        let result = try PeakMemory.run(dropcut, ["validate", recipe])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(recipe):2:5: YAML anchors and aliases (&l0, *l0) are not supported"), "\(result.stderr)")
        #expect(result.seconds < 1, "\(result.seconds) s")
        // Against the same command on a one-line recipe, measured the same way (a spawned
        // child's peak also counts what it shared with this test process before exec).
        let baseline = try PeakMemory.run(dropcut, ["validate", plain])
        #expect(baseline.status == 0)
        #expect(result.peakMiB < baseline.peakMiB + 50, "\(result.peakMiB) MiB against \(baseline.peakMiB) MiB")
    }

    /// A FIFO nobody writes to, or a symlink to `target`, at `path`.
    static func makeNonFile(_ kind: String, at path: String, linkingTo target: String) throws {
        if kind == "fifo" {
            #expect(mkfifo(path, 0o644) == 0)
        } else {
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }
    }

    /// `recipe.yaml` in an inbox that is a FIFO (nobody writes to it) or a symlink to a
    /// device: the daemon does not block or read it; the clip goes to failed/ saying why,
    /// and `--once` ends.
    @Test(arguments: ["fifo", "symlink"])
    func aRecipeThatIsNotAFileFailsTheClipWithoutBlocking(kind: String) async throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let recipe = (h.inbox as NSString).appendingPathComponent("recipe.yaml")
        try Self.makeNonFile(kind, at: recipe, linkingTo: "/dev/zero")
        let started = ContinuousClock.now
        let result = try h.runOnceBlocking()   // timed
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.status == 1, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("0 done, 1 failed"), "\(result.stdout)")
        #expect(h.files(h.failed) == ["clip.mp4", "clip.mp4.error.txt"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("clip.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("recipe.yaml: the recipe is not a regular file"), "\(reason)")
        #expect(h.files(h.outbox) == [])
    }

    /// A caption sidecar that is a symlink (to a file the daemon can read) or a FIFO: the
    /// clip is not published without its captions, nor is the link followed; it fails
    /// naming the sidecar, which stays in the inbox — as `dropcut render` refuses it.
    @Test(arguments: ["fifo", "symlink"])
    func aSidecarThatIsNotAFileFailsTheClip(kind: String) async throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let sidecar = (h.inbox as NSString).appendingPathComponent("clip.srt")
        try Self.makeNonFile(kind, at: sidecar, linkingTo: "/etc/hostname")
        let result = try await h.runOnce()
        #expect(result.status == 1, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("0 done, 1 failed"), "\(result.stdout)")
        #expect(h.files(h.failed) == ["clip.mp4", "clip.mp4.error.txt"])
        #expect(h.files(h.outbox) == [])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("clip.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("\(sidecar): is not a regular file (a symlink, folder, FIFO or device is never read)"), "\(reason)")
        #expect(!reason.contains(try String(contentsOfFile: "/etc/hostname", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Left where it was dropped, as it was.
        var info = stat()
        #expect(lstat(sidecar, &info) == 0 && (info.st_mode & S_IFMT) == (kind == "fifo" ? S_IFIFO : S_IFLNK))
        // The command line refuses the same sidecar.
        try FileManager.default.copyItem(atPath: (h.failed as NSString).appendingPathComponent("clip.mp4"),
                                         toPath: (h.inbox as NSString).appendingPathComponent("clip.mp4"))
        let render = try await DropcutProcess.run(["render", "--output", h.dir.file("out.mp4"), (h.inbox as NSString).appendingPathComponent("clip.mp4")])
        #expect(render.status == 1 && render.stderr.contains("clip.srt"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.dir.file("out.mp4")))
    }

    /// A playlist or a concat script names other files (another folder's archive, any
    /// file the daemon can read): it is refused as a container, so nothing it names is read.
    @Test func playlistsAndConcatScriptsAreNotMedia() async throws {
        let h = try DaemonHarness(retries: 0)
        let secret = try await Fixtures.makeClip(in: h.dir.path, name: "secret.mp4")
        try h.write("playlist.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1,\n\(secret)\n#EXT-X-ENDLIST\n")
        try h.write("script.mov", "ffconcat version 1.0\nfile '\(secret)'\n")
        let result = try await h.runOnce()
        #expect(result.status == 1)
        #expect(result.stdout.contains("0 done, 2 failed"), "\(result.stdout)")
        #expect(h.files(h.outbox) == [])
        for name in ["playlist.m3u8", "script.mov"] {
            let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("\(name).error.txt"), encoding: .utf8)
            #expect(reason.contains("not a supported media container"), "\(name): \(reason)")
        }
        // The command line refuses them the same way.
        let render = try await DropcutProcess.run(["render", "--output", h.dir.file("out.mp4"), (h.failed as NSString).appendingPathComponent("script.mov")])
        #expect(render.status == 1 && render.stderr.contains("not a supported media container"), "\(render.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.dir.file("out.mp4")))
    }

    /// A clip whose name takes all 255 bytes: its output, archive and failure files all
    /// fit (temporary names used to overflow NAME_MAX and leave the job stuck).
    @Test func nameMaxLongNamesAreRenderedArchivedAndFailed() async throws {
        let h = try DaemonHarness(retries: 0)
        let stem = String(repeating: "é", count: 125)   // 250 bytes
        try h.drop(stem + ".mp4")                        // 254 bytes
        try h.write(stem + ".mov", "not a movie")
        let result = try await h.runOnce()
        #expect(result.stdout.contains("1 done, 1 failed"), "\(result.stdout)\n\(result.stderr)")
        #expect(h.files(h.archive) == [stem + ".mp4"])
        let outputs = h.files(h.outbox)
        #expect(outputs.count == 1 && outputs.allSatisfy { $0.hasPrefix(String(repeating: "é", count: 100)) && $0.hasSuffix(".mp4") })
        #expect(h.files(h.failed).sorted() == [stem + ".mov", FileName.fitting(stem + ".mov", suffix: ".error.txt")].sorted())
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.archive, hidden: true).allSatisfy { !$0.hasPrefix(".") })
    }

    /// `.dropcut` (or `.dropcut/claimed`, after start-up) replaced by a symlink to a folder
    /// elsewhere — anyone who can write to the inbox can do it: the daemon claims nothing in
    /// that inbox, says why, and makes, moves or removes nothing where the link points.
    @Test(arguments: [".dropcut", ".dropcut/claimed"])
    func aSymlinkedFolderOfTheDaemonIsRefused(replaced: String) async throws {
        let h = try DaemonHarness(retries: 0)
        try h.drop("clip.mp4")
        let elsewhere = h.dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let link = (h.inbox as NSString).appendingPathComponent(replaced)
        try FileManager.default.createDirectory(atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        let result = try await h.runOnce()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refusing dropcut's folder, replaced by a symlink"), "\(result.stderr.suffix(1000))")
        #expect(h.files(h.inbox) == ["clip.mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere) == [])
        #expect(h.files(h.outbox) == [])
    }

    /// A header may claim any picture size (a damaged or made-up file): past 8192 a side
    /// the clip is refused, naming the file, before any decoder or encoder is opened.
    @Test func anOversizedSourceIsRefusedByName() async throws {
        let dir = try TemporaryDirectory()
        let clip = try await Fixtures.makeGenerated(in: dir.path, name: "wide.mp4", seconds: 0.1, video: "color=c=gray:s=8200x16:r=10")
        let result = try await DropcutProcess.run(["render", "--output", dir.file("out.mp4"), clip])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(clip): its video is 8200x16 pixels; dropcut reads at most 8192 a side"), "\(result.stderr)")
    }

    /// Issue 17: the recipes that used to trap (SIGILL in validate, the daemon dead three
    /// times out of three) as sidecars in an inbox: each clip goes to failed/ with the
    /// recipe's line:column error, and a clip beside them is rendered.
    @Test func trapRecipesAsSidecarsFailTheirClipsOnly() async throws {
        let h = try DaemonHarness(retries: 0)
        let traps: [(name: String, yaml: String, message: String)] = [
            ("bitrate", "version: 1\noutput: { audio: { codec: aac, bitrate: 1e19 } }\n",
             ":2:41: output.audio.bitrate must be between 32k and 512k (got 1e19)"),
            ("colour", "version: 1\noverlays:\n  - text: hi\n    color: \"#ＦＦＦ\"\n",
             ":4:12: overlay color must be a colour #rgb, #rrggbb or #rrggbbaa; got '#ＦＦＦ'"),
            ("ramp", "version: 1\nclips:\n  - source: \"{input}\"\n    ramp: [{at: 0, rate: 1}, {at: 1000000000, rate: 2}]\n",
             ":4:35: clips[0].ramp[1].at must be at most 24 hours (86400 s) (got 1000000000)"),
            ("size", "version: 1\noverlays:\n  - { text: hi, size: 5e9px, margin: 1e20 }\n",
             ":3:23: overlay size must be between 0 and 32768px or between 0 and 100% (got 5e9px)"),
        ]
        for trap in traps {
            try h.drop(trap.name + ".mp4")
            try h.write(trap.name + ".yaml", trap.yaml)
        }
        try h.drop("innocent.mp4")
        let result = try await h.runOnce()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(h.files(h.outbox) == ["innocent.dropcut.mp4"])
        #expect(!result.stderr.contains("killed by signal"), "\(result.stderr)")
        for trap in traps {
            let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent(trap.name + ".mp4.error.txt"), encoding: .utf8)
            #expect(text.contains("Reason: " + trap.name + ".yaml" + trap.message), "\(text)")
            #expect(h.files(h.failed).contains(trap.name + ".yaml"))
        }
    }
}
