/// An H.264 stream's decoder configuration as MP4 carries it (ISO/IEC 14496-15 `avcC`):
/// the profile, level and NAL length size, and every sequence and picture parameter set
/// the stream's pictures may refer to — read from a source's extradata, and written back
/// with parameter sets added (a smart render's encoded pieces carry their own, under ids
/// the source does not use, listed in the one sample entry).
///
/// Pure, and bounded: every count and length is checked against the bytes there are;
/// anything malformed reads as nil.
package struct H264DecoderConfiguration: Sendable, Hashable {
    package var profile: UInt8
    package var compatibility: UInt8
    package var level: UInt8
    /// Bytes before each NAL unit giving its length: 1, 2 or 4.
    package var nalLengthSize: Int
    /// Sequence parameter sets, each a whole NAL unit (header byte first).
    package var sequenceParameterSets: [[UInt8]]
    /// Picture parameter sets, each a whole NAL unit.
    package var pictureParameterSets: [[UInt8]]
    /// What follows the picture parameter sets (the High profiles' chroma format and bit
    /// depth), kept as it was.
    package var trailing: [UInt8]

    /// Reads an `avcC` box's payload; nil when it is not one.
    package init?(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let version = reader.byte(), version == 1, let profile = reader.byte(), let compatibility = reader.byte(),
              let level = reader.byte(), let lengthByte = reader.byte(), let spsCountByte = reader.byte() else { return nil }
        let lengthSize = Int(lengthByte & 3) + 1
        guard lengthSize != 3 else { return nil }
        var sps: [[UInt8]] = []
        for _ in 0..<Int(spsCountByte & 0x1F) {
            guard let unit = reader.sized() else { return nil }
            sps.append(unit)
        }
        guard let ppsCount = reader.byte() else { return nil }
        var pps: [[UInt8]] = []
        for _ in 0..<Int(ppsCount) {
            guard let unit = reader.sized() else { return nil }
            pps.append(unit)
        }
        self.profile = profile
        self.compatibility = compatibility
        self.level = level
        nalLengthSize = lengthSize
        sequenceParameterSets = sps
        pictureParameterSets = pps
        trailing = reader.rest()
    }

    /// The configuration of parameter sets given in Annex B form (start codes: what
    /// libavcodec's bitstream filters may leave as extradata), for a stream whose NAL
    /// units have `nalLengthSize`-byte lengths; nil without a readable SPS.
    package init?(annexB bytes: [UInt8], nalLengthSize: Int) {
        let units = Self.nalUnits(bytes, lengthSize: nil) ?? []
        let sps = units.filter { $0[0] & 0x1F == 7 }, pps = units.filter { $0[0] & 0x1F == 8 }
        guard let first = sps.first, let parsed = SequenceParameters(first), !pps.isEmpty else { return nil }
        self.init(profile: first[1], compatibility: first[2], level: first[3], nalLengthSize: nalLengthSize,
                  sequenceParameterSets: sps, pictureParameterSets: pps)
        // ISO/IEC 14496-15 5.3.3.1.2: the High profiles add chroma format and bit depths.
        if ![66, 77, 88].contains(first[1]) {
            trailing = [0xFC | UInt8(parsed.chromaFormat & 3), 0xF8 | UInt8((parsed.bitDepthLuma - 8) & 7),
                        0xF8 | UInt8((parsed.bitDepthChroma - 8) & 7), 0]
        }
    }

    package init(profile: UInt8, compatibility: UInt8, level: UInt8, nalLengthSize: Int,
                sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]], trailing: [UInt8] = []) {
        self.profile = profile
        self.compatibility = compatibility
        self.level = level
        self.nalLengthSize = nalLengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.trailing = trailing
    }

    /// The box payload; nil when it cannot be written (more than 31 SPS or 255 PPS, a
    /// parameter set longer than 65535 bytes, a length size other than 1, 2 or 4).
    package var bytes: [UInt8]? {
        guard [1, 2, 4].contains(nalLengthSize), sequenceParameterSets.count <= 31, pictureParameterSets.count <= 255,
              (sequenceParameterSets + pictureParameterSets).allSatisfy({ $0.count <= 0xFFFF }) else { return nil }
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(nalLengthSize - 1),
                            0xE0 | UInt8(sequenceParameterSets.count)]
        for unit in sequenceParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        out.append(UInt8(pictureParameterSets.count))
        for unit in pictureParameterSets { out += [UInt8(unit.count >> 8), UInt8(unit.count & 0xFF)] + unit }
        return out + trailing
    }

    /// The sequence parameter sets as far as they are read (nil entries: unreadable).
    package var sequenceParameters: [SequenceParameters?] { sequenceParameterSets.map(SequenceParameters.init) }

    /// The picture parameter sets as far as they are read.
    package var pictureParameters: [PictureParameters?] { pictureParameterSets.map(PictureParameters.init) }

    /// The lowest id used by no sequence and no picture parameter set (x264's `sps-id`
    /// numbers both), nil when none is free or a set is unreadable.
    package var freeParameterSetID: Int? {
        let sps = sequenceParameters, pps = pictureParameters
        guard !sps.contains(nil), !pps.contains(nil) else { return nil }
        let used = Set(sps.compactMap { $0?.id }).union(pps.compactMap { $0?.id })
        return (0...31).first { !used.contains($0) }
    }

    /// What the smart render needs of a sequence parameter set (ITU-T H.264 7.3.2.1.1, up
    /// to `frame_mbs_only_flag`): its format, and what a slice header's syntax depends on.
    package struct SequenceParameters: Sendable, Hashable {
        package var profile: UInt8
        package var constraints: UInt8
        package var level: UInt8
        package var id: Int
        /// 1 is 4:2:0.
        package var chromaFormat: Int
        /// 4:4:4 coded as three pictures, each slice naming its `colour_plane_id`.
        package var separateColourPlanes: Bool
        package var bitDepthLuma: Int
        package var bitDepthChroma: Int
        /// Bits of a slice's `frame_num` (`log2_max_frame_num_minus4` + 4).
        package var frameNumberBits: Int
        /// `pic_order_cnt_type`, 0 to 2.
        package var pictureOrderCountType: Int
        /// Bits of a slice's `pic_order_cnt_lsb` (type 0 only; 0 otherwise).
        package var pictureOrderCountLSBBits: Int
        /// Type 1: slices state no `delta_pic_order_cnt`.
        package var deltaPictureOrderAlwaysZero: Bool
        /// False for a stream that may code fields (interlaced).
        package var frameMacroblocksOnly: Bool
        package var widthInMacroblocks: Int
        package var heightInMapUnits: Int

        /// Reads a whole SPS NAL unit (header byte first); nil when it is not one.
        package init?(_ unit: [UInt8]) {
            guard unit.count >= 4, unit[0] & 0x1F == 7 else { return nil }
            var bits = H264BitReader(EmulationPrevention.removed(unit.dropFirst()))
            guard let profile = bits.bits(8), let constraints = bits.bits(8), let level = bits.bits(8),
                  let id = bits.ue(), id <= 31 else { return nil }
            self.profile = UInt8(profile)
            self.constraints = UInt8(constraints)
            self.level = UInt8(level)
            self.id = id
            chromaFormat = 1
            separateColourPlanes = false
            bitDepthLuma = 8
            bitDepthChroma = 8
            if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
                guard let chroma = bits.ue(), chroma <= 3 else { return nil }
                chromaFormat = chroma
                if chroma == 3 {
                    guard let separate = bits.flag() else { return nil }
                    separateColourPlanes = separate
                }
                guard let luma = bits.ue(), luma <= 6, let chromaDepth = bits.ue(), chromaDepth <= 6,
                      bits.bits(1) != nil, let scaling = bits.bits(1) else { return nil }
                bitDepthLuma = luma + 8
                bitDepthChroma = chromaDepth + 8
                if scaling == 1 {
                    for list in 0..<(chroma == 3 ? 12 : 8) {
                        guard let present = bits.bits(1) else { return nil }
                        if present == 1 { guard Self.skipScalingList(&bits, size: list < 6 ? 16 : 64) else { return nil } }
                    }
                }
            }
            guard let frameNumber = bits.ue(), frameNumber <= 12, let pocType = bits.ue(), pocType <= 2 else { return nil }
            frameNumberBits = frameNumber + 4
            pictureOrderCountType = pocType
            pictureOrderCountLSBBits = 0
            deltaPictureOrderAlwaysZero = false
            if pocType == 0 {
                guard let lsb = bits.ue(), lsb <= 12 else { return nil }
                pictureOrderCountLSBBits = lsb + 4
            } else if pocType == 1 {
                guard let alwaysZero = bits.flag(), bits.se() != nil, bits.se() != nil, let cycle = bits.ue(), cycle <= 255 else { return nil }
                deltaPictureOrderAlwaysZero = alwaysZero
                for _ in 0..<cycle { guard bits.se() != nil else { return nil } }
            }
            guard let references = bits.ue(), references <= 16, bits.bits(1) != nil,
                  let width = bits.ue(), width < 1024, let height = bits.ue(), height < 1024,
                  let frameOnly = bits.bits(1) else { return nil }
            frameMacroblocksOnly = frameOnly == 1
            widthInMacroblocks = width + 1
            heightInMapUnits = height + 1
        }

        private static func skipScalingList(_ bits: inout H264BitReader, size: Int) -> Bool {
            var last = 8, next = 8
            for _ in 0..<size where next != 0 {
                guard let delta = bits.se(), delta >= -128, delta <= 127 else { return false }
                next = (last + delta + 256) % 256
                last = next == 0 ? last : next
            }
            return true
        }

        /// x264's name for the profile, when x264 makes it in 8-bit 4:2:0.
        package var x264Profile: String? {
            guard chromaFormat == 1, bitDepthLuma == 8, bitDepthChroma == 8 else { return nil }
            switch profile {
            case 66: return "baseline"
            case 77: return "main"
            case 100: return "high"
            default: return nil
            }
        }

        /// The profile as people name it.
        package var profileName: String {
            switch profile {
            case 66: constraints & 0x40 != 0 ? "Constrained Baseline" : "Baseline"
            case 77: "Main"
            case 88: "Extended"
            case 100: "High"
            case 110: "High 10"
            case 122: "High 4:2:2"
            case 244: "High 4:4:4 Predictive"
            default: "profile \(profile)"
            }
        }
    }

    /// What the smart render needs of a picture parameter set (7.3.2.2, its first fields).
    package struct PictureParameters: Sendable, Hashable {
        package var id: Int
        package var sequenceID: Int
        /// CABAC (true) or CAVLC.
        package var cabac: Bool
        /// What a slice header's syntax depends on; nil when the set uses slice groups
        /// (FMO: its map is not read) or ends before them. A set is read without them: the
        /// smart render's checks need only its first fields.
        package var sliceHeaderFields: SliceHeaderFields?

        /// The fields of a picture parameter set from `bottom_field_pic_order_in_frame_present_flag`
        /// to `redundant_pic_cnt_present_flag`, with one slice group.
        package struct SliceHeaderFields: Sendable, Hashable {
            /// Slices of frames state `delta_pic_order_cnt_bottom` (or `[1]`).
            package var bottomFieldPictureOrderInFramePresent: Bool
            package var referenceIndicesL0: Int
            package var referenceIndicesL1: Int
            package var weightedPrediction: Bool
            package var weightedBipredictionIDC: Int
            /// `pic_init_qp_minus26`: a slice's quantiser is 26 + this + its `slice_qp_delta`.
            package var initialQPOffset: Int
            package var deblockingFilterControlPresent: Bool
            package var constrainedIntraPrediction: Bool
            package var redundantPictureCountPresent: Bool
        }

        package init?(_ unit: [UInt8]) {
            guard unit.count >= 2, unit[0] & 0x1F == 8 else { return nil }
            var bits = H264BitReader(EmulationPrevention.removed(unit.dropFirst()))
            guard let id = bits.ue(), id <= 255, let sequenceID = bits.ue(), sequenceID <= 31,
                  let cabac = bits.bits(1) else { return nil }
            self.id = id
            self.sequenceID = sequenceID
            self.cabac = cabac == 1
            sliceHeaderFields = Self.sliceHeaderFields(&bits)
        }

        private static func sliceHeaderFields(_ bits: inout H264BitReader) -> SliceHeaderFields? {
            guard let bottom = bits.flag(), let groups = bits.ue(), groups == 0,
                  let l0 = bits.ue(atMost: 31), let l1 = bits.ue(atMost: 31), let weighted = bits.flag(),
                  let bipred = bits.bits(2), bipred <= 2, let qp = bits.se(in: -(26 + 6 * 6)...25), bits.se(in: -26...25) != nil,
                  bits.se(in: -12...12) != nil, let deblocking = bits.flag(), let constrained = bits.flag(),
                  let redundant = bits.flag() else { return nil }
            return SliceHeaderFields(bottomFieldPictureOrderInFramePresent: bottom, referenceIndicesL0: l0 + 1,
                                     referenceIndicesL1: l1 + 1, weightedPrediction: weighted, weightedBipredictionIDC: bipred,
                                     initialQPOffset: qp, deblockingFilterControlPresent: deblocking,
                                     constrainedIntraPrediction: constrained, redundantPictureCountPresent: redundant)
        }
    }

    /// Splits NAL units out of bytes in Annex B form (start codes 00 00 01 / 00 00 00 01)
    /// or, with `lengthSize`, length-prefixed; nil when the lengths do not fill the bytes.
    package static func nalUnits(_ bytes: [UInt8], lengthSize: Int?) -> [[UInt8]]? {
        guard let lengthSize else { return annexBUnits(bytes) }
        var units: [[UInt8]] = []
        let whole = forEachUnit(bytes, lengthSize: lengthSize) { unit in
            units.append(Array(unit))
            return true
        }
        return whole ? units : nil
    }

    /// Calls `body` with each NAL unit of length-prefixed `bytes` (big-endian lengths of
    /// `lengthSize` bytes; every unit not empty, header byte first), in place, until it
    /// returns false; false when the lengths do not fill the bytes (as far as they were
    /// walked) or the length size is not 1 to 4.
    package static func forEachUnit<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, lengthSize: Int, _ body: (Bytes.SubSequence) -> Bool
    ) -> Bool where Bytes.Index == Int {
        guard (1...4).contains(lengthSize) else { return false }
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard bytes.endIndex - offset >= lengthSize else { return false }
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(bytes[offset + k]) }
            offset += lengthSize
            guard length > 0, length <= bytes.endIndex - offset else { return false }
            guard body(bytes[offset..<(offset + length)]) else { return true }
            offset += length
        }
        return true
    }

    private static func annexBUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var start: Int?
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                if let s = start { units.append(trimmed(bytes[s..<i])) }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < bytes.count { units.append(trimmed(bytes[s...])) }
        return units.filter { !$0.isEmpty }
    }

    /// A unit without the zero bytes before the next start code (trailing_zero_8bits).
    private static func trimmed(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var end = unit.endIndex
        while end > unit.startIndex, unit[end - 1] == 0 { end -= 1 }
        return Array(unit[unit.startIndex..<end])
    }
}

/// Bytes read front to back, every read bounded.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A 16-bit length, then that many bytes (not none).
    mutating func sized() -> [UInt8]? {
        guard let high = byte(), let low = byte() else { return nil }
        let length = Int(high) << 8 | Int(low)
        guard length > 0, length <= bytes.count - offset else { return nil }
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}
