/// Bounds on what a subtitle file may hold, checked while it is parsed, so a hostile or
/// broken file costs bounded memory and time.
public enum SubtitleLimits {
    /// The largest file read: 8 MiB (a feature film's subtitles are about 100 KB).
    public static let maximumFileBytes = 8 << 20
    /// At most this many cues (one every second for more than 27 hours).
    public static let maximumCues = 100_000
    /// A cue's text after markup is removed, in UTF-8 bytes.
    public static let maximumCueBytes = 4096
    /// A cue ends at most 24 hours in (recipes' own limit on times).
    public static let maximumTimeMilliseconds: Int64 = 86_400_000
}
