internal import CDropcutFriBidi

/// The Unicode Bidirectional Algorithm (UAX #9) on one paragraph, with FriBidi: the
/// embedding level of every code point (even: left to right, odd: right to left), the
/// paragraph's direction taken from its first strong character (rules P2–P3), so an
/// Arabic caption reads right to left and a Latin one with an Arabic word left to right.
struct BidiParagraph {
    /// One level per code point of the paragraph.
    var levels: [Int8]
    /// The paragraph direction is right to left.
    var isRightToLeft: Bool

    /// The levels of `scalars` (one paragraph: no paragraph separator inside). Should
    /// FriBidi fail (it reports 0 only when it cannot allocate), every level is the
    /// paragraph's, left to right: the text is still drawn, in logical order.
    init(_ scalars: [UInt32]) {
        let count = scalars.count
        guard count > 0, count <= Int(Int32.max) else {
            levels = [Int8](repeating: 0, count: count)
            isRightToLeft = false
            return
        }
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: count)
        var brackets = [FriBidiBracketType](repeating: 0, count: count)
        var levels = [FriBidiLevel](repeating: 0, count: count)
        var direction = dropcut_fribidi_par_on()
        let length = FriBidiStrIndex(count)
        let result = scalars.withUnsafeBufferPointer { text -> FriBidiLevel in
            fribidi_get_bidi_types(text.baseAddress, length, &types)
            fribidi_get_bracket_types(text.baseAddress, length, types, &brackets)
            return fribidi_get_par_embedding_levels_ex(types, brackets, length, &direction, &levels)
        }
        guard result > 0 else {
            self.levels = [Int8](repeating: 0, count: count)
            isRightToLeft = false
            return
        }
        self.levels = levels.map { Int8($0) }
        isRightToLeft = dropcut_fribidi_par_is_rtl(direction) != 0
    }
}
