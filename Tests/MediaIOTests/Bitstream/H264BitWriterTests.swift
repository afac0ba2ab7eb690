import Testing
import DropcutTimeline
import TestSupport
@testable import DropcutMediaIO

/// `H264BitWriter` against `H264BitReader`: Exp-Golomb codes and plain bits read back as
/// written, and runs copied at every alignment of source and destination are the bits
/// they were.
@Suite struct H264BitWriterTests {
    @Test func codesReadBackAsWritten() {
        var rng = SplitMix64(state: 0xB17)
        for _ in 0..<500 {
            var writer = H264BitWriter(capacity: 64)
            var written: [(Int, Int?)] = []   // (value, bits; nil for ue)
            for _ in 0..<Int.random(in: 1...20, using: &rng) {
                if Bool.random(using: &rng) {
                    let value = [Int.random(in: 0...3, using: &rng), Int.random(in: 0...65_535, using: &rng),
                                 Int.random(in: 0...0xFFFF_FFFE, using: &rng)][Int.random(in: 0...2, using: &rng)]
                    writer.writeUE(value)
                    written.append((value, nil))
                } else {
                    let width = Int.random(in: 0...32, using: &rng)
                    let value = width == 0 ? 0 : Int.random(in: 0..<(1 << width), using: &rng)
                    writer.write(value, bits: width)
                    written.append((value, width))
                }
            }
            let count = writer.count
            while !writer.isByteAligned { writer.write(bit: false) }
            var reader = H264BitReader(writer.bytes)
            for (value, width) in written {
                #expect((width.map { reader.bits($0) } ?? reader.ue()) == value)
            }
            #expect(reader.position == count)
        }
    }

    @Test func copiedRunsAreTheBitsTheyWere() {
        var rng = SplitMix64(state: 0xC0B)
        let source = (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }
        func bit(_ bytes: [UInt8], _ k: Int) -> Bool { bytes[k >> 3] >> (7 - UInt8(k & 7)) & 1 == 1 }
        for lead in 0..<8 {
            for start in 0..<17 {
                for length in [0, 1, 7, 8, 9, 63, 64, 200] {
                    var writer = H264BitWriter(capacity: 64)
                    writer.write(0b1010101, bits: lead)
                    writer.copy(bitsOf: source, start..<(start + length))
                    #expect(writer.count == lead + length)
                    while !writer.isByteAligned { writer.write(bit: false) }
                    #expect((0..<length).allSatisfy { bit(writer.bytes, lead + $0) == bit(source, start + $0) },
                            "lead \(lead), start \(start), length \(length)")
                }
            }
        }
    }
}
