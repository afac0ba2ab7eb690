import Foundation
import Testing
import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Recovery from each state a crash can leave a job in, set up exactly (the kill -9 test
/// hits them at random): the next start must finish every job once, never render a
/// committed one again, and leave nothing behind.
@Suite(.tags(.slow)) struct DaemonRecoveryTests {
    @Test func everyInterruptedStateIsFinishedExactlyOnce() async throws {
        let h = try DaemonHarness()
        let claimedRoot = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        for folder in [claimedRoot, h.outbox, h.archive] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        func claimed(_ id: String, _ name: String?) throws -> String {
            let dir = (claimedRoot as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            guard let name else { return dir }
            let path = (dir as NSString).appendingPathComponent(name)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: path)
            return path
        }
        func record(_ id: String, _ input: String, _ state: JobRecord.State, _ edit: (inout JobRecord) -> Void = { _ in }) throws {
            var record = JobRecord(id: id, folder: h.folderName, input: input, sidecars: [], state: state)
            record.recipes = ["identity"]
            edit(&record)
            try store.save(&record)
        }
        func inode(_ path: String) -> UInt64 {
            var info = stat()
            stat(path, &info)
            return UInt64(info.st_ino)
        }
        func out(_ name: String) -> String { (h.outbox as NSString).appendingPathComponent(name) }

        // a: killed between mkdir and the rename: the clip is still in the inbox.
        _ = try claimed("a-job", nil)
        try h.drop("a.mp4")
        try record("a-job", "a.mp4", .claiming)
        // b: killed mid-render: a partial output lies in the outbox.
        _ = try claimed("b-job", "b.mp4")
        try "half a render".write(toFile: out(".b-job.partial.mp4"), atomically: true, encoding: .utf8)
        try record("b-job", "b.mp4", .rendering) { $0.recordSingleOutput("b.dropcut.mp4", temporary: out(".b-job.partial.mp4")); $0.attempts = 1 }
        // c: killed between link and unlink of the temporary name: both names exist.
        _ = try claimed("c-job", "c.mp4")
        try "rendered c".write(toFile: out(".c-job.partial.mp4"), atomically: true, encoding: .utf8)
        try #require(link(out(".c-job.partial.mp4"), out("c.dropcut.mp4")) == 0)
        try record("c-job", "c.mp4", .committing) {
            $0.recordSingleOutput("c.dropcut.mp4", temporary: out(".c-job.partial.mp4"), inode: inode(out("c.dropcut.mp4")))
        }
        // d: killed after the link and the unlink, before the record said so.
        _ = try claimed("d-job", "d.mp4")
        try "rendered d".write(toFile: out("d.dropcut.mp4"), atomically: true, encoding: .utf8)
        try record("d-job", "d.mp4", .committing) {
            $0.recordSingleOutput("d.dropcut.mp4", temporary: out(".d-job.partial.mp4"), inode: inode(out("d.dropcut.mp4")))
        }
        // e: committed, killed before archiving.
        _ = try claimed("e-job", "e.mp4")
        try "rendered e".write(toFile: out("e.dropcut.mp4"), atomically: true, encoding: .utf8)
        try record("e-job", "e.mp4", .committed) { $0.output = out("e.dropcut.mp4") }
        // f: killed mid-archive on the same filesystem: the original is already renamed to
        // its hidden name in the archive.
        _ = try claimed("f-job", nil)
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (h.archive as NSString).appendingPathComponent(".f.mp4.moving-f-job"))
        try "rendered f".write(toFile: out("f.dropcut.mp4"), atomically: true, encoding: .utf8)
        try record("f-job", "f.mp4", .committed) { $0.output = out("f.dropcut.mp4") }
        // An empty claimed folder without a record (killed right after mkdir).
        _ = try claimed("g-job", nil)
        // h: killed after the clip's and its sidecar's renames, before the record listed
        // the sidecar: the sidecar is still the clip's recipe, and is archived with it.
        let hDirectory = (try claimed("h-job", "h.mp4") as NSString).deletingLastPathComponent
        try "version: 1\noutput: { filename: \"{name}-side.mp4\" }\n"
            .write(toFile: (hDirectory as NSString).appendingPathComponent("h.yaml"), atomically: true, encoding: .utf8)
        try record("h-job", "h.mp4", .claiming)

        let result = try await h.runOnce()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.outbox, hidden: true) == ["a.dropcut.mp4", "b.dropcut.mp4", "c.dropcut.mp4", "d.dropcut.mp4",
                                                      "e.dropcut.mp4", "f.dropcut.mp4", "h-side.mp4"])
        // Committed outputs were not rendered again.
        for name in ["c", "d", "e", "f"] {
            #expect(try String(contentsOfFile: out("\(name).dropcut.mp4"), encoding: .utf8) == "rendered \(name)")
        }
        // The redone ones are real, complete renders.
        for name in ["a", "b"] {
            let duration = try FFprobe.format(of: out("\(name).dropcut.mp4")).duration.flatMap(Double.init)
            #expect(duration.map { abs($0 - 1) < 0.1 } == true)
        }
        #expect(h.files(h.archive, hidden: true) == ["a.mp4", "b.mp4", "c.mp4", "d.mp4", "e.mp4", "f.mp4", "h.mp4", "h.yaml"])
        #expect(h.claimedLeftovers() == [])
        #expect(h.files(h.inbox) == [])
        let states = Dictionary(uniqueKeysWithValues: store.all().map { ($0.input, $0.state) })
        #expect(states.values.allSatisfy { $0 == .done }, "\(states)")
        #expect(states["c.mp4"] == .done && states["f.mp4"] == .done)
        #expect(result.stderr.contains("recovering b.mp4"))
    }

    /// Issue 17: a record that cannot be read (cut short, edited by hand) used to be
    /// skipped, its clip claimed and hidden forever. Now the clip and its sidecar go to
    /// failed/ with a reason, the record is set aside, and a readable job beside it goes on.
    @Test func anUnreadableRecordSendsItsClipToTheFailedFolder() async throws {
        let h = try DaemonHarness()
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed/bad-job")
        try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (claimed as NSString).appendingPathComponent("lost.mp4"))
        try "version: 1\n".write(toFile: (claimed as NSString).appendingPathComponent("lost.yaml"), atomically: true, encoding: .utf8)
        let recordPath = (store.directory as NSString).appendingPathComponent("bad-job.json")
        try "{\"id\": \"bad-job\", \"state\": \"rende".write(toFile: recordPath, atomically: true, encoding: .utf8)
        try h.drop("fine.mp4")

        let result = try await h.runOnce()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.failed) == ["lost.mp4", "lost.mp4.error.txt", "lost.yaml"])
        let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("lost.mp4.error.txt"), encoding: .utf8)
        #expect(text.contains("its job record \(recordPath) cannot be read (not a job record"), "\(text)")
        #expect(h.files(h.outbox) == ["fine.dropcut.mp4"])
        #expect(h.claimedLeftovers() == [])
        #expect(FileManager.default.fileExists(atPath: recordPath + ".unreadable") && !FileManager.default.fileExists(atPath: recordPath))
        #expect(result.stderr.contains("failed lost.mp4, lost.yaml: its job record"), "\(result.stderr)")
    }

    /// Issue 28: a clip whose daemon died three times while the daemon itself was
    /// reading its recipe and sidecars (`preparing`) is quarantined at the next start —
    /// whatever `retries` is — with that reason; a clip that was only rendering (in its
    /// worker) each time the daemon died is rendered, its attempt given back.
    @Test func recoveryQuarantinesAClipTheDaemonDiedPreparingThreeTimes() async throws {
        let h = try DaemonHarness(retries: 5)
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        func claim(_ id: String, _ name: String) throws {
            let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed/\(id)")
            try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: (claimed as NSString).appendingPathComponent(name))
        }
        try claim("loop-job", "loop.mp4")
        var loop = JobRecord(id: "loop-job", folder: h.folderName, input: "loop.mp4", sidecars: [], state: .preparing)
        loop.attempts = 1
        loop.interruptedPreparations = 2
        try store.save(&loop)
        try claim("rendering-job", "rendering.mp4")
        var rendering = JobRecord(id: "rendering-job", folder: h.folderName, input: "rendering.mp4", sidecars: [], state: .rendering)
        rendering.attempts = 1
        try store.save(&rendering)

        let result = try await h.runOnce()
        #expect(result.status == 1)
        #expect(h.files(h.failed) == ["loop.mp4", "loop.mp4.error.txt"])
        #expect(h.files(h.outbox, hidden: true) == ["rendering.dropcut.mp4"])
        let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("loop.mp4.error.txt"), encoding: .utf8)
        #expect(text.contains("Reason: dropcut stopped 3 times while it was reading this clip's recipe and sidecars"), "\(text)")
        #expect(text.contains("attempt 1: interrupted: dropcut stopped while it was reading the clip's recipe and sidecars (3 of 3)"), "\(text)")
        let records = Dictionary(uniqueKeysWithValues: store.all().map { ($0.id, $0) })
        #expect(records["loop-job"]?.state == .failed && records["loop-job"]?.interruptedPreparations == 3)
        #expect(records["rendering-job"]?.state == .done && records["rendering-job"]?.attempts == 1)
        #expect(records["rendering-job"]?.history == ["attempt 1: interrupted: dropcut stopped while its worker was rendering (not counted against the clip)"])
        #expect(h.claimedLeftovers() == [])
    }
}
