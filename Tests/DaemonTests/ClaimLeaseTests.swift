import Foundation
import Testing
import DropcutDaemon
import TestSupport

/// The lease file of a claim: written by its holder, read by every host sharing the inbox
/// — so everything in it is range-checked like any other input.
@Suite struct ClaimLeaseTests {
    static let owner = HostIdentity(host: "host-a", machineID: String(repeating: "a", count: 32),
                                    bootID: String(repeating: "b", count: 32), pid: 4242)

    static func record(_ id: String = "20261123T114124Z-8c80351dd074") -> JobRecord {
        // Whole seconds: the lease keeps times to the second (ISO 8601).
        var record = JobRecord(id: id, folder: "social", input: "clip.mov", sidecars: ["clip.yaml"], state: .rendering,
                               now: Date(timeIntervalSince1970: 1_800_000_000))
        record.attempts = 1
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/srv/out/.clip.dropcut.partial-\(id).mp4")
        return record
    }

    /// A claim folder `claimed/<id>` in `dir`.
    static func claim(in dir: TemporaryDirectory, _ id: String = "20261123T114124Z-8c80351dd074") throws -> String {
        let path = dir.file("claimed/\(id)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aWrittenLeaseReadsBackAndChangesItsFingerprintWithEachBeat() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.claim(in: dir)
        let name = try #require(ClaimName((folder as NSString).lastPathComponent))
        var lease = ClaimLease(owner: Self.owner, record: Self.record())
        try lease.write(in: folder, durable: true)
        let first = ClaimLease.read(claimDirectory: folder, name: name)
        #expect(first.reading == .lease(lease))
        // The same bytes again: the same fingerprint; a renewal (the next beat): another.
        #expect(ClaimLease.read(claimDirectory: folder, name: name).fingerprint == first.fingerprint)
        lease.beat += 1
        try lease.write(in: folder, durable: false)
        let second = ClaimLease.read(claimDirectory: folder, name: name)
        #expect(second.reading == .lease(lease))
        #expect(second.fingerprint != first.fingerprint)
        // Written through a hidden temporary name and renamed: nothing else is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [".lease"])
    }

    /// Padded to a multiple of 4 KiB: a renewal does not change the file's size (shares
    /// that cache sizes read it whole).
    @Test func aLeaseKeepsItsSizeFromOneRenewalToTheNext() throws {
        var lease = ClaimLease(owner: Self.owner, record: Self.record(), beat: 9)
        let nine = lease.encoded()
        lease.beat = 10
        let ten = lease.encoded()
        #expect(nine.count == ten.count && ten.count % 4096 == 0)
        #expect(String(decoding: ten, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("}"))
    }

    @Test func aMissingLeaseIsNotAnError() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.claim(in: dir)
        let read = ClaimLease.read(claimDirectory: folder, name: ClaimName(job: "20261123T114124Z-8c80351dd074"))
        #expect(read.reading == .missing)
        #expect(read.fingerprint == 0)
    }

    /// A value out of range, a path where a name belongs, a number too big for its type:
    /// the lease is unreadable, with the reason — never a trap, never used.
    /// A JSON value put into a lease.
    enum Value: Sendable, CustomStringConvertible {
        case int(Int), double(Double), string(String), strings([String])
        var json: Any {
            switch self {
            case let .int(n): return n
            case let .double(x): return x
            case let .string(text): return text
            case let .strings(list): return list
            }
        }
        var description: String { "\(json)" }
    }

    @Test(arguments: [
        (["owner", "pid"], Value.int(0), "pid 0 is out of range"),
        (["owner", "pid"], .int(99_999_999), "pid 99999999 is out of range"),
        (["owner", "pid"], .double(1e20), "not a lease"),
        (["owner", "machine_id"], .string("xyz"), "machine_id is not 32 hex digits"),
        (["owner", "host"], .string(""), "host name is empty"),
        (["version"], .int(2), "format version 2"),
        (["job"], .string("someone-else"), "names job someone-else"),
        (["beat"], .int(-1), "not a lease"),
        (["record", "attempts"], .int(5000), "attempts 5000 are out of range"),
        (["record", "input"], .string("../../etc/passwd"), "not a plain name"),
        (["record", "sidecars"], .strings(["a/b"]), "not a plain name"),
        (["record", "setSuffix"], .int(-1), "set suffix -1 is out of range"),
        (["record", "elapsedMilliseconds"], .int(-5), "elapsed_ms -5 is out of range"),
        (["record", "speed"], .double(1e300), "speed is out of range"),
        (["record", "previousJobs"], .strings(["x.committing-1"]), "earlier holder that is not a job id"),
    ])
    func outOfRangeValuesMakeALeaseUnreadable(path: [String], value: Value, reason: String) throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.claim(in: dir)
        let data = ClaimLease(owner: Self.owner, record: Self.record()).encoded()
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        if path.count == 1 {
            object[path[0]] = value.json
        } else {
            var inner = try #require(object[path[0]] as? [String: Any])
            inner[path[1]] = value.json
            object[path[0]] = inner
        }
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: ClaimLease.path(in: folder)))
        let read = ClaimLease.read(claimDirectory: folder, name: ClaimName(job: "20261123T114124Z-8c80351dd074"))
        guard case let .unreadable(why) = read.reading else {
            Issue.record("\(path) = \(value) was accepted")
            return
        }
        #expect(why.contains(reason), "\(why)")
        #expect(read.fingerprint != 0)
    }

    @Test func aLeaseThatIsNotAFileIsRefused() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.claim(in: dir)
        let name = ClaimName(job: "20261123T114124Z-8c80351dd074")
        try "{}".write(toFile: dir.file("elsewhere"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: ClaimLease.path(in: folder), withDestinationPath: dir.file("elsewhere"))
        guard case let .unreadable(why) = ClaimLease.read(claimDirectory: folder, name: name).reading else {
            Issue.record("a symlink was followed")
            return
        }
        #expect(why.contains("not a regular file"), "\(why)")
        try FileManager.default.removeItem(atPath: ClaimLease.path(in: folder))
        try Data(repeating: 0x20, count: (1 << 20) + 1).write(to: URL(fileURLWithPath: ClaimLease.path(in: folder)))
        guard case let .unreadable(large) = ClaimLease.read(claimDirectory: folder, name: name).reading else {
            Issue.record("a huge lease was read")
            return
        }
        #expect(large.contains("larger than"), "\(large)")
    }
}
