import DropcutTimeline

/// The `CODECS` value of an HLS playlist (RFC 6381, with ISO/IEC 14496-15 Annex E for
/// HEVC) read from a video encoder's parameter sets: `avc1.640028`, `hvc1.2.4.L123.B0`.
///
/// Players pick a rung by it before downloading anything, so it must say the profile and
/// level the stream really has; the encoder's own SPS is the one place that says them
/// (x264/x265 raise the level to what the size and rate need).
///
/// Pure: bytes in, text out. The parameter sets are what libx264/libx265 put in their
/// extradata — Annex B (start codes) — or, as a container stores them, `avcC`/`hvcC`.
/// Anything else, however short or malformed, gives nil.
package enum CodecsAttribute {
    /// `avc1.PPCCLL`: profile_idc, the constraint flags and level_idc of the first SPS.
    package static func avc(parameterSets bytes: [UInt8]) -> String? {
        let fields: ArraySlice<UInt8>
        if bytes.first == 1 {
            // avcC: version, then profile, compatibility, level.
            guard bytes.count >= 4 else { return nil }
            fields = bytes[1..<4]
        } else {
            guard let sps = nalUnits(bytes).first(where: { !$0.isEmpty && $0[$0.startIndex] & 0x1F == 7 }) else { return nil }
            let payload = EmulationPrevention.removed(sps.dropFirst(1), limit: 3)
            guard payload.count >= 3 else { return nil }
            fields = payload[0..<3]
        }
        return "avc1." + fields.map { hex($0, uppercase: false, width: 2) }.joined()
    }

    /// `hvc1.[A|B|C]profile.compatibility.Llevel|Hlevel.constraints`: from the
    /// profile_tier_level of the first SPS (or of `hvcC`).
    package static func hevc(parameterSets bytes: [UInt8]) -> String? {
        // The general profile_tier_level: 12 bytes, laid out alike in hvcC (from its
        // byte 1) and in the SPS (after the NAL header and one byte of ids).
        let ptl: [UInt8]
        if bytes.first == 1 {
            guard bytes.count >= 13 else { return nil }
            ptl = Array(bytes[1..<13])
        } else {
            guard let sps = nalUnits(bytes).first(where: { $0.count >= 2 && ($0[$0.startIndex] >> 1) & 0x3F == 33 }) else { return nil }
            let payload = EmulationPrevention.removed(sps.dropFirst(2), limit: 13)
            guard payload.count >= 13 else { return nil }
            ptl = Array(payload[1..<13])
        }
        let space = Int(ptl[0] >> 6)
        let tier = (ptl[0] >> 5) & 1
        let profile = Int(ptl[0] & 0x1F)
        let compatibility = UInt32(ptl[1]) << 24 | UInt32(ptl[2]) << 16 | UInt32(ptl[3]) << 8 | UInt32(ptl[4])
        var constraints = Array(ptl[5..<11])
        while constraints.last == 0 { constraints.removeLast() }   // trailing zero bytes are left out
        var text = "hvc1." + ["", "A", "B", "C"][space] + String(profile)
        // The 32 compatibility flags, bit-reversed (flag j is bit j), in hex.
        text += "." + String(compatibility.bitReversed, radix: 16, uppercase: true)
        text += "." + (tier == 1 ? "H" : "L") + String(ptl[11])
        for byte in constraints { text += "." + hex(byte, uppercase: true, width: 1) }
        return text
    }

    /// The NAL units of an Annex B stream (between `00 00 01` start codes), without
    /// their start codes; a stream without start codes gives none.
    static func nalUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        var units: [ArraySlice<UInt8>] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : bytes.count
            // A four-byte start code leaves one zero before the next three.
            while end > start, bytes[end - 1] == 0, k + 1 < starts.count { end -= 1 }
            units.append(bytes[start..<end])
        }
        return units
    }

    private static func hex(_ byte: UInt8, uppercase: Bool, width: Int) -> String {
        let digits = String(byte, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

private extension UInt32 {
    var bitReversed: UInt32 {
        var value = self, result: UInt32 = 0
        for _ in 0..<32 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }
}
