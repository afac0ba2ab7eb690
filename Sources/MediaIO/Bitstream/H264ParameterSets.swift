import DropcutTimeline

/// The sequence and picture parameter sets a stream's slices may refer to, by id: those of
/// its sample entry (`avcC`), and any a packet carries in-band, which replace the one
/// of the same id from then on (7.4.1.2.1: a set is active from the picture that refers
/// to it). What a slice header is read with (`H264SliceHeader`).
package struct H264ParameterSets: Sendable {
    private var sequences: [Int: H264DecoderConfiguration.SequenceParameters] = [:]
    private var pictures: [Int: H264DecoderConfiguration.PictureParameters] = [:]

    /// The sets `configuration` lists (unreadable ones left out: a slice naming them is
    /// not read).
    package init(_ configuration: H264DecoderConfiguration) {
        for unit in configuration.sequenceParameterSets { add(unit) }
        for unit in configuration.pictureParameterSets { add(unit) }
    }

    /// Takes in a whole SPS or PPS NAL unit (header byte first); any other unit is left.
    /// An unreadable set forgets the id it claims, if any can be read: a slice naming it is
    /// then not read with the set it replaced.
    package mutating func add(_ unit: [UInt8]) {
        switch unit.first.map({ $0 & 0x1F }) {
        case 7:
            if let sps = H264DecoderConfiguration.SequenceParameters(unit) {
                sequences[sps.id] = sps
            } else if let id = Self.leadingID(of: unit, skipping: 3), id <= 31 {
                sequences[id] = nil
            }
        case 8:
            if let pps = H264DecoderConfiguration.PictureParameters(unit) {
                pictures[pps.id] = pps
            } else if let id = Self.leadingID(of: unit, skipping: 0), id <= 255 {
                pictures[id] = nil
            }
        default:
            break
        }
    }

    /// The picture parameter set `id` and its sequence parameter set; nil when either is
    /// unknown.
    package func active(picture id: Int) -> (sequence: H264DecoderConfiguration.SequenceParameters,
                                             picture: H264DecoderConfiguration.PictureParameters)? {
        guard let pps = pictures[id], let sps = sequences[pps.sequenceID] else { return nil }
        return (sps, pps)
    }

    /// The ue(v) id after the header byte and `skipping` whole bytes (an SPS's profile,
    /// constraints and level).
    private static func leadingID(of unit: [UInt8], skipping bytes: Int) -> Int? {
        var bits = H264BitReader(EmulationPrevention.removed(unit.dropFirst(), limit: bytes + 8))
        guard bits.bits(8 * bytes) != nil else { return nil }
        return bits.ue()
    }
}
