/// Measures how loud some tracks of a composition are over time, mixed as the export will
/// mix them (after speed changes and volume ramps). Render's `AudioActivity.Meter` does it
/// for real media; the composition builder asks for it only when a recipe ducks its music
/// under the clips' sound, so building stays a pure function of what it is given.
public protocol SoundLevelMeasuring: Sendable {
    /// The levels of `tracks` of `composition`, mixed through `audioMix`, from time 0.
    /// Throws with a message naming the file when a source cannot be decoded.
    func levels(of composition: Composition, audioMix: AudioMix, tracks: [TrackID]) throws -> SoundLevels
}
