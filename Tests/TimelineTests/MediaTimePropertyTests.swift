import PropertyBased
import Testing
@testable import DropcutTimeline

/// Timescales met in practice whose pairwise least common multiples fit an Int32, so
/// sums must be exact.
let commonTimescales: [Int32] = [1, 2, 10, 24, 25, 30, 48, 50, 60, 100, 600, 1000, 24000, 30000, 48000, 90000]

/// Numeric times within ±1 day at a common timescale.
let mediaTimes = zip(Gen.int64(in: -86_400_000...86_400_000), Gen.int(in: 0...(commonTimescales.count - 1)))
    .map { ticks, index in MediaTime(value: ticks, timescale: commonTimescales[index]) }

@Suite struct MediaTimePropertyTests {
    @Test func additionIsAssociativeAndExact() async {
        await propertyCheck(count: 500, input: mediaTimes, mediaTimes, mediaTimes) { a, b, c in
            let left = (a + b) + c, right = a + (b + c)
            #expect(left == right)
            #expect(!left.hasBeenRounded && !right.hasBeenRounded)
        }
    }

    @Test func additionIsCommutativeAndSubtractionUndoesIt() async {
        await propertyCheck(count: 500, input: mediaTimes, mediaTimes) { a, b in
            #expect(a + b == b + a)
            #expect((a + b) - b == a)
            #expect(a - a == .zero)
            #expect(-(-a) == a)
        }
    }

    @Test func orderAgreesWithExactCrossMultiplication() async {
        await propertyCheck(count: 500, input: mediaTimes, mediaTimes) { a, b in
            let lhs = Int128(a.value) * Int128(b.timescale), rhs = Int128(b.value) * Int128(a.timescale)
            #expect((a < b) == (lhs < rhs))
            #expect((a == b) == (lhs == rhs))
            #expect((a < b) == (b - a > .zero))
            // Order is preserved by adding the same time to both.
            let c = MediaTime(value: 7, timescale: 30)
            #expect((a < b) == (a + c < b + c))
        }
    }

    @Test func scalingByARatioAndBackIsIdentity() async {
        await propertyCheck(count: 500, input: mediaTimes, Gen.int64(in: 1...1000), Gen.int64(in: 1...1000)) { a, n, d in
            let there = a.multiplied(by: n, dividedBy: d)
            let back = there.multiplied(by: d, dividedBy: n)
            if !there.hasBeenRounded {
                #expect(back == a)
            }
            // Rounded or not, the result is the true product to within a microsecond.
            #expect(abs(there.seconds - a.seconds * Double(n) / Double(d)) < 1e-6 * max(1, abs(a.seconds)))
        }
    }

    @Test func convertingToAMultipleTimescaleIsExact() async {
        await propertyCheck(count: 300, input: mediaTimes, Gen.int32(in: 1...20)) { a, k in
            guard let ts = Int32(exactly: Int64(a.timescale) * Int64(k)) else { return }
            let converted = a.convertScale(ts)
            #expect(converted == a)
            #expect(!converted.hasBeenRounded)
            #expect(converted.timescale == ts)
        }
    }

    @Test func formattedTextParsesBackWithinHalfAUnit() async {
        await propertyCheck(count: 300, input: mediaTimes) { a in
            let text = a.formatted(decimals: 6)
            let parsed = MediaTime(exactly: text)
            #expect(parsed != nil)
            if let parsed {
                let error = parsed - a
                #expect(error <= MediaTime(value: 1, timescale: 2_000_000) && error >= MediaTime(value: -1, timescale: 2_000_000))
            }
        }
    }
}
