import DropcutTimeline

/// Reads and rewrites the `idr_pic_id` of an H.264 access unit in MP4's form (NAL units
/// each after a big-endian length of `lengthSize` bytes): the one field that H.264 7.4.3
/// requires to differ between two IDR access units in a row, which a stream put together
/// from pieces numbered each on its own can repeat (`IDRPictureIDGuard`).
///
/// A rewrite keeps every other bit: each IDR slice's header is read whole
/// (`H264SliceHeader`) and written again with the new id's code in place of the old, whose
/// length may differ; the slice data after it is kept as it is — bit-shifted behind the
/// header with CAVLC (its rbsp_stop_one_bit and alignment written again), byte for byte
/// after `cabac_alignment_one_bit`s with CABAC — and emulation prevention is put back.
/// Every other NAL unit is copied as it is. Pure, and bounded: any input, however
/// malformed, gives a value or nil, never a trap.
package enum IDRPictureIDRewriter {
    /// What an access unit is, for H.264's rule on consecutive IDR pictures.
    package enum AccessUnit: Sendable, Hashable {
        /// No IDR slice.
        case other
        /// An IDR picture, its first slice's id.
        case idr(pictureID: Int)
        /// An IDR slice whose header cannot be read, or NAL unit lengths that do not fill
        /// the bytes (what follows is not known).
        case unreadable
    }

    /// Bytes of a slice's RBSP that hold its whole header: with every field in the range
    /// `H264SliceHeader` allows, the longest I-slice header is 302 bits with its CABAC
    /// alignment (a first macroblock of 2²¹ − 1 at most, 43 bits; an `idr_pic_id` of 33;
    /// two `delta_pic_order_cnt` of 63 each; …), under 38 bytes.
    static let headerBytes = 64

    /// What the access unit `bytes` is, its slices read with `sets`; a parameter set it
    /// carries in-band is taken into `sets` first. Reads in place, allocating nothing but
    /// in `scratch` (reused: it keeps its capacity) and for an in-band set.
    package static func classify(_ bytes: UnsafeBufferPointer<UInt8>, lengthSize: Int, sets: inout H264ParameterSets,
                                 scratch: inout [UInt8]) -> AccessUnit {
        var result = AccessUnit.other
        let whole = H264DecoderConfiguration.forEachUnit(bytes, lengthSize: lengthSize) { unit in
            switch unit[unit.startIndex] & 0x1F {
            case 7, 8:
                sets.add(Array(unit))
                return true
            case 5:
                scratch.removeAll(keepingCapacity: true)
                EmulationPrevention.remove(unit.dropFirst(), limit: headerBytes, into: &scratch)
                result = H264SliceHeader(rbsp: scratch, header: unit[unit.startIndex], sets: sets)
                    .map { AccessUnit.idr(pictureID: $0.idrPictureID) } ?? .unreadable
                return false
            default:
                return true
            }
        }
        return whole ? result : .unreadable
    }

    /// The access unit `bytes` with every IDR slice's `idr_pic_id` set to `pictureID`
    /// (0 to 65535), its slices read with `sets` and any set it carries in-band; nil when
    /// it has no IDR slice, one cannot be read or written again (see `H264SliceHeader`;
    /// a CAVLC slice without its stop bit, a CABAC one without data), a unit outgrows its
    /// length field, or the lengths do not fill the bytes.
    package static func rewrite(_ bytes: UnsafeBufferPointer<UInt8>, lengthSize: Int, pictureID: Int,
                                sets: H264ParameterSets) -> [UInt8]? {
        guard (0...H264SliceHeader.maximumIDRPictureID).contains(pictureID) else { return nil }
        var sets = sets
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var rewritten = 0, failed = false
        let whole = H264DecoderConfiguration.forEachUnit(bytes, lengthSize: lengthSize) { unit in
            var replacement: [UInt8]?
            switch unit[unit.startIndex] & 0x1F {
            case 7, 8:
                sets.add(Array(unit))
            case 5:
                guard let slice = rewriteSlice(unit, pictureID: pictureID, sets: sets) else {
                    failed = true
                    return false
                }
                replacement = slice
                rewritten += 1
            default:
                break
            }
            let length = replacement?.count ?? unit.count
            guard lengthSize == 4 ? length <= Int(UInt32.max) : length < 1 << (8 * lengthSize) else {
                failed = true
                return false
            }
            for k in stride(from: lengthSize - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: length >> (8 * k))) }
            if let replacement { out += replacement } else { out += unit }
            return true
        }
        return whole && !failed && rewritten > 0 ? out : nil
    }

    /// One IDR slice NAL unit (header byte first) with `pictureID` for its own.
    static func rewriteSlice(_ unit: Slice<UnsafeBufferPointer<UInt8>>, pictureID: Int, sets: H264ParameterSets) -> [UInt8]? {
        let header = unit[unit.startIndex]
        let rbsp = EmulationPrevention.removed(unit.dropFirst())
        guard let slice = H264SliceHeader(rbsp: rbsp, header: header, sets: sets) else { return nil }
        var writer = H264BitWriter(capacity: rbsp.count + 8)
        writer.copy(bitsOf: rbsp, 0..<slice.idrPictureIDBits.lowerBound)
        writer.writeUE(pictureID)
        writer.copy(bitsOf: rbsp, slice.idrPictureIDBits.upperBound..<slice.end)
        if slice.cabac {
            // The CABAC data starts on a byte boundary: ones up to it, then its bytes as they
            // are (its stop bit and any cabac_zero_words with them).
            let data = (slice.end + 7) / 8
            guard data < rbsp.count else { return nil }
            while !writer.isByteAligned { writer.write(bit: true) }
            writer.copy(bitsOf: rbsp, (8 * data)..<(8 * rbsp.count))
        } else {
            // The CAVLC data runs on from the header to the rbsp_stop_one_bit (the last one
            // bit), moved by as many bits as the id's code grew or shrank.
            guard let stop = lastOneBit(rbsp), stop > slice.end else { return nil }
            writer.copy(bitsOf: rbsp, slice.end..<stop)
            writer.write(bit: true)
            while !writer.isByteAligned { writer.write(bit: false) }
        }
        var out: [UInt8] = [header]
        out.reserveCapacity(writer.bytes.count + writer.bytes.count / 64 + 2)
        EmulationPrevention.insert(writer.bytes, into: &out)
        return out
    }

    /// The position of the last bit that is one, nil when all are zero.
    static func lastOneBit(_ bytes: [UInt8]) -> Int? {
        guard let index = bytes.lastIndex(where: { $0 != 0 }) else { return nil }
        return 8 * index + 7 - bytes[index].trailingZeroBitCount
    }
}
