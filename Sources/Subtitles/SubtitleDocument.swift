import DropcutTimeline

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

    /// The document of `records` read from `path`: each record's markup read into a caption
    /// cue, those that show nothing (an end not after the start, no text) left out — the
    /// first said in `warnings`, with what the parser said before.
    init(format: SubtitleFormat, cues records: [SubtitleCueRecord], path: String, warnings: SubtitleWarnings) throws(SubtitleError) {
        var warnings = warnings
        var captions: [CaptionCue] = []
        captions.reserveCapacity(records.count)
        for record in records {
            // A cue that ends where it starts shows nothing: skipped, as players do (ffmpeg
            // reads such files whole; refusing one lost every caption).
            guard record.end > record.start else {
                warnings.add(.backwards, line: record.line, "the cue ends at or before its start: not shown")
                continue
            }
            let markup = try CueMarkup.parse(record.text, firstLine: record.line + 1, flavour: format == .webVTT ? .webVTT : .subRip,
                                             cue: record.start...record.end, path: path, warnings: &warnings)
            guard !markup.text.allSatisfy(\.isWhitespace) else { continue }
            captions.append(CaptionCue(timeRange: TimeRange(start: SubtitleTimestamp.time(record.start), end: SubtitleTimestamp.time(record.end)),
                                       text: markup.text, words: markup.words, placement: record.settings.placement, styles: markup.styles))
        }
        self.format = format
        self.cues = records
        self.captions = captions
        self.warnings = warnings.list
    }
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
