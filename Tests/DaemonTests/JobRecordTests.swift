import Foundation
import Testing
@testable import DropcutDaemon
import DropcutPipeline

/// `JobRecord`'s bookkeeping of interrupted steps and its checks of what is read back.
@Suite struct JobRecordTests {
    func record(_ state: JobRecord.State) -> JobRecord {
        var record = JobRecord(id: "20261127T010000Z-0123456789ab", folder: "social", input: "clip.mp4", sidecars: [], state: state)
        record.attempts = 1
        return record
    }

    @Test func aDaemonDeathMidRenderIsGivenBackForEver() throws {
        var record = record(.rendering)
        for _ in 0..<150 {
            #expect(record.interrupted("dropcut stopped") == nil)
            // Noted and given back; the state moves only by the machine's event.
            #expect(record.state == .rendering && record.attempts == 0)
            #expect(try record.move(by: .recovered) == [.save])
            #expect(record.state == .claimed)
            record.attempts = 1
            record.store(in: .rendering)
        }
        // Noted each time, but the history stays bounded, so the record stays readable.
        #expect(record.history?.count == JobRecord.maximumHistory)
        #expect(record.problem(in: "job record") == nil)
    }

    @Test func theThirdDeathWhilePreparingQuarantines() {
        var record = record(.preparing)
        #expect(record.interrupted("dropcut stopped") == nil)
        #expect(record.interruptedPreparations == 1 && record.attempts == 0 && record.state == .preparing)
        #expect(record.interrupted("dropcut stopped") == nil)
        let reason = record.interrupted("dropcut stopped")
        #expect(reason?.hasPrefix("dropcut stopped 3 times while it was reading this clip's recipe and sidecars") == true, "\(reason ?? "nil")")
        #expect(record.interruptedPreparations == 3)
        // Other states are not interrupted work.
        var done = self.record(.committed)
        #expect(done.interrupted("dropcut stopped") == nil && done.state == .committed && done.attempts == 1)
    }

    @Test(arguments: ["../x.mp4", "..\\x2Fx.mp4", "/srv/elsewhere/x.mp4", ".", "..", "", "a\\x00b.mp4", "a\\x2F..", "\\x2E\\x2E"])
    func aDroppedNameThatIsNotAPlainNameIsRefused(_ dropped: String) {
        var record = record(.committed)
        record.dropped = ["clip.mp4": dropped]
        #expect(record.problem(in: "lease")?.contains("dropped name that is not a plain name") == true)
        #expect(record.droppedNames.isEmpty, "never handed out as a name")
    }

    @Test func anEscapedNameThatIsPlainIsKept() {
        var record = record(.committed)
        record.dropped = ["clip.mp4": "caf\\xE9.mp4"]
        #expect(record.problem(in: "lease") == nil)
        #expect(record.droppedName("clip.mp4")?.bytes == Array("caf".utf8) + [0xE9] + Array(".mp4".utf8))
    }

    @Test(arguments: ["../out.mp4", "outbox/out.mp4", "/srv/out/../x.mp4", "/srv/./x.mp4", "/srv/out/", ""])
    func anOutputThatIsNotAFilePathIsRefused(_ output: String) {
        var record = record(.committed)
        record.output = output
        #expect(record.problem(in: "job record")?.contains("output is not a path to a file") == true)
    }

    @Test func outputsAsTheDaemonWritesThemAreKept() {
        var record = record(.committing)
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/srv/out/.clip.dropcut.partial-20261127T010000Z-0123456789ab.mp4")
        #expect(record.problem(in: "job record") == nil)
        record.recordSingleOutput("clip.dropcut.mp4", temporary: nil, published: "/srv/out/clip.dropcut-1.mp4")
        record.output = "/srv/out/clip.dropcut-1.mp4"
        #expect(record.problem(in: "job record") == nil)
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/srv/out/clip.mp4")
        #expect(record.problem(in: "job record")?.contains("temporary file is not a path to a hidden file") == true)
    }

    /// A deliverable set's record: read back as written; a record written before sets
    /// existed (no `deliverables`, no `setSuffix`) still loads as a single output's; a
    /// set's names and paths are checked as one output's are.
    @Test func aSetsRecordRoundTripsAndOldRecordsStillLoad() throws {
        var record = record(.committing)
        var file = DeliverableRecord(name: "clip.wide.mp4", kind: "video",
                                     temporary: "/srv/out/.clip.wide.partial-20261127T010000Z-0123456789ab.mp4")
        file.inode = 42
        file.output = "/srv/out/clip.wide-1.mp4"
        record.deliverables = [file, DeliverableRecord(name: "clip.dropcut.json", kind: "manifest", temporary: nil)]
        record.setSuffix = 1
        #expect(record.problem(in: "job record") == nil)
        let decoded = try JSONDecoder().decode(JobRecord.self, from: JSONEncoder().encode(record))
        #expect(decoded == record)
        #expect(decoded.outputNames == ["clip.wide-1.mp4", "clip.dropcut.json"])

        var old = try JSONSerialization.jsonObject(with: JSONEncoder().encode(self.record(.done))) as? [String: Any] ?? [:]
        old["deliverables"] = nil
        old["setSuffix"] = nil
        old["output"] = "/srv/out/clip.dropcut.mp4"
        let loaded = try JSONDecoder().decode(JobRecord.self, from: JSONSerialization.data(withJSONObject: old))
        // A single output's record of the old form is read as its set of one.
        #expect(loaded.deliverables?.count == 1 && loaded.deliverables?.first?.output == "/srv/out/clip.dropcut.mp4")
        #expect(loaded.setSuffix == nil && loaded.outputNames == ["clip.dropcut.mp4"])

        record.deliverables?[0].name = "../clip.wide.mp4"
        #expect(record.problem(in: "lease")?.contains("deliverable that is not a plain name") == true)
        record.deliverables?[0].name = "clip.wide.mp4"
        record.deliverables?[0].temporary = "/srv/out/clip.wide.mp4"
        #expect(record.problem(in: "lease")?.contains("deliverable temporary file is not a path to a hidden file") == true)
        record.deliverables?[0].temporary = nil
        record.setSuffix = -1
        #expect(record.problem(in: "lease")?.contains("set suffix -1 is out of range") == true)
    }

    /// An arrival read back is range-checked where it is parsed: a look count at Int.max
    /// (a hostile lease) would trap when counted up, a clip identity must be one.
    @Test func anArrivalOutOfRangeIsRefused() {
        var record = record(.claimed)
        var arrival = ClipArrival(size: 10, modified: 1)
        record.arrival = arrival
        #expect(record.problem(in: "lease") == nil)
        for (looks, quiet, size) in [(Int.max, 0, Int64(10)), (-1, 0, 10), (0, ClipArrival.maximumQuietLooks + 1, 10), (0, 0, -1)] {
            arrival.looks = looks
            arrival.quietLooks = quiet
            arrival.size = size
            record.arrival = arrival
            #expect(record.problem(in: "lease")?.contains("arrival") == true, "\(looks) \(quiet) \(size)")
        }
        arrival = ClipArrival(size: 10, modified: 1)
        arrival.identity = ClipIdentity(device: 1, inode: 2, size: 10, modified: 1, digest: String(repeating: "a", count: 64))
        record.arrival = arrival
        #expect(record.problem(in: "lease") == nil)
        arrival.identity?.digest = "../../x"
        record.arrival = arrival
        #expect(record.problem(in: "lease")?.contains("clip identity") == true)
    }
}
