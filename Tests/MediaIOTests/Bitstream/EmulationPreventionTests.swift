import Testing
@testable import DropcutMediaIO
import DropcutTimeline
import TestSupport

/// Emulation prevention both ways on bytes rich in zeros: what `insert` writes holds no
/// start code and no trailing zero, and `remove` gives back the bytes, byte for byte.
@Suite struct EmulationPreventionTests {
    @Test func insertThenRemoveGivesTheBytesBack() {
        var rng = SplitMix64(state: 0xE9B)
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in
                Bool.random(using: &rng) ? 0 : UInt8.random(in: 0...4, using: &rng) * (Bool.random(using: &rng) ? 1 : 60)
            }
            var escaped: [UInt8] = []
            EmulationPrevention.insert(bytes, into: &escaped)
            #expect(EmulationPrevention.removed(escaped) == bytes, "\(bytes) → \(escaped)")
            #expect(!escaped.indices.dropFirst(2).contains { escaped[$0 - 2] == 0 && escaped[$0 - 1] == 0 && escaped[$0] <= 2 },
                    "\(bytes) → \(escaped)")
            #expect(!(escaped.suffix(2) == [0, 0]), "\(bytes) → \(escaped)")
        }
    }

    @Test func knownCases() {
        func escaped(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            EmulationPrevention.insert(bytes, into: &out)
            return out
        }
        #expect(escaped([0, 0, 1]) == [0, 0, 3, 1])
        #expect(escaped([0, 0, 0, 0]) == [0, 0, 3, 0, 0, 3])
        #expect(escaped([0, 0, 4]) == [0, 0, 4])
        #expect(escaped([0x80, 0, 0]) == [0x80, 0, 0, 3])   // a cabac_zero_word at the end
        #expect(EmulationPrevention.removed([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]) == [0, 0, 1, 0, 0, 0, 0])
        #expect(EmulationPrevention.removed([0, 0, 3, 1, 0, 0, 3], limit: 3) == [0, 0, 1])
    }
}
