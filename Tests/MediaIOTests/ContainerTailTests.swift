import Foundation
import Testing
import TestSupport
@testable import DropcutMediaIO

/// `ContainerTail.cut` on real files made by the ffmpeg CLI: MPEG-TS (188-byte packets),
/// M2TS (192: a time code before each packet) and Matroska/WebM (the segment's size in
/// the header) are whole as written and cut once a byte is missing; MP4 and a live WebM
/// (segment of unknown size) say nothing. Mutated and random heads never trap.
@Suite struct ContainerTailTests {
    static func make(_ dir: TemporaryDirectory, _ name: String, _ format: [String]) throws -> [UInt8] {
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
                                          "-c:v", "mpeg4"] + format + [dir.file(name)])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file(name))))
    }

    @Test(arguments: [("a.ts", [] as [String], "MPEG-TS packet"), ("a.m2ts", ["-f", "mpegts", "-mpegts_m2ts_mode", "1"], "192-byte"),
                      ("a.mkv", [], "Matroska segment"), ("a.webm", ["-c:v", "libvpx", "-b:v", "200k"], "Matroska segment")])
    func aWholeFileIsWholeAndOneCutShortIsCut(name: String, format: [String], said: String) throws {
        let dir = try TemporaryDirectory()
        let bytes = try Self.make(dir, name, format)
        #expect(ContainerTail.cut(head: bytes.prefix(ContainerTail.headBytes), size: Int64(bytes.count)) == nil)
        // Odd counts: never a whole number of (even-sized) transport packets.
        for missing in [1, 37, bytes.count / 2 | 1] {
            let reason = ContainerTail.cut(head: bytes.prefix(ContainerTail.headBytes), size: Int64(bytes.count - missing))
            #expect(reason?.contains(said) == true, "\(name) without its last \(missing) bytes: \(String(describing: reason))")
        }
    }

    @Test func formatsThatDoNotSayWhereTheyEndAreNeverCut() throws {
        let dir = try TemporaryDirectory()
        let mp4 = try Self.make(dir, "a.mp4", [])
        #expect(ContainerTail.cut(head: mp4.prefix(ContainerTail.headBytes), size: Int64(mp4.count / 2)) == nil)
        // A live WebM (written to a pipe) leaves its segment's size unknown.
        let live = dir.file("live.webm")
        try Command.runChecked("sh", ["-c", "ffmpeg -v error -f lavfi -i testsrc2=size=160x120:duration=1 -c:v libvpx -f webm - > '\(live)'"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: live)))
        #expect(ContainerTail.matroskaSegmentEnd(bytes) == nil)
        #expect(ContainerTail.cut(head: bytes.prefix(ContainerTail.headBytes), size: Int64(bytes.count / 2)) == nil)
        #expect(ContainerTail.cut(head: [], size: 0) == nil)
    }

    @Test func variableIntegersAsEBMLWritesThem() {
        #expect(ContainerTail.variableInteger([0x81], at: 0)! == (1, 1, false))
        #expect(ContainerTail.variableInteger([0xFF], at: 0)! == (127, 1, true))
        #expect(ContainerTail.variableInteger([0x40, 0x02], at: 0)! == (2, 2, false))
        #expect(ContainerTail.variableInteger([0x01, 0, 0, 0, 0, 0, 0x01, 0x00], at: 0)! == (256, 8, false))
        #expect(ContainerTail.variableInteger([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], at: 0)!.unknown)
        #expect(ContainerTail.variableInteger([0x00, 0x81], at: 0) == nil, "no length marker in 8 bits")
        #expect(ContainerTail.variableInteger([0x40], at: 0) == nil, "ends inside it")
        #expect(ContainerTail.variableInteger([0x81], at: 1) == nil)
    }

    /// Hostile heads: real files' first bytes mutated and cut anywhere, and random bytes,
    /// with any size — an answer or nil, never a trap.
    @Test func mutatedAndRandomHeadsNeverTrap() throws {
        let dir = try TemporaryDirectory()
        let seeds = [try Self.make(dir, "s.ts", []), try Self.make(dir, "s.mkv", [])].map { Array($0.prefix(ContainerTail.headBytes)) }
        var generator = SystemRandomNumberGenerator()
        var cut = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 4 == 3 {
                bytes = (0..<Int.random(in: 0...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = seeds[round % 2]
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    bytes[Int.random(in: 0..<min(64, bytes.count), using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            }
            let size = [Int64.max, 0, -1, Int64(bytes.count), Int64.random(in: 0...Int64(1) << 40, using: &generator)][round % 5]
            if ContainerTail.cut(head: bytes, size: size) != nil { cut += 1 }
        }
        #expect(cut > 0, "some mutants still parse and are judged cut")
    }
}
