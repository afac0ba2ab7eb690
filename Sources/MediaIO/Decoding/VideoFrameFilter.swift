/// Something between a track's decoder and what the track shows: it takes the decoded
/// frames in order and gives back the frames to show (a deinterlacer gives two per frame,
/// one per field). `VideoTrackReader` runs it; the filter itself lives where the pixel
/// work does (Render's `Deinterlacer`).
///
/// Timestamps: a filter's frames carry `pts` in the stream's time base multiplied by
/// `timestampMultiplier` (2 for a deinterlacer, whose fields fall half way between
/// frames, which a 1/25 s time base cannot hold).
package protocol VideoFrameFilter: AnyObject {
    /// How many output ticks make one tick of the stream's time base.
    var timestampMultiplier: Int64 { get }
    /// Takes the next decoded frame (its contents may be moved out: the caller reuses the
    /// frame for the next decode), or nil at the end of the stream.
    func push(_ frame: VideoFrame?) throws
    /// Writes the next frame to show into `frame`; false when the filter needs input (or,
    /// after the end was pushed, has nothing left).
    func pull(into frame: VideoFrame) throws -> Bool
    /// Forgets every frame held: the reader has seeked.
    func reset()
}
