import Foundation
import Logging
import Testing
@testable import DropcutDaemon
import DropcutPipeline
import TestSupport

/// A deliverable set's commit (`JobRunner.commit`) on a real folder, in the cases a
/// daemon run cannot set up on cue: a name taken after the set's number was chosen (another
/// host publishing it at that moment), a file gone before it was published, and a set taken
/// over from a holder that was publishing it; and an HLS ladder — a folder — sealed,
/// published, numbered, found after a crash and taken back as a whole. The kill -9 cases
/// run the daemon itself (DeliverableSetDaemonTests).
@Suite struct DeliverableSetCommitTests {
    let dir: TemporaryDirectory
    let folder: FolderConfig
    let store: JobStore
    let runner: JobRunner
    let id = "20261127T080000Z-aaaaaaaaaaaa"
    let names = ["clip.vertical.mp4", "clip.wide.mp4", "clip.poster.png", "clip.dropcut.json"]

    init() throws {
        dir = try TemporaryDirectory()
        folder = FolderConfig(name: "social", inbox: dir.file("inbox"), outbox: dir.file("outbox"), failed: dir.file("failed"),
                              archive: dir.file("archive"))
        for path in [folder.claimedDirectory, folder.outbox] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        store = JobStore(stateDirectory: dir.file("state"))
        try store.prepare()
        let owner = HostIdentity(host: "host-a", machineID: String(repeating: "c", count: 32),
                                 bootID: String(repeating: "d", count: 32), pid: getpid())
        runner = JobRunner(store: store, logger: Logger(label: "set"), keeper: LeaseKeeper(owner: owner), metrics: DaemonMetrics(version: "test", workers: 1))
    }

    func out(_ name: String) -> String { (folder.outbox as NSString).appendingPathComponent(name) }

    func inode(_ path: String) -> UInt64 {
        var info = stat()
        stat(path, &info)
        return UInt64(info.st_ino)
    }

    /// A committing job whose three files are rendered under job `tag`'s temporary names.
    func committingJob(tag: String? = nil) throws -> JobRecord {
        var record = JobRecord(id: id, folder: folder.name, input: "clip.mov", sidecars: [], state: .committing)
        record.attempts = 1
        record.deliverables = try names.enumerated().map { index, name in
            let temporary = PartialOutput(directory: folder.outbox, filename: name, tag: tag ?? id).path
            var entry = DeliverableRecord(name: name, kind: index == 3 ? "manifest" : "video", temporary: temporary)
            if index < 3 {
                let text = "rendered \(name)"
                try text.write(toFile: temporary, atomically: false, encoding: .utf8)
                entry.inode = inode(temporary)
                entry.file = Deliverables.File(name: name, kind: "video", bytes: Int64(text.utf8.count), width: 2, height: 2,
                                               sha256: String(repeating: "0", count: 64))
            }
            return entry
        }
        try store.save(&record)
        return record
    }

