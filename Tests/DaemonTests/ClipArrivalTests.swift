import Foundation
import Testing
import TestSupport
import DropcutSupport
@testable import DropcutDaemon

/// `ClipArrival.judge`: a clip that changed waits; one reported incomplete but unchanged
/// gets `maximumQuietLooks` settles in a row, then fails as its render said; neither waits
/// more than `maximumLooks` times in all.
@Suite struct ClipArrivalTests {
    @Test func anUnchangedCompleteClipGoesOn() {
        let arrival = ClipArrival(size: 100, modified: 5)
        let (verdict, next) = arrival.judge(size: 100, modified: 5, incomplete: false)
        #expect(verdict == .unchanged && next == arrival)
    }

    @Test(arguments: [(200, 5), (100, 6), (50, 7)])
    func aChangedClipWaitsAndIsSeenAnew(size: Int, modified: Int) {
        for incomplete in [false, true] {
            let (verdict, next) = ClipArrival(size: 100, modified: 5).judge(size: Int64(size), modified: Int64(modified), incomplete: incomplete)
            #expect(verdict == .grew(from: 100, to: Int64(size)))
            #expect(next.size == Int64(size) && next.modified == Int64(modified) && next.looks == 1 && next.quietLooks == 0)
        }
    }

    @Test func anIncompleteQuietClipGetsItsLooksThenFails() {
        var arrival = ClipArrival(size: 100, modified: 5)
        for look in 1...ClipArrival.maximumQuietLooks {
            let (verdict, next) = arrival.judge(size: 100, modified: 5, incomplete: true)
            #expect(verdict == .lookAgain, "look \(look)")
            #expect(next.quietLooks == look)
            arrival = next
        }
        #expect(arrival.judge(size: 100, modified: 5, incomplete: true).0 == .unchanged)
        // Growing again starts the quiet count over.
        let (grew, after) = arrival.judge(size: 150, modified: 9, incomplete: true)
        #expect(grew == .grew(from: 100, to: 150) && after.quietLooks == 0)
        #expect(after.judge(size: 150, modified: 9, incomplete: true).0 == .lookAgain)
    }

    /// Whatever the sequence, it ends: every judgement that waits adds a look, and past
    /// `maximumLooks` the verdict is to give up.
    @Test func noClipWaitsForEver() {
        for seed in 0..<200 {
            var generator = SplitMix(seed: UInt64(seed))
            var arrival = ClipArrival(size: 0, modified: 0)
            var waits = 0
            for _ in 0..<100 {
                let grows = generator.next() % 2 == 0
                let size = grows ? arrival.size + 1 : arrival.size
                let (verdict, next) = arrival.judge(size: size, modified: arrival.modified, incomplete: generator.next() % 3 != 0)
                arrival = next
                if verdict == .gaveUp || verdict == .unchanged { break }
                waits += 1
            }
            #expect(waits <= ClipArrival.maximumLooks, "seed \(seed)")
        }
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A clip rewritten at the same size and time (a tool that restores the time stamp)
    /// is told apart by its identity: it waits, and its render is not published.
    @Test func aRewriteThatKeepsSizeAndTimeIsSeenByItsIdentity() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("clip.ts")
        var bytes = [UInt8](repeating: 7, count: 300_000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (claimed, head) = try ClipIdentity.read(path)
        #expect(head.count == ClipIdentity.sampled && claimed.size == 300_000)
        #expect(try ClipIdentity.read(path).identity == claimed, "the same file, the same identity")

        // The last byte changed, the time put back as it was.
        bytes[bytes.count - 1] = 8
        let then = timespec(tv_sec: Int(claimed.modified / 1_000_000_000), tv_nsec: Int(claimed.modified % 1_000_000_000))
        var times = [then, then]
        try Data(bytes).write(to: URL(fileURLWithPath: path + ".new"))
        #expect(rename(path + ".new", path) == 0)
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let rewritten = try ClipIdentity.read(path).identity
        #expect(rewritten.size == claimed.size && rewritten.modified == claimed.modified)
        #expect(rewritten.digest != claimed.digest && rewritten.inode != claimed.inode)

        var arrival = ClipArrival(size: claimed.size, modified: claimed.modified)
        arrival.identity = claimed
        let (verdict, next) = arrival.judge(size: rewritten.size, modified: rewritten.modified, identity: rewritten, incomplete: false)
        #expect(verdict == .grew(from: claimed.size, to: claimed.size))
        #expect(next.identity == rewritten && next.looks == 1)
        #expect(next.judge(size: rewritten.size, modified: rewritten.modified, identity: rewritten, incomplete: false).0 == .unchanged)
        // Not read this time (a share away): size and time still decide, the identity kept.
        let (unread, kept) = arrival.judge(size: claimed.size, modified: claimed.modified, identity: nil, incomplete: false)
        #expect(unread == .unchanged && kept.identity == claimed)
    }

    @Test func aSymlinkOrFolderHasNoIdentity() throws {
        let dir = try TemporaryDirectory()
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir.file("real")))
        #expect(symlink(dir.file("real"), dir.file("link")) == 0)
        #expect(throws: SystemError.self) { try ClipIdentity.read(dir.file("link")) }
        #expect(throws: SystemError.self) { try ClipIdentity.read(dir.path) }
        #expect(try ClipIdentity.read(dir.file("real")).head == [1, 2, 3])
    }
}
