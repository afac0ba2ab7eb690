/// A stream's colour exactly as it states it: the ISO/IEC 23091-2 code points of its VUI
/// and `colr` box (`colour_primaries`, `transfer_characteristics`, `matrix_coefficients`,
/// `video_full_range_flag`). `ColorDescription` reads these as what they mean, and so
/// names BT.470 BG and SMPTE 170M alike; where encoded pictures sit beside copied ones in
/// one stream (smart render) they state the copied ones' very code points.
package struct ColourCodePoints: Sendable, Hashable {
    /// 1: BT.709, 5: BT.470 BG, 6: SMPTE 170M, 9: BT.2020, 12: Display P3 …; 2: unspecified.
    package var primaries: Int
    package var transfer: Int
    package var matrix: Int
    package var fullRange: Bool

    package init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.fullRange = fullRange
    }
}
