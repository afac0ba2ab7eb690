import DropcutTimeline

/// One `audio:` item as the builder placed it: its composition track and range in output
/// time, so `plan` can list it and the music can duck under it.
package struct AudioItemPlacement: Sendable, Hashable {
    /// The composition audio track carrying the item.
    package var trackID: TrackID
    /// Where it sounds, in output time (cut at the output's end).
    package var range: TimeRange
    package var mode: Recipe.AudioItem.Mode
    package var pitch: Double
    /// Whether the music bed ducks under it.
    package var ducksMusic: Bool
    /// The file, as the composition's source track names it.
    package var source: String
}
