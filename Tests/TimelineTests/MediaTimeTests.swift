import Testing
@testable import DropcutTimeline

@Suite struct MediaTimeTests {
    @Test func equalityAndHashingIgnoreTimescale() {
        let a = MediaTime(value: 1, timescale: 2), b = MediaTime(value: 300, timescale: 600)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(MediaTime(value: -3, timescale: 6) == MediaTime(value: -1, timescale: 2))
        #expect(MediaTime(value: 1, timescale: 3) != MediaTime(value: 333, timescale: 1000))
    }

    @Test func sumsAcrossTimescalesAreExact() {
        // 1/30 + 1/25 = 11/150: exact in the least common multiple of the timescales.
        let sum = MediaTime(value: 1, timescale: 30) + MediaTime(value: 1, timescale: 25)
        #expect(sum == MediaTime(value: 11, timescale: 150))
        #expect(sum.timescale == 150)
        #expect(!sum.hasBeenRounded)
        // 1001/30000 (NTSC frame) × 30000 frames == 1001 s exactly.
        var total = MediaTime.zero
        for _ in 0..<30000 { total += MediaTime(value: 1001, timescale: 30000) }
        #expect(total == MediaTime(seconds: 1001))
        #expect(!total.hasBeenRounded)
    }

    @Test func sameTimescaleKeepsIt() {
        let a = MediaTime(value: 600, timescale: 600), b = MediaTime(value: 1200, timescale: 600)
        #expect((a + b).timescale == 600)
        #expect((b - a).value == 600)
    }

    @Test func unrepresentableResultsRoundToTheLargerTimescaleAndSaySo() {
        // lcm(1e9, 44100) does not fit an Int32 timescale.
        let a = MediaTime(value: 1, timescale: 1_000_000_000), b = MediaTime(value: 1, timescale: 44100)
        let sum = a + b
        #expect(sum.hasBeenRounded)
        #expect(sum.timescale == 1_000_000_000)
        #expect(sum.value == 22_677)  // 1 + 1e9/44100 = 22676.74 ticks → 22677
    }

    @Test func multiplyByRationalIsExact() {
        let frame = MediaTime(value: 1, timescale: 30)
        #expect(frame.multiplied(by: 1, dividedBy: 4) == MediaTime(value: 1, timescale: 120))
        #expect(MediaTime(seconds: 8).multiplied(by: (MediaTime(seconds: 4), MediaTime(seconds: 8))) == MediaTime(seconds: 4))
        let third = MediaTime(seconds: 1).multiplied(by: 1, dividedBy: 3)
        #expect(third == MediaTime(value: 1, timescale: 3))
        #expect(!third.hasBeenRounded)
        #expect(MediaTime.positiveInfinity.multiplied(by: -2, dividedBy: 1) == .negativeInfinity)
        #expect(MediaTime.positiveInfinity.multiplied(by: 0, dividedBy: 1) == .invalid)
        #expect(frame.multiplied(by: 1, dividedBy: 0) == .invalid)
    }

    @Test(arguments: [
        (FloatingPointRoundingRule.toNearestOrAwayFromZero, Int64(3), Int64(-3)),
        (.toNearestOrEven, 2, -2),
        (.towardZero, 2, -2),
        (.awayFromZero, 3, -3),
        (.down, 2, -3),
        (.up, 3, -2),
    ])
    func convertScaleRounds(rule: FloatingPointRoundingRule, positive: Int64, negative: Int64) {
        // 2.5 ticks of 1/10 s expressed at 1/4 s... use 5/8 s in quarters = 2.5 quarters.
        let t = MediaTime(value: 5, timescale: 8)
        #expect(t.convertScale(4, rounding: rule).value == positive)
        #expect((-t).convertScale(4, rounding: rule).value == negative)
        #expect(t.convertScale(4, rounding: rule).hasBeenRounded)
        #expect(!t.convertScale(16, rounding: rule).hasBeenRounded)
    }

    @Test func ticksForStreamTimeBases() {
        let t = MediaTime(value: 1001, timescale: 30000)
        #expect(t.ticks(in: 90000) == 3003)
        #expect(MediaTime.invalid.ticks(in: 90000) == nil)
    }

