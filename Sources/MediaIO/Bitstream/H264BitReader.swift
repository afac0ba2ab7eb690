/// Bits read most significant first, with H.264's Exp-Golomb codes (ITU-T H.264 9.1):
/// what the parameter sets (`H264DecoderConfiguration`) and slice headers
/// (`H264SliceHeader`, which also needs where each field lies: `position`) are read with.
///
/// Every read is bounded: a read past the end, or an Exp-Golomb code of more than 31
/// leading zeros (a value of 2³² or more, which no field holds), reads as nil.
package struct H264BitReader {
    package let bytes: [UInt8]
    /// The next bit to read, counted from the first byte's most significant bit.
    package private(set) var position = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bits in all.
    package var count: Int { bytes.count * 8 }

    /// u(n): `count` bits (0 to 32) as an unsigned number.
    package mutating func bits(_ count: Int) -> Int? {
        guard count >= 0, count <= 32, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    /// A flag: u(1) as a Bool.
    package mutating func flag() -> Bool? {
        bits(1).map { $0 == 1 }
    }

    /// ue(v): at most 31 leading zeros (values below 2³²).
    package mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros <= 31 else { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// ue(v) no greater than `maximum`.
    package mutating func ue(atMost maximum: Int) -> Int? {
        guard let value = ue(), value <= maximum else { return nil }
        return value
    }

    /// se(v).
    package mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
    }

    /// se(v) within `range`.
    package mutating func se(in range: ClosedRange<Int>) -> Int? {
        guard let value = se(), range.contains(value) else { return nil }
        return value
    }
}
