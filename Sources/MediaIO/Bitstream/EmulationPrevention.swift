/// H.264's and HEVC's emulation prevention (ITU-T H.264 7.4.1, H.265 7.4.2): inside a NAL
/// unit no two zero bytes are followed by a byte of 0 to 3 — an `03` is put after them —
/// so no start code appears where none is. A NAL unit's payload is its RBSP (the syntax
/// the standard defines) escaped so; reading takes the `03`s out, writing puts them in.
package enum EmulationPrevention {
    /// The RBSP of a NAL unit's `payload` (after its header): every `03` after two zero
    /// bytes taken out; at most `limit` bytes of it (the fields near its start).
    package static func removed(_ payload: some Sequence<UInt8>, limit: Int = .max) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(min(limit, payload.underestimatedCount))
        remove(payload, limit: limit, into: &out)
        return out
    }

    /// Appends the RBSP of `payload` to `out`, at most `limit` bytes (a caller with a
    /// buffer it reuses allocates nothing).
    package static func remove(_ payload: some Sequence<UInt8>, limit: Int = .max, into out: inout [UInt8]) {
        var zeros = 0, taken = 0
        for byte in payload {
            if taken == limit { return }
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
            taken += 1
        }
    }

    /// Appends `rbsp` escaped to `out`: an `03` after every two zero bytes that a byte of 0
    /// to 3 follows, and after two that end it (a `cabac_zero_word`), so the unit does not
    /// end in a zero byte. What `remove` takes out again, byte for byte.
    package static func insert(_ rbsp: some Sequence<UInt8>, into out: inout [UInt8]) {
        var zeros = 0
        for byte in rbsp {
            if zeros >= 2 && byte <= 3 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        if zeros >= 2 { out.append(3) }
    }
}
