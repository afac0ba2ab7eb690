import Timeline

/// A subtitle file as read: each cue as the file wrote it (for `dropcut probe`), the
/// caption cues made of them (markup read, cues that show nothing left out), and what was
/// skipped on the way, once per kind.
public struct SubtitleDocument: Sendable, Hashable {
    public var format: SubtitleFormat
    /// Every cue the format's parsing rules find, in file order — also those that show
    /// nothing (an end not after the start, no text), which `captions` leaves out.
    public var cues: [SubtitleCueRecord]
    /// The cues to draw, in file order.
    public var captions: [CaptionCue]
    public var warnings: [SubtitleWarning]
}

/// One cue as the file wrote it: times in the file's own time (milliseconds), the text
/// with its markup, lines joined with `\n`.
public struct SubtitleCueRecord: Sendable, Hashable {
    /// The line of its timing line (counting from 1).
    public var line: Int
    /// WebVTT's cue identifier, SRT's cue number; empty when it has none.
    public var identifier: String
    public var start: Int64
    public var end: Int64
    public var text: String
    /// WebVTT cue settings, as the spec's parsing rules kept them.
    public var settings: WebVTTCueSettings

    public init(line: Int, identifier: String, start: Int64, end: Int64, text: String, settings: WebVTTCueSettings = WebVTTCueSettings()) {
        self.line = line
        self.identifier = identifier
        self.start = start
        self.end = end
        self.text = text
        self.settings = settings
    }
}
