import DropcutTimeline

/// Writes cues as a WebVTT file: what a `.vtt` caption deliverable holds, in output time.
/// Text is escaped (`&`, `<`, `>`), word timing written as cue timestamps, cue settings
/// written back.
public enum WebVTTWriter {
    public static func write(_ cues: [CaptionCue]) -> String {
        var out = "WEBVTT\n"
        for cue in cues where cue.timeRange.duration > .zero {
            out += "\n" + timestamp(cue.timeRange.start) + " --> " + timestamp(cue.timeRange.end) + settings(cue.placement) + "\n"
            out += payload(cue).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.isEmpty ? " " : String($0) }.joined(separator: "\n") + "\n"
        }
        return out
    }

    /// `HH:MM:SS.mmm`, rounded to the millisecond.
    static func timestamp(_ time: MediaTime) -> String {
        let ms = max(0, time.ticks(in: 1000) ?? 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = ms % 1000, digits = String(millis)
        return two(ms / 3_600_000) + ":" + two(ms / 60_000 % 60) + ":" + two(ms / 1000 % 60) + "."
            + String(repeating: "0", count: 3 - digits.count) + digits
    }

    private static func settings(_ placement: CuePlacement) -> String {
        var parts: [String] = []
        switch placement.line {
        case let .percent(value)?: parts.append("line:\(number(value))%" + (placement.lineAlignment == .start ? "" : ",\(placement.lineAlignment.rawValue)"))
        case let .number(value)?: parts.append("line:\(value)" + (placement.lineAlignment == .start ? "" : ",\(placement.lineAlignment.rawValue)"))
        case nil: break
        }
        if let position = placement.position {
            parts.append("position:\(number(position))%" + (placement.positionAlignment == .auto ? "" : ",\(placement.positionAlignment.rawValue)"))
        }
        if placement.alignment != .center { parts.append("align:\(placement.alignment.rawValue)") }
        return parts.isEmpty ? "" : " " + parts.joined(separator: " ")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    private static func escape<S: StringProtocol>(_ text: S) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The text with a timestamp tag before each timed word after the first.
    private static func payload(_ cue: CaptionCue) -> String {
        guard !cue.words.isEmpty else { return escape(cue.text) }
        let utf8 = Array(cue.text.utf8)
        var out = "", offset = 0
        for word in cue.words.sorted(by: { $0.textRange.lowerBound < $1.textRange.lowerBound }) {
            let lower = min(max(word.textRange.lowerBound, offset), utf8.count)
            let upper = min(max(word.textRange.upperBound, lower), utf8.count)
            out += escape(String(decoding: utf8[offset..<lower], as: UTF8.self))
            if word.start > cue.timeRange.start { out += "<" + timestamp(word.start) + ">" }
            out += escape(String(decoding: utf8[lower..<upper], as: UTF8.self))
            offset = upper
        }
        return out + escape(String(decoding: utf8[offset...], as: UTF8.self))
    }
}
