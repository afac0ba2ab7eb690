import Timeline

/// The music bed of a built composition: the tracks its passes alternate between (two
/// when it loops, so each loop point can crossfade), their volume before ducking, and —
/// once `BuiltComposition.applyDucking` has run — what the ducking made of the clips'
/// sound.
public struct MusicBed: Sendable, Hashable {
    /// The composition audio tracks of the bed, in pass order.
    public var trackIDs: [TrackID]
    /// Each track's volume without ducking: gain × fades × loop crossfades.
    public var baseVolumes: [TrackID: Ramp<Double>]
    /// The recipe's ducking, if any.
    public var duck: Recipe.Duck?
    /// The output's length (the bed stops with the video).
    public var duration: MediaTime
    /// After ducking: the stretches of the clips' sound the music ducked under (bridged).
    public var duckedRanges: [TimeRange] = []
    /// After ducking: the factor the music was multiplied by.
    public var ducking: Ramp<Double>?

    /// The manual windows of `duck: { windows: [...] }` in output time, or nil when the
    /// ducking follows the clips' sound.
    public var manualWindows: [TimeRange]? {
        duck?.windows.map { windows in
            windows.compactMap { window in
                let start = window.start.resolved(end: duration), end = MediaTime.min(window.end.resolved(end: duration), duration)
                return start < end ? TimeRange(start: start, end: end) : nil
            }
        }
    }
}

extension BuiltComposition {
    /// Ducks the music under `activity` (the clips' sound above the threshold, or the
    /// manual windows): the music tracks' volumes become their base volumes times the
    /// `Ducking` envelope. Does nothing without music or `duck`.
    public mutating func applyDucking(activity: [TimeRange]) {
        guard var music, let duck = music.duck else { return }
        let ducking = Ducking(depth: duck.depth.linear, attack: duck.attack, release: duck.release, hold: duck.hold)
        let factor = ducking.envelope(activity: activity, until: music.duration)
        music.duckedRanges = ducking.bridged(activity)
        music.ducking = factor
        for trackID in music.trackIDs {
            let base = music.baseVolumes[trackID] ?? Ramp(defaultValue: 1)
            audioMix.edit(track: trackID) { $0.volume = base.multiplied(by: factor, until: music.duration) }
        }
        self.music = music
    }
}
