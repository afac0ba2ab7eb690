import Recipe
import Render

extension BuiltComposition {
    /// Ducks the music under the clips' own sound — measured by `AudioActivity` after
    /// speed changes and clip volumes, or the recipe's manual windows. What `plan` lists
    /// is what `render` mixes.
    /// Returns the measured levels (nil without analysis), for `plan --svg` to draw.
    @discardableResult
    public mutating func duckMusicUnderClips() throws -> AudioActivity? {
        guard let music, let duck = music.duck else { return nil }
        if let windows = music.manualWindows {
            applyDucking(activity: windows)
            return nil
        }
        let measured = try AudioActivity(composition: composition, audioMix: audioMix, tracks: clipAudioTrackIDs)
        applyDucking(activity: measured.active(above: duck.threshold.decibels))
        return measured
    }
}
