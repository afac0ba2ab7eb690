internal import CUnibreak

/// Where a line may break, by the Unicode line breaking rules (UAX #14) with libunibreak:
/// after a space in Latin text, between two ideographs in CJK, never inside a word.
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

    /// libunibreak's tables are set up once, before the first use (its `init_linebreak`
    /// is not meant to race with itself).
    private static let initialised: Bool = {
        init_linebreak()
        return true
    }()

    /// The break kind after each of `scalars` (one per code point, logical order).
    static func after(_ scalars: [UInt32]) -> [Kind] {
        guard !scalars.isEmpty, initialised else { return [] }
        var breaks = [CChar](repeating: CChar(LINEBREAK_NOBREAK), count: scalars.count)
        scalars.withUnsafeBufferPointer { text in
            breaks.withUnsafeMutableBufferPointer { out in
                set_linebreaks_utf32(text.baseAddress, scalars.count, nil, out.baseAddress)
            }
        }
        return breaks.map {
            switch Int32($0) {
            case LINEBREAK_MUSTBREAK: .must
            case LINEBREAK_ALLOWBREAK: .allowed
            default: .none
            }
        }
    }
}