    @Test func nonNumericArithmeticFollowsCMTime() {
        let one = MediaTime(seconds: 1)
        #expect((MediaTime.invalid + one).kind == .invalid)
        #expect((MediaTime.indefinite + one).kind == .indefinite)
        #expect((MediaTime.positiveInfinity + one).kind == .positiveInfinity)
        #expect((MediaTime.positiveInfinity + .negativeInfinity).kind == .invalid)
        #expect((MediaTime.positiveInfinity - .positiveInfinity).kind == .invalid)
        #expect((one - .positiveInfinity).kind == .negativeInfinity)
        #expect(MediaTime(value: 1, timescale: 0) == .invalid)
        #expect(MediaTime(seconds: .nan, preferredTimescale: 600) == .invalid)
        #expect(MediaTime(seconds: -.infinity, preferredTimescale: 600) == .negativeInfinity)
    }

    @Test func orderingFollowsCMTimeCompare() {
        let ordered: [MediaTime] = [.negativeInfinity, MediaTime(seconds: -5), .zero, MediaTime(value: 1, timescale: 3),
                                    MediaTime(seconds: 1_000_000), .indefinite, .positiveInfinity, .invalid]
        #expect(ordered.shuffled().sorted() == ordered)
        for (a, b) in zip(ordered, ordered.dropFirst()) { #expect(a < b && !(b < a)) }
    }

    @Test func formatsExactlyWithHalfAwayFromZero() {
        #expect(MediaTime(value: 879_434, timescale: 10000).description == "87.943")
        #expect(MediaTime(value: 5, timescale: 10000).description == "0.001")   // 0.0005 → 0.001
        #expect(MediaTime(value: -5, timescale: 10000).description == "-0.001")
        #expect(MediaTime(value: 1, timescale: 3).formatted(decimals: 6) == "0.333333")
        #expect(MediaTime(value: 2, timescale: 3).formatted(decimals: 0) == "1")
        #expect(MediaTime.invalid.description == "INVALID")
    }

    @Test func parsesDecimalAndRationalText() {
        #expect(MediaTime(exactly: "87.785") == MediaTime(value: 87785, timescale: 1000))
        #expect(MediaTime(exactly: "-0.5") == MediaTime(value: -1, timescale: 2))
        #expect(MediaTime(exactly: "1001/30000") == MediaTime(value: 1001, timescale: 30000))
        #expect(MediaTime(exactly: ".25") == MediaTime(value: 1, timescale: 4))
        for bad in ["", ".", "1.2.3", "abc", "1/0", "1e3", "12.3456789012"] {
            #expect(MediaTime(exactly: bad) == nil, "\(bad)")
        }
    }

    @Test func secondsAtTheEdges() {
        #expect(MediaTime(seconds: 1.5, preferredTimescale: 600) == MediaTime(value: 900, timescale: 600))
        #expect(MediaTime(value: 1, timescale: 4).seconds == 0.25)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.invalid.seconds.isNaN)
    }
}

@Suite struct TimeRangeTests {
    @Test func containmentIsHalfOpen() {
        let r = range("2", "3")
        #expect(r.end == 5)
        #expect(r.contains(2) && r.contains(t("4.999")))
        #expect(!r.contains(5) && !r.contains(t("1.999")))
        #expect(r.contains(range("5", "0")))   // an empty range at the end is inside
        #expect(!r.contains(range("4", "2")))
        #expect(!TimeRange(start: 1, duration: -1).isValid)
        #expect(!range("0", "0").contains(0))
    }

    @Test func intersectionAndUnion() {
        let a = range("0", "4"), b = range("3", "4")
        #expect(a.intersection(b) == range("3", "1"))
        #expect(a.intersection(range("4", "1")) == nil)   // touching is not overlapping
        #expect(a.union(range("6", "1")) == range("0", "7"))   // the span, gap included
        #expect(a.overlaps(b) && !a.overlaps(range("4", "2")))
        #expect(TimeRange.invalid.union(a) == .invalid)
    }

    @Test func describesLikeAVFoundation() {
        #expect(range("87.785", "0.075").description == "[87.785,+0.075]")
        #expect(TimeRange(start: MediaTime(value: 1, timescale: 3), end: 1).description == "[0.333,+0.667]")
    }
}
