import DropcutTimeline

/// One `audio:` item as the builder placed it: its composition track and range in output
/// time, so `plan` can list it and the music can duck under it.
public struct AudioItemPlacement: Sendable, Hashable {
    /// The composition audio track carrying the item.
    public var trackID: TrackID
    /// Where it sounds, in output time (cut at the output's end).
    public var range: TimeRange
    public var mode: Recipe.AudioItem.Mode
    public var pitch: Double
    /// Whether the music bed ducks under it.
    public var ducksMusic: Bool
    /// The file, as the composition's source track names it.
    public var source: String
}
