import DropcutTimeline

/// The music bed of a built composition: the tracks its passes alternate between (two
/// when it loops, so each loop point can crossfade), their volume before ducking, and
/// what the ducking made of the clips' sound.
package struct MusicBed: Sendable, Hashable {
    /// The composition audio tracks of the bed, in pass order.
    package var trackIDs: [TrackID]
    /// Each track's volume without ducking: gain × fades × loop crossfades.
    package var baseVolumes: [TrackID: Ramp<Double>]
    /// The recipe's ducking, if any.
    package var duck: Recipe.Duck?
    /// The output's length (the bed stops with the video).
    package var duration: MediaTime
    /// The stretches of the clips' sound the music ducked under (bridged).
    package var duckedRanges: [TimeRange] = []
    /// The factor the music was multiplied by.
    package var ducking: Ramp<Double>?

    /// The manual windows of `duck: { windows: [...] }` in output time, or nil when the
    /// ducking follows the clips' sound.
    package var manualWindows: [TimeRange]? {
        duck?.windows.map { windows in
            windows.compactMap { window in
                let start = window.start.resolved(end: duration), end = MediaTime.min(window.end.resolved(end: duration), duration)
                return start < end ? TimeRange(start: start, end: end) : nil
            }
        }
    }
}
