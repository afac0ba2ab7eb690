import DropcutTimeline

/// A WebVTT cue's settings (`line:90%,end position:20%,line-left align:start size:50%`), read
/// by the W3C WebVTT spec's "parse the WebVTT cue settings": a setting whose name or value
/// the spec does not know is dropped — the cue keeps its other settings and is shown — and
/// said once as a warning naming the line.
public struct WebVTTCueSettings: Sendable, Hashable {
    /// The alignments are the placement's own (`CuePlacement`): the file's keywords are
    /// their raw values. A position alignment is never `auto` here: nil is "not given".
    public typealias LineAlignment = CuePlacement.LineAlignment
    public typealias PositionAlignment = CuePlacement.PositionAlignment
    public typealias Alignment = CuePlacement.Alignment
    /// `line`: a percentage of the video's height (snap-to-lines off) or a line number
    /// (negative: from the bottom).
    public enum Line: Sendable, Hashable {
        case percent(Double)
        /// As written (`line:1.5` is 1.5); drawn on the nearest whole line.
        case number(Double)
    }

    public var vertical: String?
    public var line: Line?
    public var lineAlignment: LineAlignment?
    public var position: Double?
    public var positionAlignment: PositionAlignment?
    public var size: Double?
    public var alignment: Alignment?
    public var region: String?

    public init() {}

    /// Where the settings put the cue, as the renderer takes it.
    var placement: CuePlacement {
        var placement = CuePlacement.automatic
        switch line {
        case let .percent(percent)?: placement.line = .percent(percent)
        // A frame has far fewer lines than ±1000: past that is off the frame either way.
        case let .number(number)?: placement.line = .number(Int(min(1000, max(-1000, number)).rounded()))
        case nil: break
        }
        if let lineAlignment { placement.lineAlignment = lineAlignment }
        placement.position = position
        if let positionAlignment { placement.positionAlignment = positionAlignment }
        if let alignment { placement.alignment = alignment }
        return placement
    }

    /// The settings of `text` (what follows the end time on a timing line at `line`).
    static func parse(_ text: Substring, line: Int, warnings: inout SubtitleWarnings) -> WebVTTCueSettings {
        var settings = WebVTTCueSettings()
        for setting in text.split(whereSeparator: { $0.isWebVTTWhitespace }) {
            func drop(_ why: String) {
                let name = setting.prefix { $0 != ":" }
                warnings.add(.setting(name: String(name.prefix(20)), problem: why), line: line,
                             "the cue setting \(setting.quoted()) \(why): ignored, the cue is kept")
            }
            guard let colon = setting.firstIndex(of: ":"), colon != setting.startIndex,
                  setting.index(after: colon) != setting.endIndex else {
                drop("is not name:value")
                continue
            }
            let name = setting[..<colon], value = setting[setting.index(after: colon)...]
            switch name {
            case "region":
                settings.region = String(value.prefix(64))
            case "vertical":
                guard value == "rl" || value == "lr" else { drop("is not rl or lr"); continue }
                settings.vertical = String(value)
            case "line":
                let (position, align) = split(value)
                guard position.contains(where: { $0.isASCII && $0.isNumber }) else { drop("has no number"); continue }
                let parsed: Line
                if position.last == "%" {
                    guard let percent = percentage(position) else { drop("is not a percentage from 0% to 100%"); continue }
                    parsed = .percent(percent)
                } else {
                    guard let number = lineNumber(position) else { drop("is not a number"); continue }
                    parsed = .number(number)
                }
                var alignment: LineAlignment?
                if let align {
                    guard let known = LineAlignment(rawValue: String(align)) else { drop("has an alignment other than start, center or end"); continue }
                    alignment = known
                }
                settings.line = parsed
                if let alignment { settings.lineAlignment = alignment }
            case "position":
                let (position, align) = split(value)
                guard let percent = percentage(position) else { drop("is not a percentage from 0% to 100%"); continue }
                var alignment: PositionAlignment?
                if let align {
                    switch align {
                    case "line-left", "start": alignment = .lineLeft
                    case "center", "middle": alignment = .center   // `middle`: the older drafts' word
                    case "line-right", "end": alignment = .lineRight
                    default: drop("has an alignment other than line-left, center or line-right"); continue
                    }
                }
                settings.position = percent
                if let alignment { settings.positionAlignment = alignment }
            case "size":
                guard let percent = percentage(value) else { drop("is not a percentage from 0% to 100%"); continue }
                settings.size = percent
            case "align":
                guard let alignment = Alignment(rawValue: String(value)) else { drop("is not start, center, end, left or right"); continue }
                settings.alignment = alignment
            default:
                drop("is not a WebVTT cue setting")
            }
        }
        return settings
    }

    /// `value` split at its first comma.
    private static func split(_ value: Substring) -> (Substring, Substring?) {
        guard let comma = value.firstIndex(of: ",") else { return (value, nil) }
        return (value[..<comma], value[value.index(after: comma)...])
    }

    /// A WebVTT percentage (`42%`, `42.5%`: digits, optionally a dot and digits, `%`) from 0
    /// to 100, or nil.
    static func percentage(_ text: Substring) -> Double? {
        guard text.last == "%", text.count <= 16 else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let value = Double(number), value >= 0, value <= 100 else { return nil }
        return value
    }

    /// A line number as the spec reads it: an optional leading `-`, digits with at most one
    /// `.` between digits (at most 32 characters: a finite number).
    private static func lineNumber(_ text: Substring) -> Double? {
        guard text.count <= 32 else { return nil }
        let body = text.first == "-" ? text.dropFirst() : text
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

extension Character {
    /// ASCII whitespace as WebVTT counts it: space, tab, line feed, form feed, carriage return.
    var isWebVTTWhitespace: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\u{0C}" || self == "\r" || self == "\r\n"
    }
}
