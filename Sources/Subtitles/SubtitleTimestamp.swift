import Timeline

/// Subtitle timestamps: SRT's `HH:MM:SS,mmm` and WebVTT's `[HH:]MM:SS.mmm`, read exactly
/// (milliseconds, no floating point) and range-checked as they are read.
enum SubtitleTimestamp {
    /// The only style `milliseconds` reads; WebVTT times are read by `collectWebVTT`.
    enum Style {
        /// SRT: hours required; `,` (the standard) or `.` (what many tools write).
        case subRip
    }

    /// The SRT time `text` names, in milliseconds, or a reason it is not one: `H:M:S,mmm`
    /// with one to four digits of hours, one or two of minutes and seconds and one to three
    /// of milliseconds (read as a number of milliseconds, as ffmpeg reads them).
    static func milliseconds(_ text: Substring, style: Style) -> Result<Int64, Reason> {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        func failure() -> Result<Int64, Reason> { .failure(Reason("\"\(text.prefix(40))\" is not a time (HH:MM:SS,mmm)")) }
        guard fields.count == 3 else { return failure() }
        let last = fields[2]
        guard let dot = last.firstIndex(where: { $0 == "," || $0 == "." }) else {
            return .failure(Reason("\"\(text.prefix(40))\" has no milliseconds (SS,mmm)"))
        }
        let secondsText = last[..<dot], millisText = last[last.index(after: dot)...]
        func number(_ digits: Substring, count: ClosedRange<Int>) -> Int64? {
            guard count.contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(digits)
        }
        guard let hours = number(fields[0], count: 1...4), let minutes = number(fields[1], count: 1...2),
              let seconds = number(secondsText, count: 1...2), let millis = number(millisText, count: 1...3) else {
            return failure()
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

    /// The WebVTT timestamp at the start of `text` and what follows it, read as the spec's
    /// "collect a WebVTT timestamp" reads it: a first field of two digits up to 59 is the
    /// minutes, anything else the hours (then three fields); seconds then `.` and exactly
    /// three digits. Nothing need follow (`00:01.000align:start` leaves `align:start`).
    static func collectWebVTT(_ text: Substring) -> Result<(milliseconds: Int64, rest: Substring), Reason> {
        var rest = text
        // Named in messages: the timestamp, not what follows it.
        let text = text.prefix { !$0.isWebVTTWhitespace && $0 != "-" }
        func digits() -> Substring {
            let run = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(run.count)
            return run
        }
        func failure() -> Result<(milliseconds: Int64, rest: Substring), Reason> {
            .failure(Reason("\"\(text.prefix(40))\" is not a time ([HH:]MM:SS.mmm)"))
        }
        let first = digits()
        // More than 9 digits of hours is past every limit (and past Int64 soon after).
        guard !first.isEmpty, first.count <= 9, let value1 = Int64(first) else { return failure() }
        let hoursFirst = first.count != 2 || value1 > 59
        guard rest.first == ":" else { return failure() }
        rest = rest.dropFirst()
        let second = digits()
        guard second.count == 2, let value2 = Int64(second) else { return failure() }
        var hours: Int64 = 0, minutes = value1, seconds = value2
        if hoursFirst || rest.first == ":" {
            guard rest.first == ":" else { return failure() }
            rest = rest.dropFirst()
            let third = digits()
            guard third.count == 2, let value3 = Int64(third) else { return failure() }
            (hours, minutes, seconds) = (value1, value2, value3)
        }
        guard rest.first == "." else {
            return .failure(Reason("\"\(text.prefix(40))\" has no milliseconds (SS.mmm)"))
        }
        rest = rest.dropFirst()
        let fraction = digits()
        guard fraction.count == 3, let millis = Int64(fraction) else { return failure() }
        guard minutes < 60, seconds < 60 else {
            return .failure(Reason("\"\(text.prefix(40))\": minutes and seconds must be below 60"))
        }
        let total = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
        guard total <= SubtitleLimits.maximumTimeMilliseconds else {
            return .failure(Reason("\"\(text.prefix(40))\" is more than 24 hours"))
        }
        return .success((total, rest))
    }

    static func time(_ milliseconds: Int64) -> MediaTime { MediaTime(value: milliseconds, timescale: 1000) }

    /// A reason a timestamp or timing line was refused.
    struct Reason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }
}
