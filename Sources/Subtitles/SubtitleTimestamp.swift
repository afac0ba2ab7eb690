import Timeline

/// Subtitle timestamps: SRT's `HH:MM:SS,mmm` and WebVTT's `[HH:]MM:SS.mmm`, read exactly
/// (milliseconds, no floating point) and range-checked as they are read.
enum SubtitleTimestamp {
    /// The separators between seconds and milliseconds a format accepts.
    enum Style {
        /// SRT: hours required; `,` (the standard) or `.` (what many tools write).
        case subRip
        /// WebVTT: hours optional (then at least two digits); `.` only.
        case webVTT
    }

    /// The time `text` names, in milliseconds, or a reason it is not one.
    static func milliseconds(_ text: Substring, style: Style) -> Result<Int64, Reason> {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        let hasHours: Bool
        switch (style, fields.count) {
        case (.subRip, 3), (.webVTT, 3): hasHours = true
        case (.webVTT, 2): hasHours = false
        default: return .failure(Reason("\"\(text.prefix(40))\" is not a time (\(style == .subRip ? "HH:MM:SS,mmm" : "[HH:]MM:SS.mmm"))"))
        }
        let last = fields[fields.count - 1]
        let separators: Set<Character> = style == .subRip ? [",", "."] : ["."]
        guard let dot = last.firstIndex(where: { separators.contains($0) }) else {
            return .failure(Reason("\"\(text.prefix(40))\" has no milliseconds (\(style == .subRip ? "SS,mmm" : "SS.mmm"))"))
        }
        let secondsText = last[..<dot], millisText = last[last.index(after: dot)...]
        func number(_ digits: Substring, count: ClosedRange<Int>) -> Int64? {
            guard count.contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(digits)
        }
        guard let hours = hasHours ? number(fields[0], count: 1...4) : 0,
              let minutes = number(fields[hasHours ? 1 : 0], count: 2...2),
              let seconds = number(secondsText, count: 2...2),
              let millis = number(millisText, count: 3...3) else {
            return .failure(Reason("\"\(text.prefix(40))\" is not a time (\(style == .subRip ? "HH:MM:SS,mmm" : "[HH:]MM:SS.mmm"))"))
        }
        guard minutes < 60, seconds < 60 else {
            return .failure(Reason("\"\(text.prefix(40))\": minutes and seconds must be below 60"))
        }
        let total = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
        guard total <= SubtitleLimits.maximumTimeMilliseconds else {
            return .failure(Reason("\"\(text.prefix(40))\" is more than 24 hours"))
        }
        return .success(total)
    }

    static func time(_ milliseconds: Int64) -> MediaTime { MediaTime(value: milliseconds, timescale: 1000) }

    /// A reason a timestamp or timing line was refused.
    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }
}
