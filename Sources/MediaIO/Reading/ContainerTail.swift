/// Whether a media file ends where its own container says it does, judged from its first
/// bytes and its size alone — no demuxer, no decoding, so the daemon can ask it of a clip
/// it must not open itself.
///
/// A copy into the inbox that pauses longer than `settle` looks finished. An MP4 without
/// its index cannot be read at all (the demuxer says so), but the containers that are
/// written front to back — MPEG-TS and Matroska — render from whatever arrived: half a
/// clip that decodes cleanly. What gives their cut away is the unit they are written in:
/// a transport stream is a whole number of fixed-size packets (188 bytes; 192 for
/// Blu-ray/AVCHD's M2TS, 204 with Reed–Solomon bytes), and a Matroska file written to a
/// seekable file states its segment's size in the header. A file that ends inside a
/// packet, or before its segment does, was cut short — by a copy still under way, or for
/// good; the daemon gives such a clip a few more `settle`s before it renders what is there.
package enum ContainerTail {
    /// How many bytes of the head `cut` needs at most (the EBML header and the segment's
    /// size; three transport packets).
    package static let headBytes = 4096

    /// Why a file whose first bytes are `head` and whose size is `size` ends before its
    /// container does, in words; nil when it ends where it should, or when its container
    /// says nothing about where it ends (any other format, a live Matroska stream of
    /// unknown size).
    package static func cut(head: some Collection<UInt8>, size: Int64) -> String? {
        let bytes = Array(head.prefix(headBytes))
        guard size > 0, Int64(bytes.count) <= size else { return nil }
        if let packet = transportPacketSize(bytes) {
            let remainder = size % Int64(packet)
            guard remainder != 0 else { return nil }
            return "it ends inside an MPEG-TS packet (\(size) bytes is not a whole number of \(packet)-byte packets: "
                + "the last \(remainder) bytes are part of one)"
        }
        if let segmentEnd = matroskaSegmentEnd(bytes), segmentEnd > UInt64(size) {
            return "its Matroska segment ends at byte \(segmentEnd), the file after \(size) bytes"
        }
        return nil
    }

    /// The transport packet size (188, 192 or 204) whose sync bytes (0x47) stand at the
    /// start of the first three packets; nil when the head is not a transport stream.
    static func transportPacketSize(_ bytes: [UInt8]) -> Int? {
        // (packet size, offset of the sync byte in a packet): M2TS puts a 4-byte time code first.
        for (packet, offset) in [(188, 0), (192, 4), (204, 0)] {
            let syncs = (0..<3).map { $0 * packet + offset }
            guard let last = syncs.last, last < bytes.count else { continue }
            if syncs.allSatisfy({ bytes[$0] == 0x47 }) { return packet }
        }
        return nil
    }

    /// Where a Matroska file's first segment ends, in bytes from the start of the file, as
    /// its header states; nil when the head is not Matroska/WebM, the segment's size is
    /// unknown (a live stream) or not in the head.
    static func matroskaSegmentEnd(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
        var at = 4
        guard let header = variableInteger(bytes, at: at), !header.unknown else { return nil }
        at += header.length
        guard header.value <= UInt64(bytes.count - at) else { return nil }
        at += Int(header.value)
        guard bytes.count - at >= 4, Array(bytes[at..<(at + 4)]) == [0x18, 0x53, 0x80, 0x67] else { return nil }
        at += 4
        guard let segment = variableInteger(bytes, at: at), !segment.unknown else { return nil }
        at += segment.length
        let (end, overflow) = UInt64(at).addingReportingOverflow(segment.value)
        return overflow ? nil : end
    }

    /// An EBML variable-size integer at `at`: its value, its length in bytes (1–8) and
    /// whether every value bit is set (the reserved "unknown size"); nil when the head
    /// ends inside it or its first byte is 0 (no length marker in 8 bits).
    static func variableInteger(_ bytes: [UInt8], at: Int) -> (value: UInt64, length: Int, unknown: Bool)? {
        guard at >= 0, at < bytes.count, bytes[at] != 0 else { return nil }
        let first = bytes[at]
        let length = first.leadingZeroBitCount + 1
        guard length <= 8, bytes.count - at >= length else { return nil }
        var value = UInt64(first & (0xFF >> length))
        for index in 1..<length { value = value << 8 | UInt64(bytes[at + index]) }
        let unknown = value == (UInt64(1) << (7 * UInt64(length))) - 1
        return (value, length, unknown)
    }
}
