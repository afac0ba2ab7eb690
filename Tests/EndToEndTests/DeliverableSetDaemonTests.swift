import Foundation
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The daemon renders recipes with `outputs:` (a deliverable set) and publishes each set all
/// or nothing: every file under one suffix, the manifest last and matching, the original
/// archived after; a failed rendition publishes nothing; a crash at any step of the commit
/// ends with exactly one complete set (docs/daemon.md, "Deliverable sets").
@Suite(.tags(.slow)) struct DeliverableSetDaemonTests {
    /// Two videos and a poster: small and quick (a 1 s 320x240 clip).
    static let recipe = """
        version: 1
        output: { fps: 15, video: { crf: 30, preset: ultrafast } }
        outputs:
          - { filename: "{name}.vertical.mp4", size: 120x160, fit: fill }
          - { filename: "{name}.wide.mp4", size: 160x120 }
          - { filename: "{name}.poster.png", size: 120x160, fit: fill, poster: { at: 0.5 } }

        """
    static let kinds = ["vertical.mp4", "wide.mp4", "poster.png"]

    static func names(_ stem: String, suffix: String = "") -> [String] {
        kinds.map { kind in
            let ext = (kind as NSString).pathExtension
            return "\(stem).\((kind as NSString).deletingPathExtension)\(suffix).\(ext)"
        } + ["\(stem).dropcut\(suffix).json"]
    }

    /// A harness whose folder's recipe (in the config: no longer refused) is `recipe`.
    static func harness(retries: Int = 2, recipe text: String = recipe, outputMode: String? = nil) throws -> DaemonHarness {
        let h = try DaemonHarness(retries: retries)
        let recipe = h.dir.file("set.yaml")
        try text.write(toFile: recipe, atomically: false, encoding: .utf8)
        // Indented under the folder: a key of the harness's folder.
        try h.writeConfig(retries: retries, extraFolders: "  recipe: \(recipe)" + (outputMode.map { "\n  output_mode: \"\($0)\"" } ?? ""))
        return h
    }

    /// A video and an HLS ladder of two rungs (1 s segments): a sidecar's set.
    static let ladderRecipe = """
        version: 1
        output: { fps: 15, video: { crf: 30, preset: ultrafast } }
        outputs:
          - { filename: "{name}.small.mp4", size: 160x120 }
          - { filename: "{name}.m3u8", size: 160x120, hls: { heights: [120, 72], segment: 1s } }

        """

    /// Every file under `folder`, relative to it, with its permission bits.
    static func tree(_ folder: String) -> [String: mode_t] {
        var modes: [String: mode_t] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
            var info = stat()
            lstat((folder as NSString).appendingPathComponent(name), &info)
            modes[name] = info.st_mode & 0o777
        }
        return modes
    }

    struct Manifest: Decodable {
        var input: String
        var files: [Deliverables.File]
    }

    static func manifest(_ path: String) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func sha256(_ path: String) async throws -> String {
        String(try await Command.runChecked("/usr/bin/sha256sum", [path]).prefix(64))
    }

    /// A disk that fills as the set is published (an outbox on a tmpfs with an inode for
    /// each rendered file and none for the manifest: its creation is a real ENOSPC): the
    /// manifest is written before any file is published, so nothing of the set is ever
    /// visible without it; each failed commit is counted and the wait doubles (0.1 s,
    /// 0.2 s); after `retries + 1` tries the clip goes to failed/ with the cause and every
    /// try listed, and the outbox holds nothing.
    @Test func aFullDiskAtTheManifestIsCountedBackedOffAndFailedWithNothingVisible() async throws {
        let h = try DaemonHarness(retries: 2, retryDelay: 0.1)
        let recipe = h.dir.file("set.yaml")
        try Self.recipe.write(toFile: recipe, atomically: false, encoding: .utf8)
        try h.writeConfig(retries: 2, retryDelay: 0.1, extraFolders: "  recipe: \(recipe)")
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        // The folder itself and the three rendered files: four inodes.
        let mount = try await Command.run("mount", ["-t", "tmpfs", "-o", "size=16m,nr_inodes=4", "dropcut-test-full", h.outbox])
        try #require(mount.status == 0, "cannot mount a tmpfs: \(mount.stderr)")
        defer { _ = try? Command.run("umount", [h.outbox]) }
        try h.drop("clip.mp4")
        let result = try await h.runOnce()
        #expect(result.status == 1, "\(result.stderr)")
        let retries = result.stderr.components(separatedBy: "\n").filter { $0.contains("retrying in") }
        #expect(retries.count == 2, "\(result.stderr)")
        #expect(retries.first?.contains("retrying in 0.1 seconds (publishing, try 1 of 3)") == true, "\(retries)")
        #expect(retries.last?.contains("retrying in 0.2 seconds (publishing, try 2 of 3)") == true, "\(retries)")
        #expect(retries.allSatisfy { $0.contains("No space left on device") }, "\(retries)")
        #expect(h.files(h.failed) == ["clip.mp4", "clip.mp4.error.txt"])
        let reason = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("clip.mp4.error.txt"), encoding: .utf8)
        #expect(reason.contains("No space left on device"), "\(reason)")
        // The error file lists every try the journal shows: the render, then three
        // publishing tries, and counts them so.
        let listed = reason.components(separatedBy: "\n").filter { $0.hasPrefix("  attempt ") || $0.hasPrefix("  publishing, try ") }
        #expect(listed.map { $0.prefix(while: { $0 != ":" }) } == ["  attempt 1", "  publishing, try 1", "  publishing, try 2", "  publishing, try 3"],
                "\(reason)")
        #expect(listed.dropFirst().allSatisfy { $0.contains("No space left on device") }, "\(reason)")
        #expect(reason.contains("Attempts: 1 render, then 3 tries of the steps after it\n"), "\(reason)")
        #expect(h.files(h.outbox, hidden: true) == [], "\(h.files(h.outbox, hidden: true))")
        #expect(h.claimedLeftovers() == [])
    }

    /// One `--once` run: a set published as the recipe names it; a second one whose poster
    /// name is taken gets `-1` on every name, its manifest's too; a set that cannot be made
    /// (its sidecar's poster lies past the clip's end) fails before anything is written; a
    /// set with an HLS ladder whose folder name is taken (someone's folder `d/`) is
    /// published as `d.small-1.mp4`, the folder `d-1/` holding `d.m3u8`, and
    /// `d.dropcut-1.json`, someone's folder untouched. The done line, the record and
    /// `dropcut status` list every file (a ladder as its master in its folder).
    @Test func setsArePublishedWholeUnderOneSuffixWithTheManifestLast() async throws {
        try Journald.ensureRunning()
        let h = try Self.harness(outputMode: "0640")
        try h.drop("a.mp4")
        try h.drop("b.mp4")
        try h.drop("c.mp4")
        try h.write("c.yaml", """
            version: 1
            outputs:
              - { filename: "{name}.late.png", poster: { at: 5 } }

            """)
        try h.drop("d.mp4")
        try h.write("d.yaml", Self.ladderRecipe)
        try FileManager.default.createDirectory(atPath: h.outbox, withIntermediateDirectories: true)
        try "someone else's".write(toFile: (h.outbox as NSString).appendingPathComponent("b.poster.png"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: (h.outbox as NSString).appendingPathComponent("d"), withIntermediateDirectories: false)
        try "someone else's".write(toFile: (h.outbox as NSString).appendingPathComponent("d/d.m3u8"), atomically: true, encoding: .utf8)

        let result = try await h.runOnce()

        #expect(result.status == 1, "stderr:\n\(result.stderr)")
        #expect(result.stdout.contains("3 done, 1 failed"), "\(result.stdout)")
        let a = Self.names("a"), b = Self.names("b", suffix: "-1")
        let d = ["d.small-1.mp4", "d-1", "d.dropcut-1.json"]
        // Nothing hidden left: no temporary file or folder, no placeholder.
        #expect(h.files(h.outbox, hidden: true) == (a + b + ["b.poster.png"] + d + ["d"]).sorted())
        #expect(h.files(h.archive) == ["a.mp4", "b.mp4", "d.mp4", "d.yaml"])
        #expect(h.files(h.failed) == ["c.mp4", "c.mp4.error.txt", "c.yaml"])
        #expect(h.claimedLeftovers() == [])
        let error = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("c.mp4.error.txt"), encoding: .utf8)
        #expect(error.contains("poster.at 5.0 s is not within the output"), "\(error)")
        func out(_ name: String) -> String { (h.outbox as NSString).appendingPathComponent(name) }
        #expect(try String(contentsOfFile: out("b.poster.png"), encoding: .utf8) == "someone else's")

        // Real files: the sizes the recipe asks for.
        #expect(try FFprobe.stream("video", of: out("a.vertical.mp4")).map { [$0.width, $0.height] } == [120, 160])
        #expect(try FFprobe.stream("video", of: out("b.wide-1.mp4")).map { [$0.width, $0.height] } == [160, 120])
        #expect(try FFprobe.streams(of: out("a.poster.png")).first?.codecName == "png")
        // Each manifest lists its own set by the published names, with their checksums.
        for (stem, names) in [("a", a), ("b", b)] {
            let manifest = try Self.manifest(out(names[3]))
            #expect(manifest.input == "\(stem).mp4")
            #expect(manifest.files.map(\.name) == Array(names.prefix(3)))
            #expect(manifest.files.map(\.kind) == ["video", "video", "poster"])
            for file in manifest.files {
                #expect(file.sha256 == (try await Self.sha256(out(file.name))), "\(file.name)")
                let size = try FileManager.default.attributesOfItem(atPath: out(file.name))[.size] as? Int
                #expect(size.map(Int64.init) == file.bytes)
            }
        }

        // The ladder: published whole under the set's number (the folder only: the master
        // inside keeps its name), playable, listed once in the manifest, the folder's mode
        // on its files (0640) and x where r is on its folders (0750); someone's `d/` as it was.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out("d")) == ["d.m3u8"])
        #expect(try String(contentsOfFile: out("d/d.m3u8"), encoding: .utf8) == "someone else's")
        let ladder = Self.tree(out("d-1"))
        #expect(ladder["d.m3u8"] == 0o640 && ladder["120p"] == 0o750 && ladder["72p"] == 0o750 && ladder["audio"] == 0o750, "\(ladder)")
        #expect(ladder.filter { !["120p", "72p", "audio"].contains($0.key) }.allSatisfy { $0.value == 0o640 }, "\(ladder)")
        #expect(ladder.keys.contains("120p/index.m3u8") && ladder.keys.contains("72p/seg-00000.m4s") && ladder.keys.contains("audio/init.mp4"), "\(ladder.keys.sorted())")
        var mode = stat()
        stat(out("d-1"), &mode)
        #expect(mode.st_mode & 0o777 == 0o750)
        let decoded = try await Command.run("/usr/bin/ffmpeg", ["-v", "error", "-i", out("d-1/d.m3u8"), "-map", "0", "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        let dManifest = try Self.manifest(out("d.dropcut-1.json"))
        #expect(dManifest.files.map(\.name) == ["d.small-1.mp4", "d-1/d.m3u8"])
        #expect(dManifest.files.map(\.kind) == ["video", "hls"])
        #expect(dManifest.files.last?.sha256 == (try await Self.sha256(out("d-1/d.m3u8"))))
        let ladderBytes = try ladder.keys.reduce(Int64(0)) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: out("d-1/" + name))
            return total + ((attributes[.type] as? FileAttributeType) == .typeRegular ? Int64(attributes[.size] as? Int ?? 0) : 0)
        }
        #expect(dManifest.files.last?.bytes == ladderBytes)
        #expect(result.stderr.contains("done d.mp4 -> d.small-1.mp4, d-1/d.m3u8, d.dropcut-1.json"), "\(result.stderr)")

        // The journal's done line, the record and `dropcut status` name every file.
        #expect(result.stderr.contains("done a.mp4 -> \(a.joined(separator: ", "))"), "\(result.stderr)")
        #expect(result.stderr.contains("done b.mp4 -> \(b.joined(separator: ", "))"), "\(result.stderr)")
        var done: [[String: String]] = []
        await DaemonHarness.waitUntilAsync(.seconds(10)) {
            done = ((try? await Journald.entries(matching: "DROPCUT_FOLDER", value: h.folderName)) ?? [])
                .filter { $0["MESSAGE_ID"] == MessageID.jobDone.rawValue }
            return done.count >= 3
        }
        let dDone = done.first { $0["DROPCUT_INPUT"]?.hasSuffix("/d.mp4") == true }
        #expect(dDone?["DROPCUT_OUTPUTS"] == [out("d.small-1.mp4"), out("d-1/d.m3u8"), out("d.dropcut-1.json")].joined(separator: ","))
        let aDone = done.first { $0["DROPCUT_INPUT"]?.hasSuffix("/a.mp4") == true }
        #expect(aDone?["DROPCUT_OUTPUT"] == out("a.dropcut.json"))
        #expect(aDone?["DROPCUT_OUTPUTS"] == a.map(out).joined(separator: ","))
        let store = JobStore(stateDirectory: h.state)
        let record = try #require(store.all().first { $0.input == "b.mp4" })
        #expect(record.state == .done && record.setSuffix == 1)
        #expect(record.deliverables?.map { ($0.output.map { ($0 as NSString).lastPathComponent }) ?? "" } == b)
        #expect(record.output == out("b.dropcut-1.json"))
        let status = try await DropcutProcess.run(["status", "--config", h.configPath])
        #expect(status.stdout.contains("/a.mp4 -> \(a.joined(separator: ", "))"), "\(status.stdout)")
        #expect(status.stdout.contains("/d.mp4 -> d.small-1.mp4, d-1/d.m3u8, d.dropcut-1.json"), "\(status.stdout)")
        let json = try h.statusJSON()
        let doneJobs = try #require(json["done"] as? [[String: Any]])
        let listed = doneJobs.first { $0["input"] as? String == "a.mp4" }?["deliverables"] as? [[String: Any]]
        #expect(listed?.compactMap { ($0["output"] as? String).map { ($0 as NSString).lastPathComponent } } == a)
    }

    /// A rendition that fails — its worker killed once the set's first video is written and
    /// the second is under way — fails the job: nothing is published, every temporary file
    /// of the set is removed, and the clip goes to failed/ with the reason.
    /// A set whose second video is slow (a large, carefully encoded picture): caught while
    /// it renders, its first video complete.
    static let slowRecipe = """
        version: 1
        output: { fps: 15, video: { crf: 30, preset: ultrafast } }
        outputs:
          - { filename: "{name}.small.mp4", size: 120x160, fit: fill }
          - { filename: "{name}.large.mp4", size: 1080x1920, fit: fill, fps: 30, video: { crf: 16, preset: veryslow } }
          - { filename: "{name}.poster.png", size: 120x160, fit: fill, poster: { at: 0.5 } }

        """

    /// Waits until the set's first two temporary files are in the outbox (the second video
    /// under way), then runs `then` (a kill) once; whether it was caught so.
    static func whileTheSecondVideoRenders(_ h: DaemonHarness, then act: () -> Void) -> Bool {
        // Polled on this thread (see `WorkerAtWork.stop`): the second video renders for a moment.
        DaemonHarness.waitUntilBlocking(.seconds(60)) {
            guard h.files(h.outbox, hidden: true).filter({ $0.contains(".partial-") }).count >= 2 else { return false }
            act()
            return true
        }
    }

    @Test func aFailedRenditionPublishesNothingAndLeavesNoTemporaryFile() async throws {
        let h = try Self.harness(retries: 0, recipe: Self.slowRecipe)
        try h.drop("k.mp4")
        let daemon = try h.startDaemon()
        var killed: Int32?
        let caught = Self.whileTheSecondVideoRenders(h) {
            killed = ProcessInspection.children(of: daemon.pid).first
            if let killed { kill(killed, SIGKILL) }
        }
        #expect(caught && killed != nil, "log:\n\(h.daemonLog)")
        let errorFile = (h.failed as NSString).appendingPathComponent("k.mp4.error.txt")
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { FileManager.default.fileExists(atPath: errorFile) }, "log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0)
        #expect(h.files(h.outbox, hidden: true) == [])
        #expect(h.files(h.failed) == ["k.mp4", "k.mp4.error.txt"])
        #expect(h.files(h.archive) == [])
        #expect(h.claimedLeftovers() == [])
        let text = try String(contentsOfFile: errorFile, encoding: .utf8)
        #expect(text.contains("attempt 1: killed by signal 9 (SIGKILL) after"), "\(text)")
    }

    /// kill -9 of the daemon itself while its worker renders a set: the record knows every
    /// file of the set already; the next start removes the temporary files, renders the
    /// set again (the attempt not counted) and publishes it once.
    @Test func killMinus9MidSetLeavesNoTemporaryFileAndTheSetIsPublishedOnce() async throws {
        let h = try Self.harness(retries: 0, recipe: Self.slowRecipe)
        try h.drop("m.mp4")
        let daemon = try h.startDaemon()
        let caught = Self.whileTheSecondVideoRenders(h) { daemon.signal(SIGKILL) }
        #expect(caught, "log:\n\(h.daemonLog)")
        #expect(await daemon.wait() == 128 + SIGKILL)
        let store = JobStore(stateDirectory: h.state)
        let killed = try #require(store.all().first)
        #expect(killed.state == .rendering)
        #expect(killed.deliverables?.map(\.name) == ["m.small.mp4", "m.large.mp4", "m.poster.png", "m.dropcut.json"])
        #expect(h.files(h.outbox, hidden: true).allSatisfy { $0.contains(".partial-\(killed.id)") }, "\(h.files(h.outbox, hidden: true))")
        // The clip's next render is quick: the folder's recipe now makes the small set.
        try Self.recipe.write(toFile: h.dir.file("set.yaml"), atomically: false, encoding: .utf8)

        let result = try await h.runOnce()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.outbox, hidden: true) == Self.names("m").sorted())
        #expect(h.files(h.archive) == ["m.mp4"])
        #expect(h.claimedLeftovers() == [])
        let record = try #require(store.all().first)
        #expect(record.state == .done && record.attempts == 1, "\(record.state) \(record.attempts)")
        #expect(record.history == ["attempt 1: interrupted: dropcut stopped while its worker was rendering (not counted against the clip)"])
    }

    /// kill -9 at every step of a set's commit, set up exactly (as DaemonRecoveryTests does
    /// for one output): the next start ends each job with exactly one complete set, its
    /// manifest matching, the original archived — files already rendered are published,
    /// not rendered again — and a set killed mid-render is rendered again from scratch.
    @Test func aSetIsRecoveredAfterACrashAtEveryStep() async throws {
        let h = try Self.harness()
        let claimedRoot = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        for folder in [claimedRoot, h.outbox, h.archive] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        func out(_ name: String) -> String { (h.outbox as NSString).appendingPathComponent(name) }
        func inode(_ path: String) -> UInt64 {
            var info = stat()
            stat(path, &info)
            return UInt64(info.st_ino)
        }
        /// A claimed clip with a set: its files "rendered" (text) under their temporary
        /// names and described as the worker describes them; `edit` then publishes some.
        func job(_ stem: String, _ state: JobRecord.State, rendered: Bool = true,
                 _ edit: (inout JobRecord, [String]) throws -> Void = { _, _ in }) async throws {
            let id = "\(stem)-job"
            let dir = (claimedRoot as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: (dir as NSString).appendingPathComponent("\(stem).mp4"))
            var record = JobRecord(id: id, folder: h.folderName, input: "\(stem).mp4", sidecars: [], state: state)
            record.recipes = ["set.yaml"]
            record.attempts = 1
            let names = Self.names(stem)
            var set: [DeliverableRecord] = []
            for (index, name) in names.enumerated() {
                let temporary = PartialOutput(directory: h.outbox, filename: name, tag: id).path
                var entry = DeliverableRecord(name: name, kind: index == 3 ? "manifest" : "video", temporary: temporary)
                if index < 3, rendered {
                    let text = "rendered \(name)"
                    try text.write(toFile: temporary, atomically: false, encoding: .utf8)
                    entry.inode = inode(temporary)
                    entry.file = Deliverables.File(name: name, kind: "video", bytes: Int64(text.utf8.count), width: 2, height: 2,
                                                   sha256: try await Self.sha256(temporary))
                }
                set.append(entry)
            }
            record.deliverables = set
            try edit(&record, names)
            try store.save(&record)
        }
        /// Publishes file `index` of the record's set under its name as `link` leaves it
        /// (`both`: killed between link and unlink).
        func publish(_ record: inout JobRecord, _ index: Int, both: Bool = false, recorded: Bool = true) throws {
            let entry = try #require(record.deliverables?[index])
            let temporary = try #require(entry.temporary)
            try #require(link(temporary, out(entry.name)) == 0)
            if !both { unlink(temporary) }
            if recorded { record.deliverables?[index].output = out(entry.name) }
        }

        // r: killed mid-render: one file half written, the rest not begun.
        try await job("r", .rendering, rendered: false) { record, _ in
            let first = try #require(record.deliverables?.first?.temporary)
            try "half a render".write(toFile: first, atomically: false, encoding: .utf8)
        }
        // s: rendered and recorded (committing), killed before the suffix was chosen.
        try await job("s", .committing)
        // t: suffix chosen, the first file linked (its temporary name still there), the
        // second published but not yet recorded, the third not published.
        try await job("t", .committing) { record, _ in
            record.setSuffix = 0
            try publish(&record, 0, both: true)
            try publish(&record, 1, recorded: false)
        }
        // u: every file published, killed before the manifest was written.
        try await job("u", .committing) { record, _ in
            record.setSuffix = 0
            for index in 0..<3 { try publish(&record, index) }
        }
        // v: the manifest written (its inode recorded) and linked, not recorded as published.
        var manifestInode: UInt64 = 0
        try await job("v", .committing) { record, names in
            record.setSuffix = 0
            for index in 0..<3 { try publish(&record, index) }
            let manifest = try #require(record.deliverables?[3].temporary)
            try Deliverables.manifest(input: "v.mp4", files: (record.deliverables ?? []).compactMap(\.file))
                .write(to: URL(fileURLWithPath: manifest))
            manifestInode = inode(manifest)
            record.deliverables?[3].inode = manifestInode
            try #require(link(manifest, out(names[3])) == 0)
        }
        // w: committed (the manifest published), killed before the original was archived.
        try await job("w", .committed) { record, names in
            record.setSuffix = 0
            for index in 0..<3 { try publish(&record, index) }
            try "the manifest".write(toFile: out(names[3]), atomically: false, encoding: .utf8)
            record.deliverables?[3].output = out(names[3])
            record.deliverables?[3].temporary = nil
            record.output = out(names[3])
        }

        // x, y: a set with an HLS ladder (a folder `.x.partial-x-job/`), its video published.
        // x: the ladder's folder renamed into place, killed before the record said so.
        // y: killed after the ladder's name was reserved (an empty folder with the job's
        // mark, as the placeholder method leaves it over sshfs), before the rename.
        var ladderInodes: [String: UInt64] = [:]
        for stem in ["x", "y"] {
            let id = "\(stem)-job"
            let dir = (claimedRoot as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: (dir as NSString).appendingPathComponent("\(stem).mp4"))
            var record = JobRecord(id: id, folder: h.folderName, input: "\(stem).mp4", sidecars: [], state: .committing)
            record.recipes = ["set.yaml"]
            record.attempts = 1
            record.setSuffix = 0
            var video = DeliverableRecord(name: "\(stem).small.mp4", kind: "video", temporary: PartialOutput(directory: h.outbox, filename: "\(stem).small.mp4", tag: id).path)
            try "rendered \(stem).small.mp4".write(toFile: video.temporary!, atomically: false, encoding: .utf8)
            video.inode = inode(video.temporary!)
            video.file = Deliverables.File(name: video.name, kind: "video", bytes: Int64("rendered \(stem).small.mp4".utf8.count),
                                           width: 2, height: 2, sha256: try await Self.sha256(video.temporary!))
            try #require(rename(video.temporary!, out(video.name)) == 0)
            video.output = out(video.name)
            var ladder = DeliverableRecord(name: "\(stem).m3u8", kind: "hls", temporary: PartialOutput(directory: h.outbox, filename: stem, tag: id).path)
            let folder = ladder.temporary!
            try FileManager.default.createDirectory(atPath: folder + "/120p", withIntermediateDirectories: true)
            try "#EXTM3U".write(toFile: folder + "/\(stem).m3u8", atomically: false, encoding: .utf8)
            try "segment".write(toFile: folder + "/120p/seg-00000.m4s", atomically: false, encoding: .utf8)
            ladder.inode = inode(folder)
            ladderInodes[stem] = ladder.inode
            ladder.file = Deliverables.File(name: "\(stem)/\(stem).m3u8", kind: "hls", bytes: 14, width: 160, height: 120,
                                            sha256: try await Self.sha256(folder + "/\(stem).m3u8"))
            if stem == "x" {
                try #require(rename(folder, out(stem)) == 0)
            } else {
                try #require(mkdir(out(stem), 0o700) == 0)
                let mark = timespec(tv_sec: PublishPlaceholder.mark(tag: id), tv_nsec: 0)
                try #require(utimensat(AT_FDCWD, out(stem), [mark, mark], 0) == 0)
            }
            let manifest = DeliverableRecord(name: "\(stem).dropcut.json", kind: "manifest",
                                             temporary: PartialOutput(directory: h.outbox, filename: "\(stem).dropcut.json", tag: id).path)
            record.deliverables = [video, ladder, manifest]
            try store.save(&record)
        }

        let result = try await h.runOnce()

        #expect(result.status == 0, "\(result.stderr)")
        let stems = ["r", "s", "t", "u", "v", "w"]
        let ladders = ["x", "y"].flatMap { ["\($0).small.mp4", $0, "\($0).dropcut.json"] }
        #expect(h.files(h.outbox, hidden: true) == (stems.flatMap { Self.names($0) } + ladders).sorted())
        #expect(h.files(h.archive, hidden: true) == (stems + ["x", "y"]).map { "\($0).mp4" })
        for stem in ["x", "y"] {
            // The ladder's folder itself (found by its inode, or put in place of the
            // reservation), listed by the manifest as its master in it.
            #expect(inode(out(stem)) == ladderInodes[stem], "\(stem)")
            #expect(try String(contentsOfFile: out("\(stem)/120p/seg-00000.m4s"), encoding: .utf8) == "segment")
            #expect(try Self.manifest(out("\(stem).dropcut.json")).files.map(\.name) == ["\(stem).small.mp4", "\(stem)/\(stem).m3u8"])
        }
        #expect(h.claimedLeftovers() == [])
        #expect(store.all().allSatisfy { $0.state == .done }, "\(store.all().map { "\($0.input) \($0.state)" })")
        for stem in stems {
            let names = Self.names(stem)
            // Rendered files are published as they were, never rendered twice.
            if stem != "r" {
                for name in names.prefix(3) {
                    #expect(try String(contentsOfFile: out(name), encoding: .utf8) == "rendered \(name)")
                }
            }
            if stem == "w" {
                #expect(try String(contentsOfFile: out(names[3]), encoding: .utf8) == "the manifest")
                continue
            }
            let manifest = try Self.manifest(out(names[3]))
            #expect(manifest.files.map(\.name) == Array(names.prefix(3)), "\(stem)")
            for file in manifest.files {
                #expect(file.sha256 == (try await Self.sha256(out(file.name))), "\(file.name)")
            }
        }
        // v's manifest was found by its inode, not written twice.
        #expect(inode(out("v.dropcut.json")) == manifestInode)
        // The set killed mid-render is a real, complete one.
        #expect(try FFprobe.stream("video", of: out("r.vertical.mp4")).map { [$0.width, $0.height] } == [120, 160])
        #expect(result.stderr.contains("recovering r.mp4: rendering it again"), "\(result.stderr)")
    }
}
