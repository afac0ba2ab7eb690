import DropcutTimeline

/// The music bed of a built composition: the tracks its passes alternate between (two
/// when it loops, so each loop point can crossfade), their volume before ducking, and
/// what the ducking made of the clips' sound.
public struct MusicBed: Sendable, Hashable {
    /// The composition audio tracks of the bed, in pass order.
    public var trackIDs: [TrackID]
    /// Each track's volume without ducking: gain × fades × loop crossfades.
    public var baseVolumes: [TrackID: Ramp<Double>]
    /// The recipe's ducking, if any.
    public var duck: Recipe.Duck?
    /// The output's length (the bed stops with the video).
    public var duration: MediaTime
    /// The stretches of the clips' sound the music ducked under (bridged).
    public var duckedRanges: [TimeRange] = []
    /// The factor the music was multiplied by.
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
