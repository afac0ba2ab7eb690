internal import CDropcutLineBreaking

/// Where a line may break, by the Unicode line breaking rules (UAX #14) with ICU's line
/// BreakIterator (what browsers and most text stacks use; the C target `LineBreaking`):
/// after a space in Latin text, between two ideographs in CJK, never inside a word, a
/// flag, a keycap or an emoji ZWJ sequence. libunibreak 1.1 (Debian 12's, from 2012),
/// used before, aborted the process on a flag.
enum LineBreakOpportunities {
    /// What the text allows after a code point.
    enum Kind: Equatable {
        /// A line must end here (after a newline; the end of the text).
        case must
        /// A line may end here.
        case allowed
        /// No break here.
        case none
    }

    /// The break kind after each of `scalars` (one per code point, logical order). A value
    /// that is not a Unicode scalar (a surrogate, past U+10FFFF) is taken as U+FFFD. If ICU
    /// cannot answer, no break but the text's end (the line is cut where it overflows).
    static func after(_ scalars: [UInt32]) -> [Kind] {
        guard !scalars.isEmpty else { return [] }
        // UTF-16 for ICU, and which code point ends at each UTF-16 unit.
        var utf16: [UInt16] = []
        utf16.reserveCapacity(scalars.count)
        var owner: [Int] = []
        owner.reserveCapacity(scalars.count)
        for (index, value) in scalars.enumerated() {
            for unit in UTF16.encode(Unicode.Scalar(value) ?? "\u{FFFD}")! {
                utf16.append(unit)
                owner.append(index)
            }
        }
        var kinds = [Kind](repeating: .none, count: scalars.count)
        kinds[scalars.count - 1] = .must
        guard utf16.count < Int(Int32.max) else { return kinds }
        var units = [UInt8](repeating: 0, count: utf16.count)
        let status = utf16.withUnsafeBufferPointer { text in
            units.withUnsafeMutableBufferPointer { dropcut_line_breaks(text.baseAddress, Int32(text.count), $0.baseAddress) }
        }
        guard status == 0 else { return kinds }
        // A break after a unit is a break after the code point that unit ends.
        for (unit, kind) in units.enumerated() where kind != 0 {
            let index = owner[unit]
            guard index < scalars.count - 1, unit + 1 == utf16.count || owner[unit + 1] != index else { continue }
            kinds[index] = kind == 2 ? .must : .allowed
        }
        return kinds
    }
}
