/// Bits written most significant first, with H.264's Exp-Golomb codes (ITU-T H.264 9.1):
/// an RBSP made again around one changed field (`IDRPictureIDRewriter`). Runs of bits are
/// copied a byte at a time, shifted when the two sides are not aligned alike.
struct H264BitWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits written.
    private(set) var count = 0
    /// The bits of the last byte not yet full, in its high end.
    private var pending: UInt8 = 0

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    var isByteAligned: Bool { count % 8 == 0 }

    /// The `width` low bits of `value` (at most 32).
    mutating func write(_ value: Int, bits width: Int) {
        for k in stride(from: width - 1, through: 0, by: -1) { write(bit: (value >> k) & 1 == 1) }
    }

    mutating func write(bit: Bool) {
        if bit { pending |= 0x80 >> UInt8(count % 8) }
        count += 1
        if count % 8 == 0 {
            bytes.append(pending)
            pending = 0
        }
    }

    /// ue(v) of `value` (0 to 2³² − 2).
    mutating func writeUE(_ value: Int) {
        let code = value + 1
        let width = Int.bitWidth - code.leadingZeroBitCount
        write(0, bits: width - 1)
        write(code, bits: width)
    }

    /// Bits `range` of `source` (counted from its first byte's most significant bit), as
    /// they are.
    mutating func copy(bitsOf source: [UInt8], _ range: Range<Int>) {
        var at = range.lowerBound
        // Bit by bit to a byte boundary of the source, then a byte at a time.
        while at < range.upperBound && at % 8 != 0 {
            write(bit: source[at >> 3] >> (7 - UInt8(at & 7)) & 1 == 1)
            at += 1
        }
        let whole = (range.upperBound - at) / 8
        if isByteAligned {
            bytes.append(contentsOf: source[(at >> 3)..<((at >> 3) + whole)])
            count += 8 * whole
        } else {
            let shift = UInt8(count % 8)
            for byte in source[(at >> 3)..<((at >> 3) + whole)] {
                bytes.append(pending | byte >> shift)
                pending = byte << (8 - shift)
            }
            count += 8 * whole
        }
        at += 8 * whole
        while at < range.upperBound {
            write(bit: source[at >> 3] >> (7 - UInt8(at & 7)) & 1 == 1)
            at += 1
        }
    }

}
