import Testing
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
}
