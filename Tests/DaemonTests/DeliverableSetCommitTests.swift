import Foundation
import Logging
import Testing
@testable import Daemon
import Pipeline
import TestSupport

/// A deliverable set's commit (`JobRunner.commitSet`) on a real folder, in the cases a
/// daemon run cannot set up on cue: a name taken after the set's number was chosen (another
/// host publishing it at that moment), a file gone before it was published, and a set taken
/// over from a holder that was publishing it. The kill -9 cases run the daemon itself
/// (DeliverableSetDaemonTests).
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
        runner = JobRunner(store: store, logger: Logger(label: "set"), keeper: LeaseKeeper(owner: owner))
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

        try runner.commitSet(&record, folder: folder)

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

        #expect(throws: JobFailure.self) { try runner.commitSet(&record, folder: folder) }
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
        record.state = .committing
        // What `adopt` does for a committing set (the record is the lease's, its id the
        // taker's), then the commit.
        try runner.takeFinishedSet(&record, holderSet: names.map { PartialOutput(directory: folder.outbox, filename: $0, tag: holder).path },
                                   folder: folder)
        #expect(record.deliverables?[0].output == out(names[0]))
        #expect(record.deliverables?[1].temporary == PartialOutput(directory: folder.outbox, filename: names[1], tag: id).path)
        try runner.commitSet(&record, folder: folder)

        #expect(visible() == names.sorted())
        #expect(try manifestNames(out("clip.dropcut.json")) == Array(names.prefix(3)))
        for name in names.prefix(3) {
            #expect(try String(contentsOfFile: out(name), encoding: .utf8) == "rendered \(name)")
        }
    }
}
