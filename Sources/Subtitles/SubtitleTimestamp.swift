import DropcutTimeline

/// Subtitle timestamps: SRT's `HH:MM:SS,mmm` and WebVTT's `[HH:]MM:SS.mmm`, read exactly
/// (milliseconds, no floating point) and range-checked as they are read.
enum SubtitleTimestamp {
    /// The SRT time `text` names, in milliseconds, or a reason it is not one: `H:M:S,mmm`
    /// read as ffmpeg's SRT demuxer reads it (`%d:%d:%d,%d`): each field any number of
    /// digits (`00:00:013,567` is 13.567 s), minutes and seconds not limited to 59 (they
    /// add up), the milliseconds a number of milliseconds (`,5` is 5 ms); `,` or `.`.
    static func subRipMilliseconds(_ text: Substring) -> Result<Int64, Reason> {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        func failure() -> Result<Int64, Reason> { .failure(Reason("\(text.quoted()) is not a time (HH:MM:SS,mmm)", kind: .notATime)) }
        guard fields.count == 3 else { return failure() }
        let last = fields[2]
        guard let dot = last.firstIndex(where: { $0 == "," || $0 == "." }) else {
            guard last.allSatisfy({ $0.isASCII && $0.isNumber }) else { return failure() }
            return .failure(Reason("\(text.quoted()) has no milliseconds (SS,mmm)", kind: .noMilliseconds))
        }
        let secondsText = last[..<dot], millisText = last[last.index(after: dot)...]
        // Nine digits of any field are past the 24-hour limit already (and far from Int64's).
        func number(_ digits: Substring) -> Int64? {
            guard (1...9).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(digits)
        }
        guard let hours = number(fields[0]), let minutes = number(fields[1]), let seconds = number(secondsText),
              let millis = number(millisText) else {
            return failure()
        }
        return total(hours: hours, minutes: minutes, seconds: seconds, milliseconds: millis, text: text)
    }

    /// The time the fields make, in milliseconds, within the 24-hour limit.
    private static func total(hours: Int64, minutes: Int64, seconds: Int64, milliseconds: Int64,
                              text: Substring) -> Result<Int64, Reason> {
        let total = ((hours * 60 + minutes) * 60 + seconds) * 1000 + milliseconds
        guard total <= SubtitleLimits.maximumTimeMilliseconds else {
            return .failure(Reason("\(text.quoted()) is more than 24 hours", kind: .pastTheLimit))
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
            .failure(Reason("\(text.quoted()) is not a time ([HH:]MM:SS.mmm)", kind: .notATime))
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
            return .failure(Reason("\(text.quoted()) has no milliseconds (SS.mmm)", kind: .noMilliseconds))
        }
        rest = rest.dropFirst()
        let fraction = digits()
        guard fraction.count == 3, let millis = Int64(fraction) else { return failure() }
        guard minutes < 60, seconds < 60 else {
            return .failure(Reason("\(text.quoted()): minutes and seconds must be below 60", kind: .outOfRange))
        }
        return total(hours: hours, minutes: minutes, seconds: seconds, milliseconds: millis, text: text).map { ($0, rest) }
    }

    static func time(_ milliseconds: Int64) -> MediaTime { MediaTime(value: milliseconds, timescale: 1000) }

    /// A reason a timestamp or timing line was refused, and its kind (warnings are said
    /// once per kind: a file's many bad times of one kind, one line).
    struct Reason: Error {
        enum Kind: Hashable { case notATime, noMilliseconds, outOfRange, pastTheLimit, noArrow }
        var text: String
        var kind: Kind
        init(_ text: String, kind: Kind) {
            self.text = text
            self.kind = kind
        }
    }
}
