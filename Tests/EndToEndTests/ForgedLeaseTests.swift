import Foundation
import Testing
@testable import DropcutDaemon
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 28: on a share where every user maps to one uid, anyone who can drop a clip can
/// write in `.dropcut/`. A lease (or a job record) whose names or paths lead out of the
/// folders — `../`, its escaped form `..\x2F`, an absolute path — is unreadable: its clip
/// goes to failed/ with the reason, and nothing is written outside the folders.
@Suite(.tags(.slow)) struct ForgedLeaseTests {
    /// A record of a forged claim and what the daemon must say about it.
    struct Forgery: Sendable {
        let clip: String
        let reason: String
        let forge: @Sendable (inout JobRecord, String) -> Void
    }

    /// Each kind of field a lease carries, forged to lead to `elsewhere` (next to the inbox).
    static let forgeries: [Forgery] = [
        Forgery(clip: "dropped.mp4", reason: "dropped name that is not a plain name") { record, _ in
            record.dropped = ["dropped.mp4": "../../elsewhere/x.mp4"]
            record.store(in: .committed)
        },
        Forgery(clip: "escaped.mp4", reason: "dropped name that is not a plain name") { record, _ in
            record.dropped = ["escaped.mp4": "..\\x2F..\\x2Felsewhere\\x2Fx.mp4"]
            record.store(in: .failing)
        },
        Forgery(clip: "absolute.mp4", reason: "dropped name that is not a plain name") { record, elsewhere in
            record.dropped = ["absolute.mp4": elsewhere + "/x.mp4"]
            record.store(in: .committed)
        },
        Forgery(clip: "dotdot.mp4", reason: "dropped name that is not a plain name") { record, _ in
            record.dropped = ["dotdot.mp4": ".."]
            record.store(in: .committed)
        },
        Forgery(clip: "sidecar.mp4", reason: "lists a file that is not a plain name") { record, _ in
            record.sidecars = ["../../../elsewhere/x.yaml"]
        },
        Forgery(clip: "output.mp4", reason: "output is not a path to a file") { record, _ in
            record.output = "../../elsewhere/out.mp4"
            record.store(in: .committing)
        },
        Forgery(clip: "temporary.mp4", reason: "temporary file is not a path to a hidden file") { record, elsewhere in
            record.recordSingleOutput("x.mp4", temporary: elsewhere + "/../elsewhere/.x.mp4")
            record.store(in: .committing)
        },
        Forgery(clip: "previous.mp4", reason: "earlier holder that is not a job id") { record, _ in
            record.previousJobs = ["../../elsewhere/x"]
            record.store(in: .committed)
        },
        Forgery(clip: "attempts.mp4", reason: "attempts -1 are out of range") { record, _ in
            record.attempts = -1
        },
        Forgery(clip: "preparations.mp4", reason: "interrupted preparations 99 are out of range") { record, _ in
            record.interruptedPreparations = 99
        },
    ]

    @Test func forgedLeasesSendTheirClipsToFailedAndWriteNothingOutside() async throws {
        let h = try DaemonHarness(settle: 0.1, poll: 0.1, retries: 0, extraSettings: "lease_timeout: 1")
        let elsewhere = h.dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed")
        try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
        let forger = HostIdentity(host: "forger", machineID: String(repeating: "e", count: 32),
                                  bootID: String(repeating: "f", count: 32), pid: 4242)
        var forged = Self.forgeries.map { ($0.clip, $0.reason) }
        for (n, forgery) in Self.forgeries.enumerated() {
            let id = String(format: "20261127T010000Z-%012x", n)
            let folder = (claimed as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: (folder as NSString).appendingPathComponent(forgery.clip))
            var record = JobRecord(id: id, folder: h.folderName, input: forgery.clip, sidecars: [], state: .claimed)
            record.attempts = 1
            forgery.forge(&record, elsewhere)
            try ClaimLease(owner: forger, record: record).write(in: folder, durable: true)
        }
        // A state no dropcut has: the JSON itself is forged.
        do {
            let id = "20261127T010000Z-ffffffffffff"
            let folder = (claimed as NSString).appendingPathComponent(id)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try h.clip(), toPath: (folder as NSString).appendingPathComponent("state.mp4"))
            let record = JobRecord(id: id, folder: h.folderName, input: "state.mp4", sidecars: [], state: .claimed)
            let text = String(decoding: ClaimLease(owner: forger, record: record).encoded(), as: UTF8.self)
                .replacingOccurrences(of: "\"state\":\"claimed\"", with: "\"state\":\"exploded\"")
            try text.write(toFile: ClaimLease.path(in: folder), atomically: true, encoding: .utf8)
            forged.append(("state.mp4", "not a lease"))
        }

        let daemon = try h.startDaemon()
        let expected = forged.flatMap { [$0.0, $0.0 + ".error.txt"] }.sorted()
        #expect(await DaemonHarness.waitUntil(.seconds(30)) { h.files(h.failed) == expected }, "\(h.files(h.failed)); log:\n\(h.daemonLog)")
        daemon.signal(SIGTERM)
        #expect(await daemon.wait() == 0, "log:\n\(h.daemonLog)")

        for (clip, reason) in forged {
            let text = (try? String(contentsOfFile: (h.failed as NSString).appendingPathComponent(clip + ".error.txt"), encoding: .utf8)) ?? ""
            #expect(text.contains("Reason: its claim was taken over from job ") && text.contains(reason), "\(clip): \(text)")
        }
        // Nothing outside the folders: `elsewhere` is empty, and no forged name exists anywhere.
        #expect(h.files(elsewhere, hidden: true) == [])
        let everything = (FileManager.default.enumerator(atPath: h.dir.path)?.allObjects as? [String]) ?? []
        let strays = everything.filter { ["x.mp4", "x.yaml", "out.mp4", ".x.mp4", "x"].contains(($0 as NSString).lastPathComponent) }
        #expect(strays == [], "\(strays)")
        #expect(Set(h.files(h.dir.path, hidden: true)).isSubset(of: ["inbox", "failed", "outbox", "archive", "state", "elsewhere",
                                                                     "dropcut.yaml", "daemon.log", "template.mp4"]),
                "\(h.files(h.dir.path, hidden: true))")
        #expect(h.files(h.outbox, hidden: true) == [] && h.files(h.archive, hidden: true) == [])
        #expect(h.claimedLeftovers() == [])
    }

    /// The same checks guard a job record in the state folder: a forged one is set aside
    /// and its clip goes to failed/ with the reason (never archived under the forged name).
    @Test func aForgedJobRecordIsUnreadable() async throws {
        let h = try DaemonHarness()
        let elsewhere = h.dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed/forged-job")
        try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (claimed as NSString).appendingPathComponent("clip.mp4"))
        var record = JobRecord(id: "forged-job", folder: h.folderName, input: "clip.mp4", sidecars: [], state: .committed)
        record.dropped = ["clip.mp4": "..\\x2F..\\x2F..\\x2Felsewhere\\x2Fx.mp4"]
        record.output = "clip.dropcut.mp4"
        try store.save(&record)

        let result = try await h.runOnce()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(h.files(h.failed) == ["clip.mp4", "clip.mp4.error.txt"])
        let text = try String(contentsOfFile: (h.failed as NSString).appendingPathComponent("clip.mp4.error.txt"), encoding: .utf8)
        #expect(text.contains("cannot be read (the job record lists a dropped name that is not a plain name)"), "\(text)")
        #expect(h.files(elsewhere, hidden: true) == [] && h.files(h.archive, hidden: true) == [])
        #expect(h.claimedLeftovers() == [])
    }

    /// A temporary output is a path the daemon removes: one a record gives outside this
    /// job's hidden files in the outbox (an absolute path passes the parse-time check) is
    /// never removed by recovery.
    @Test func aRecordsTemporaryOutputOutsideTheOutboxIsNeverRemoved() async throws {
        let h = try DaemonHarness()
        let elsewhere = h.dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let victim = (elsewhere as NSString).appendingPathComponent(".victim.mp4")
        try "someone else's".write(toFile: victim, atomically: true, encoding: .utf8)
        let store = JobStore(stateDirectory: h.state)
        try store.prepare()
        let claimed = (h.inbox as NSString).appendingPathComponent(".dropcut/claimed/victim-job")
        try FileManager.default.createDirectory(atPath: claimed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try h.clip(), toPath: (claimed as NSString).appendingPathComponent("clip.mp4"))
        var record = JobRecord(id: "victim-job", folder: h.folderName, input: "clip.mp4", sidecars: [], state: .rendering)
        record.attempts = 1
        record.recordSingleOutput("clip.dropcut.mp4", temporary: victim)
        try store.save(&record)

        let result = try await h.runOnce()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: victim), "recovery removed a file outside the outbox")
        #expect(h.files(h.outbox, hidden: true) == ["clip.dropcut.mp4"])
        #expect(h.claimedLeftovers() == [])
    }
}
