import Recipe
import Render

extension BuiltComposition {
    /// Ducks the music under the clips' own sound — measured by `AudioActivity` after
    /// speed changes and clip volumes, or the recipe's manual windows. What `plan` lists
    /// is what `render` mixes.
    mutating func duckMusicUnderClips() throws {
        guard let music, let duck = music.duck else { return }
        let activity = try music.manualWindows
            ?? AudioActivity(composition: composition, audioMix: audioMix, tracks: clipAudioTrackIDs).active(above: duck.threshold.decibels)
        applyDucking(activity: activity)
    }
}