    func visible() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.outbox)) ?? []).sorted()
    }

    func manifestNames(_ path: String) throws -> [String] {
        struct Manifest: Decodable { var files: [Deliverables.File] }
        return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: path))).files.map(\.name)
    }

    /// The set's number was chosen (0) and its first file published when another host took
    /// `clip.wide.mp4`: the first file is taken back and the whole set goes to `-1`.
    @Test func aNameTakenAfterTheNumberWasChosenMovesTheWholeSetToTheNext() throws {
        var record = try committingJob()
        record.setSuffix = 0
        let first = try #require(record.deliverables?[0].temporary)
        #expect(try DurableFiles.publishExclusively(first, as: out(names[0]), tag: id))
        record.deliverables?[0].output = out(names[0])
        try "another host's".write(toFile: out("clip.wide.mp4"), atomically: true, encoding: .utf8)

        try runner.commit(&record, folder: folder)

        let numbered = ["clip.vertical-1.mp4", "clip.wide-1.mp4", "clip.poster-1.png", "clip.dropcut-1.json"]
        #expect(visible() == (numbered + ["clip.wide.mp4"]).sorted())
        #expect(record.state == .committed && record.setSuffix == 1)
        #expect(record.output == out("clip.dropcut-1.json"))
        #expect(try manifestNames(out("clip.dropcut-1.json")) == Array(numbered.prefix(3)))
        #expect(try String(contentsOfFile: out("clip.vertical-1.mp4"), encoding: .utf8) == "rendered clip.vertical.mp4")
        #expect(try String(contentsOfFile: out("clip.wide.mp4"), encoding: .utf8) == "another host's")
        // The record read back says the same.
        #expect(store.all().first?.deliverables?.compactMap(\.output) == numbered.map(out))
    }

    /// A file of the set gone before it was published: what was published is taken back,
    /// the temporary files go, and the clip is rendered again (transient).
    @Test func aFileGoneBeforeItWasPublishedSendsTheSetBackToRendering() throws {
        var record = try committingJob()
        record.setSuffix = 0
        let first = try #require(record.deliverables?[0].temporary)
        #expect(try DurableFiles.publishExclusively(first, as: out(names[0]), tag: id))
        record.deliverables?[0].output = out(names[0])
        unlink(try #require(record.deliverables?[2].temporary))

        #expect(throws: JobFailure.self) { try runner.commit(&record, folder: folder) }
        #expect(visible() == [])
        #expect(record.state == .claimed && record.deliverables == nil && record.setSuffix == nil)
        #expect(store.all().first?.state == .claimed)
    }

    /// A set taken over from a holder that had published one file: the taker keeps it, takes
    /// the others from the holder's temporary names to its own, and completes the set once.
    @Test func aSetTakenOverMidCommitIsCompletedOnce() throws {
        let holder = "20261127T075900Z-bbbbbbbbbbbb"
        var record = try committingJob(tag: holder)
        record.setSuffix = 0
        let first = try #require(record.deliverables?[0].temporary)
        #expect(try DurableFiles.publishExclusively(first, as: out(names[0]), tag: holder))
        record.deliverables?[0].output = "/elsewhere/outbox/" + names[0]   // the holder's view of the share
        record.store(in: .committing)
        // What `adopt` does for a committing set (the record is the lease's, its id the
        // taker's), then the commit.
        try runner.takeFinishedSet(&record, holderSet: names.map { PartialOutput(directory: folder.outbox, filename: $0, tag: holder).path },
                                   folder: folder)
        #expect(record.deliverables?[0].output == out(names[0]))
        #expect(record.deliverables?[1].temporary == PartialOutput(directory: folder.outbox, filename: names[1], tag: id).path)
        try runner.commit(&record, folder: folder)

        #expect(visible() == names.sorted())
        #expect(try manifestNames(out("clip.dropcut.json")) == Array(names.prefix(3)))
        for name in names.prefix(3) {
            #expect(try String(contentsOfFile: out(name), encoding: .utf8) == "rendered \(name)")
        }
    }

    // MARK: HLS ladders

    /// A set of a video and an HLS ladder as the worker leaves it (`rendering`, described):
    /// the ladder a folder `.clip.partial-<id>` holding its master, a rung's playlist and
    /// segment. Returns the record and the ladder's bytes.
    func ladderJob() throws -> JobRecord {
        var record = JobRecord(id: id, folder: folder.name, input: "clip.mov", sidecars: [], state: .rendering)
        record.attempts = 1
        let files: [(String, String)] = [("clip.video.mp4", "video"), ("clip.m3u8", "hls"), ("clip.dropcut.json", "manifest")]
        record.deliverables = try files.map { name, kind in
            var entry = DeliverableRecord(name: name, kind: kind, temporary: nil)
            let temporary = PartialOutput(directory: folder.outbox, filename: entry.publishedName, tag: id).path
            entry.temporary = temporary
            switch kind {
            case "video":
                try "rendered \(name)".write(toFile: temporary, atomically: false, encoding: .utf8)
                entry.file = Deliverables.File(name: name, kind: kind, bytes: Int64("rendered \(name)".utf8.count), width: 2,
                                               height: 2, sha256: String(repeating: "0", count: 64))
            case "hls":
                var bytes: Int64 = 0
                for (file, text) in [("clip.m3u8", "#EXTM3U master"), ("240p/index.m3u8", "#EXTM3U rung"), ("240p/seg-00000.m4s", "segment")] {
                    let path = (temporary as NSString).appendingPathComponent(file)
                    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try text.write(toFile: path, atomically: false, encoding: .utf8)
                    bytes += Int64(text.utf8.count)
                }
                entry.file = Deliverables.File(name: "clip/clip.m3u8", kind: kind, bytes: bytes, width: 320, height: 240,
                                               sha256: String(repeating: "1", count: 64))
            default:
                break
            }
            return entry
        }
        try store.save(&record)
        return record
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        lstat(path, &info)
        return info.st_mode & 0o777
    }

    /// The worker's ladder folder is sealed (every file the folder's mode, every folder the
    /// mode with x where r is, the folder's inode recorded) and published whole beside the
    /// video; the manifest, the record and the done line name it `clip/clip.m3u8`.
    @Test func aLadderIsSealedAndPublishedWholeBesideTheFiles() throws {
        var record = try ladderJob()
        var folder = folder
        folder.outputMode = 0o640
        let ladder = try #require(record.deliverables?[1].temporary)
        try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1)
        #expect(record.state == .committing)
        #expect(record.deliverables?[1].inode == inode(ladder))
        #expect(mode(ladder) == 0o750 && mode(ladder + "/240p") == 0o750)
        #expect(mode(ladder + "/clip.m3u8") == 0o640 && mode(ladder + "/240p/seg-00000.m4s") == 0o640)

        try runner.commit(&record, folder: folder)

        #expect(visible() == ["clip", "clip.dropcut.json", "clip.video.mp4"])
        #expect(try String(contentsOfFile: out("clip/clip.m3u8"), encoding: .utf8) == "#EXTM3U master")
        #expect(try String(contentsOfFile: out("clip/240p/seg-00000.m4s"), encoding: .utf8) == "segment")
        #expect(try manifestNames(out("clip.dropcut.json")) == ["clip.video.mp4", "clip/clip.m3u8"])
        #expect(record.state == .committed && record.deliverables?[1].output == out("clip"))
        #expect(record.outputNames == ["clip.video.mp4", "clip/clip.m3u8", "clip.dropcut.json"])
        #expect(record.deliverables?.compactMap(\.publishedPath) == [out("clip.video.mp4"), out("clip/clip.m3u8"), out("clip.dropcut.json")])
        #expect(LadderFolder.directoryMode(for: 0o644) == 0o755 && LadderFolder.directoryMode(for: 0o600) == 0o700
                && LadderFolder.directoryMode(for: 0o444) == 0o755)
    }

    /// A ladder that is not what a worker may leave fails the attempt before anything is
    /// published: a symlink in it (never followed), a FIFO (never opened), bytes that differ
    /// from the worker's description, a file where the folder should be.
    @Test func aLadderThatIsNotOnlyTheDescribedFilesAndFoldersIsRefused() throws {
        var record = try ladderJob()
        let ladder = try #require(record.deliverables?[1].temporary)
        try "elsewhere".write(toFile: dir.file("elsewhere"), atomically: false, encoding: .utf8)
        chmod(dir.file("elsewhere"), 0o600)
        #expect(symlink(dir.file("elsewhere"), ladder + "/240p/seg-00001.m4s") == 0)
        var folder = folder
        folder.outputMode = 0o644
        #expect(throws: JobFailure.self) { try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1) }
        #expect(mode(dir.file("elsewhere")) == 0o600)   // not followed
        unlink(ladder + "/240p/seg-00001.m4s")
        #expect(mkfifo(ladder + "/240p/seg-00001.m4s", 0o600) == 0)   // refused, never waited on
        #expect(throws: JobFailure.self) { try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1) }
        unlink(ladder + "/240p/seg-00001.m4s")
        try "more".write(toFile: ladder + "/240p/seg-00001.m4s", atomically: false, encoding: .utf8)
        #expect(throws: JobFailure.self) { try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1) }
        PartialOutput(path: ladder).remove()
        try "a file".write(toFile: ladder, atomically: false, encoding: .utf8)
        #expect(throws: JobFailure.self) { try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1) }
        #expect(record.state == .rendering)
        #expect(visible().filter { !$0.hasPrefix(".") } == [])   // nothing published
        // What the failure then does: every temporary of the set goes, a ladder's folder whole.
        try FileManager.default.removeItem(atPath: ladder)
        try FileManager.default.createDirectory(atPath: ladder + "/240p", withIntermediateDirectories: true)
        try "segment".write(toFile: ladder + "/240p/seg-00000.m4s", atomically: false, encoding: .utf8)
        runner.removeSetTemporaries(&record, folder: folder)
        #expect(visible() == [] && record.deliverables == nil)
        #expect(mode(dir.file("elsewhere")) == 0o600 && FileManager.default.fileExists(atPath: dir.file("elsewhere")))
    }

    /// The set's number chosen (0) and its video published when another host made a folder
    /// `clip/`: the video is taken back, the whole set goes to `-1` — the folder `clip-1/`
    /// still holding `clip.m3u8` — and the other folder is untouched.
    @Test func aTakenLadderFolderMovesTheSetToTheNext() throws {
        var record = try ladderJob()
        try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1)
        record.setSuffix = 0
        let video = try #require(record.deliverables?[0].temporary)
        #expect(try DurableFiles.publishExclusively(video, as: out("clip.video.mp4"), tag: id))
        record.deliverables?[0].output = out("clip.video.mp4")
        try FileManager.default.createDirectory(atPath: out("clip"), withIntermediateDirectories: false)
        try "another host's".write(toFile: out("clip/clip.m3u8"), atomically: false, encoding: .utf8)

        try runner.commit(&record, folder: folder)

        #expect(visible() == ["clip", "clip-1", "clip.dropcut-1.json", "clip.video-1.mp4"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out("clip")) == ["clip.m3u8"])
        #expect(try String(contentsOfFile: out("clip/clip.m3u8"), encoding: .utf8) == "another host's")
        #expect(try String(contentsOfFile: out("clip-1/clip.m3u8"), encoding: .utf8) == "#EXTM3U master")
        #expect(try manifestNames(out("clip.dropcut-1.json")) == ["clip.video-1.mp4", "clip-1/clip.m3u8"])
        #expect(record.setSuffix == 1 && record.outputNames == ["clip.video-1.mp4", "clip-1/clip.m3u8", "clip.dropcut-1.json"])
    }

    /// Killed after the ladder's folder was renamed into place, before the record said so:
    /// the folder is found by its inode, not published twice; a video gone before it was
    /// published takes the published folder back whole.
    @Test func aLadderPublishedBeforeACrashIsFoundByItsInodeOrTakenBackWhole() throws {
        var record = try ladderJob()
        try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1)
        record.setSuffix = 0
        let ladder = try #require(record.deliverables?[1].temporary)
        let folderInode = inode(ladder)
        #expect(rename(ladder, out("clip")) == 0)   // not recorded: the crash
        try store.save(&record)
        var again = record
        try runner.commit(&again, folder: folder)
        #expect(visible() == ["clip", "clip.dropcut.json", "clip.video.mp4"])
        #expect(inode(out("clip")) == folderInode)
        #expect(try manifestNames(out("clip.dropcut.json")) == ["clip.video.mp4", "clip/clip.m3u8"])

        // The same crash, but the video's temporary file is gone: nothing of the set stays.
        for name in visible() { PartialOutput(path: out(name)).remove() }
        var broken = try ladderJob()
        try runner.syncSet(&broken, folder: folder, milliseconds: 10, speed: 1)
        broken.setSuffix = 0
        #expect(rename(try #require(broken.deliverables?[1].temporary), out("clip")) == 0)
        broken.deliverables?[1].output = out("clip")
        unlink(try #require(broken.deliverables?[0].temporary))
        #expect(throws: JobFailure.self) { try runner.commit(&broken, folder: folder) }
        #expect(visible() == [])
        #expect(broken.state == .claimed && broken.deliverables == nil)

        // Killed between reserving the ladder's name (an empty folder with the job's mark:
        // the placeholder method) and renaming the folder onto it, then the set rendered
        // again: its number is still free to it, and the reservation is used, not left.
        var reserved = try ladderJob()
        try runner.syncSet(&reserved, folder: folder, milliseconds: 10, speed: 1)
        _ = try #require(try PublishPlaceholder.reserve(Array(out("clip").utf8CString), tag: id, folder: true))
        let ladderInode = inode(try #require(reserved.deliverables?[1].temporary))
        try runner.commit(&reserved, folder: folder)
        #expect(reserved.setSuffix == 0 && visible() == ["clip", "clip.dropcut.json", "clip.video.mp4"])
        #expect(inode(out("clip")) == ladderInode)
    }

    /// A set with a ladder taken over from a holder that was committing it: the holder's
    /// published video is kept, its ladder folder (under the holder's temporary name) is
    /// moved whole to the taker's, and the set is completed once.
    @Test func aLadderTakenOverMidCommitIsMovedWholeAndPublishedOnce() throws {
        let holder = "20261127T075900Z-bbbbbbbbbbbb"
        var record = try ladderJob()
        try runner.syncSet(&record, folder: folder, milliseconds: 10, speed: 1)
        // As the holder had it: its own temporary names, the video published.
        let holderSet = try (record.deliverables ?? []).map { entry in
            let path = PartialOutput(directory: folder.outbox, filename: entry.publishedName, tag: holder).path
            if let temporary = entry.temporary, access(temporary, F_OK) == 0 { try #require(rename(temporary, path) == 0) }
            return path
        }
        record.setSuffix = 0
        #expect(try DurableFiles.publishExclusively(holderSet[0], as: out("clip.video.mp4"), tag: holder))
        record.deliverables?[0].output = out("clip.video.mp4")
        let folderInode = inode(holderSet[1])

        try runner.takeFinishedSet(&record, holderSet: holderSet, folder: folder)
        #expect(record.deliverables?[1].temporary == PartialOutput(directory: folder.outbox, filename: "clip", tag: id).path)
        try runner.commit(&record, folder: folder)

        #expect(visible() == ["clip", "clip.dropcut.json", "clip.video.mp4"])
        #expect(inode(out("clip")) == folderInode)
        #expect(try manifestNames(out("clip.dropcut.json")) == ["clip.video.mp4", "clip/clip.m3u8"])
    }

    /// A single output rendered under job `tag`'s temporary name, committing: a set of one.
    func committingSingle(tag: String? = nil) throws -> JobRecord {
        var record = JobRecord(id: id, folder: folder.name, input: "clip.mov", sidecars: [], state: .committing)
        record.attempts = 1
        let temporary = PartialOutput(directory: folder.outbox, filename: "clip.dropcut.mp4", tag: tag ?? id).path
        try "rendered".write(toFile: temporary, atomically: false, encoding: .utf8)
        record.recordSingleOutput("clip.dropcut.mp4", temporary: temporary, inode: inode(temporary))
        try store.save(&record)
        return record
    }

    /// A single output is a set of one through the same commit: `name`, then `name-1` when
    /// the name is taken (never replaced), no manifest; the record keeps its set, and says
    /// where the output went.
    @Test func aSingleOutputIsASetOfOneNumberedAsBefore() throws {
        try "someone else's".write(toFile: out("clip.dropcut.mp4"), atomically: false, encoding: .utf8)
        var record = try committingSingle()
        let rendered = try #require(record.deliverables?.first?.inode)
        try runner.commit(&record, folder: folder)
        #expect(record.state == .committed)
        #expect(record.output == out("clip.dropcut-1.mp4") && record.setSuffix == 1)
        #expect(record.deliverables?.count == 1 && record.deliverables?.first?.output == out("clip.dropcut-1.mp4")
                && record.deliverables?.first?.inode == rendered)
        #expect(visible() == ["clip.dropcut-1.mp4", "clip.dropcut.mp4"])
        #expect(try String(contentsOfFile: out("clip.dropcut.mp4"), encoding: .utf8) == "someone else's")
        #expect(try String(contentsOfFile: out("clip.dropcut-1.mp4"), encoding: .utf8) == "rendered")
        #expect(record.outputNames == ["clip.dropcut-1.mp4"])
        // As saved.
        let saved = try #require(store.load().records.first { $0.id == id })
        #expect(saved.state == .committed && saved.output == record.output && saved.deliverables == record.deliverables)
    }

    /// Killed after its suffix was recorded and after the link: the output is found by its
    /// inode, published once, the temporary name gone.
    @Test func aSingleOutputKilledMidCommitIsPublishedOnce() throws {
        var record = try committingSingle()
        record.setSuffix = 0
        let temporary = try #require(record.deliverables?.first?.temporary)
        #expect(link(temporary, out("clip.dropcut.mp4")) == 0)
        try store.save(&record)
        var again = try #require(store.load().records.first { $0.id == id })
        #expect(again.deliverables?.count == 1 && again.deliverables?.first?.isSingleOutput == true)
        try runner.commit(&again, folder: folder)
        #expect(again.state == .committed && again.output == out("clip.dropcut.mp4"))
        #expect(visible() == ["clip.dropcut.mp4"])
    }

    /// A holder killed while it committed a single output: its taker takes the set of one
    /// (renamed to the taker's temporary name) and publishes it once.
    @Test func aCommittingSingleOutputIsTakenOverAndPublishedOnce() throws {
        let holderID = "20261127T070000Z-bbbbbbbbbbbb"
        var holder = try committingSingle(tag: holderID)
        holder.id = holderID
        holder.setSuffix = 0
        try FileManager.default.createDirectory(atPath: (folder.claimedDirectory as NSString).appendingPathComponent(id),
                                                withIntermediateDirectories: true)
        try "clip".write(toFile: ((folder.claimedDirectory as NSString).appendingPathComponent(id) as NSString)
            .appendingPathComponent("clip.mov"), atomically: false, encoding: .utf8)
        var record = JobRecord(id: id, folder: folder.name, input: "clip.mov", sidecars: [], state: .claiming)
        guard case var .resume(taken) = try runner.adopt(&record, found: .success(holder), owner: "host-b", previous: holderID,
                                                         folder: folder) else {
            Issue.record("the committing holder's output was not taken up")
            return
        }
        #expect(taken.state == .committing && taken.deliverables?.count == 1)
        #expect(taken.deliverables?.first?.temporary == PartialOutput(directory: folder.outbox, filename: "clip.dropcut.mp4", tag: id).path)
        try runner.commit(&taken, folder: folder)
        #expect(taken.state == .committed && taken.output == out("clip.dropcut.mp4") && taken.attempts == 1)
        #expect(visible() == ["clip.dropcut.mp4"])
    }

    /// A record written before every output was a set — a single output's
    /// `temporaryOutput`, `temporaryInode` and `output` — is read as its set of one, and
    /// committed as any set: rendered, committing, and published.
    @Test func aSingleOutputsRecordOfTheOldFormIsReadAsASetOfOne() throws {
        let temporary = PartialOutput(directory: folder.outbox, filename: "clip.dropcut.mp4", tag: id).path
        try "rendered".write(toFile: temporary, atomically: false, encoding: .utf8)
        let old = """
            {"id":"\(id)","folder":"social","input":"clip.mov","sidecars":[],"state":"committing",
             "claimedAt":"2026-11-27T08:00:00Z","updatedAt":"2026-11-27T08:00:01Z","attempts":1,"recipes":["identity"],"pid":7,
             "temporaryOutput":"\(temporary)","temporaryInode":\(inode(temporary)),"output":"clip.dropcut.mp4"}
            """
        var record = try JobStore.reading(json: old).get()
        #expect(record.deliverables == [{ () -> DeliverableRecord in
            var entry = DeliverableRecord(name: "clip.dropcut.mp4", kind: DeliverableRecord.singleOutputKind, temporary: temporary)
            entry.inode = inode(temporary)
            return entry
        }()])
        #expect(record.output == nil, "the name it would get is its set's, not a published path")
        try runner.commit(&record, folder: folder)
        #expect(record.state == .committed && record.output == out("clip.dropcut.mp4") && visible() == ["clip.dropcut.mp4"])

        let published = """
            {"id":"\(id)","folder":"social","input":"clip.mov","sidecars":[],"state":"done",
             "claimedAt":"2026-11-27T08:00:00Z","updatedAt":"2026-11-27T08:00:01Z","attempts":1,"recipes":["identity"],"pid":7,
             "temporaryInode":5,"output":"/srv/out/clip.dropcut.mp4"}
            """
        let done = try JobStore.reading(json: published).get()
        #expect(done.output == "/srv/out/clip.dropcut.mp4" && done.deliverables?.first?.output == "/srv/out/clip.dropcut.mp4")
        #expect(done.outputNames == ["clip.dropcut.mp4"])
    }
}
