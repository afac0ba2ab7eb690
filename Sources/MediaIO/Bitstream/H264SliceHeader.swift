import DropcutTimeline

/// The header of an IDR picture's I slice (ITU-T H.264 7.3.3, a NAL unit of type 5) read
/// whole with the parameter sets it names, and where its `idr_pic_id` and its end lie:
/// what `IDRPictureIDRewriter` keeps bit for bit around the one field it changes.
///
/// An IDR picture's slices are I or SI slices (7.4.3), so the header holds no reference
/// list, weights or CABAC init: every field is read, each within the range the standard
/// gives it. Nil for anything else — another NAL type, an SI slice, a picture parameter
/// set with slice groups (FMO) or not known, a value out of range, bits that run out,
/// CABAC alignment bits that are not ones.
package struct H264SliceHeader: Sendable, Hashable {
    package var nalReferenceIDC: Int
    package var firstMacroblock: Int
    /// 2 or 7 (I).
    package var sliceType: Int
    package var pictureParameterSetID: Int
    /// Only with separate colour planes.
    package var colourPlane: Int?
    package var frameNumber: Int
    package var fieldPicture: Bool
    package var bottomField: Bool
    /// 0 to 65535.
    package var idrPictureID: Int
    package var pictureOrderCountLSB: Int?
    package var deltaPictureOrderCountBottom: Int?
    package var deltaPictureOrderCount0: Int?
    package var deltaPictureOrderCount1: Int?
    package var redundantPictureCount: Int?
    package var noOutputOfPriorPictures: Bool
    package var longTermReference: Bool
    package var qpDelta: Int
    package var disableDeblockingFilter: Int?
    package var alphaOffset: Int?
    package var betaOffset: Int?
    /// CABAC, whose slice data starts on a byte boundary (after `cabac_alignment_one_bit`s),
    /// or CAVLC, whose follows the header at once.
    package var cabac: Bool
    /// Where `idr_pic_id`'s code lies, in bits of the RBSP (which starts after the NAL
    /// header byte).
    package var idrPictureIDBits: Range<Int>
    /// The bit after the header's last: where the CABAC alignment or CAVLC slice data starts.
    package var end: Int

    /// The largest `idr_pic_id` (7.4.3).
    package static let maximumIDRPictureID = 65535

    /// Reads the slice header at the start of `rbsp` (the payload of the NAL unit whose
    /// header byte is `header`, emulation prevention removed), with `sets`.
    package init?(rbsp: [UInt8], header: UInt8, sets: H264ParameterSets) {
        guard header & 0x80 == 0, header & 0x1F == 5 else { return nil }
        nalReferenceIDC = Int(header >> 5)
        // An IDR picture is a reference picture: its slices carry dec_ref_pic_marking.
        guard nalReferenceIDC != 0 else { return nil }
        var bits = H264BitReader(rbsp)
        guard let firstMacroblock = bits.ue(), let sliceType = bits.ue(), sliceType == 2 || sliceType == 7,
              let ppsID = bits.ue(atMost: 255), let active = sets.active(picture: ppsID),
              let fields = active.picture.sliceHeaderFields else { return nil }
        let sps = active.sequence, pps = active.picture
        let macroblocks = sps.widthInMacroblocks * sps.heightInMapUnits * (sps.frameMacroblocksOnly ? 1 : 2)
        guard firstMacroblock < macroblocks else { return nil }
        self.firstMacroblock = firstMacroblock
        self.sliceType = sliceType
        pictureParameterSetID = ppsID
        cabac = pps.cabac
        colourPlane = nil
        if sps.separateColourPlanes {
            guard let plane = bits.bits(2), plane <= 2 else { return nil }
            colourPlane = plane
        }
        guard let frameNumber = bits.bits(sps.frameNumberBits) else { return nil }
        self.frameNumber = frameNumber
        fieldPicture = false
        bottomField = false
        if !sps.frameMacroblocksOnly {
            guard let field = bits.flag() else { return nil }
            fieldPicture = field
            if field {
                guard let bottom = bits.flag() else { return nil }
                bottomField = bottom
            }
        }
        let idStart = bits.position
        guard let id = bits.ue(atMost: Self.maximumIDRPictureID) else { return nil }
        idrPictureID = id
        idrPictureIDBits = idStart..<bits.position
        let bottomDelta = fields.bottomFieldPictureOrderInFramePresent && !fieldPicture
        pictureOrderCountLSB = nil
        deltaPictureOrderCountBottom = nil
        deltaPictureOrderCount0 = nil
        deltaPictureOrderCount1 = nil
        if sps.pictureOrderCountType == 0 {
            guard let lsb = bits.bits(sps.pictureOrderCountLSBBits) else { return nil }
            pictureOrderCountLSB = lsb
            if bottomDelta {
                guard let delta = bits.se() else { return nil }
                deltaPictureOrderCountBottom = delta
            }
        } else if sps.pictureOrderCountType == 1 && !sps.deltaPictureOrderAlwaysZero {
            guard let delta = bits.se() else { return nil }
            deltaPictureOrderCount0 = delta
            if bottomDelta {
                guard let delta = bits.se() else { return nil }
                deltaPictureOrderCount1 = delta
            }
        }
        redundantPictureCount = nil
        if fields.redundantPictureCountPresent {
            guard let count = bits.ue(atMost: 127) else { return nil }
            redundantPictureCount = count
        }
        // No reference lists or weights in an I slice; an IDR's dec_ref_pic_marking is two flags.
        guard let noOutput = bits.flag(), let longTerm = bits.flag() else { return nil }
        noOutputOfPriorPictures = noOutput
        longTermReference = longTerm
        // SliceQPY = 26 + pic_init_qp_minus26 + slice_qp_delta, within -QpBdOffsetY...51.
        let lowestQP = -6 * (sps.bitDepthLuma - 8)
        guard let qpDelta = bits.se(in: -128...128),
              (lowestQP...51).contains(26 + fields.initialQPOffset + qpDelta) else { return nil }
        self.qpDelta = qpDelta
        disableDeblockingFilter = nil
        alphaOffset = nil
        betaOffset = nil
        if fields.deblockingFilterControlPresent {
            guard let disable = bits.ue(atMost: 2) else { return nil }
            disableDeblockingFilter = disable
            if disable != 1 {
                guard let alpha = bits.se(in: -6...6), let beta = bits.se(in: -6...6) else { return nil }
                alphaOffset = alpha
                betaOffset = beta
            }
        }
        end = bits.position
        if cabac {
            while bits.position % 8 != 0 {
                guard bits.flag() == true else { return nil }
            }
        }
    }
}
