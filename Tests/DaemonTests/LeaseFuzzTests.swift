import Foundation
import Testing
@testable import DropcutDaemon

/// A lease is read from a folder anyone who drops clips may write in: byte-mutated leases
/// (values, keys, structure) decode to a lease whose record passes the checks, or to
/// "unreadable" with a reason, never trap, and never hand back a record with a name that
/// is not a plain one.
@Suite struct LeaseFuzzTests {
    @Test func mutatedLeasesAreReadOrRefusedNeverTrusted() throws {
        var record = JobRecord(id: "20261127T010000Z-0123456789ab", folder: "social", input: "clip.mp4", sidecars: ["clip.yaml"],
                               state: .rendering)
        record.attempts = 2
        record.recordSingleOutput("clip.dropcut.mp4", temporary: "/srv/outbox/.clip.dropcut.partial-20261127T010000Z-0123456789ab.mp4")
        record.history = ["attempt 1: clip.mp4: the file is damaged"]
        let lease = ClaimLease(owner: HostIdentity(host: "host-a", machineID: String(repeating: "ab", count: 16), bootID: String(repeating: "cd", count: 16), pid: 42), record: record, beat: 7)
        let name = try #require(ClaimName(record.id))
        let seed = [UInt8](lease.encoded())
        // The unmutated lease reads back whole: the mutants start from a valid one.
        guard case let .lease(unmutated) = ClaimLease.decode(Data(seed), name: name) else {
            Issue.record("the unmutated lease: \(ClaimLease.decode(Data(seed), name: name))")
            return
        }
        #expect(unmutated.record.input == "clip.mp4" && unmutated.record.output == record.output)
        // Bytes that make JSON mean other things: quotes, escapes, digits, separators.
        let alphabet = Array("\"\\/.{}[]:,-0123456789eE+ nulltruex2F".utf8) + [0, 0xFF]
        var generator = SystemRandomNumberGenerator()
        var read = 0, refused = 0
        for _ in 0..<4000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: bytes.remove(at: at)
                }
            }
            switch ClaimLease.decode(Data(bytes), name: name) {
            case let .lease(decoded):
                #expect(decoded.record.problem(in: "lease") == nil)
                for file in [decoded.record.input] + decoded.record.sidecars {
                    #expect(JobRunner.isPlainName(file), "\(file)")
                }
                read += 1
            case let .unreadable(reason):
                #expect(!reason.isEmpty)
                refused += 1
            case .missing:
                Issue.record("bytes read back as a missing lease")
            }
        }
        print("leases: \(read) read, \(refused) refused of 4000 mutants")
        #expect(read > 0 && refused > 0)
    }
}
