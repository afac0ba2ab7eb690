import MediaIO
import Timeline

/// The decoded frames a composition's video tracks show: one `VideoTrackReader` per
/// composition track, reopened when the track moves on to another file, so a clip's
/// decoder is released once the timeline has passed it.
final class VideoSources {
    private var readers: [TrackID: (source: SourceTrack, reader: VideoTrackReader)] = [:]

    /// The frame of `source` shown at `sourceTime` on composition track `trackID`; it
    /// stays valid until the next request for the same track.
    func frame(track trackID: TrackID, source: SourceTrack, at sourceTime: MediaTime) throws -> VideoFrame {
        let reader: VideoTrackReader
        if let open = readers[trackID], open.source.asset == source.asset, open.source.trackID == source.trackID {
            reader = open.reader
        } else {
            readers[trackID] = nil
            reader = try VideoTrackReader(path: source.asset, trackID: source.trackID)
            readers[trackID] = (source, reader)
        }
        guard let frame = try reader.frame(at: sourceTime) else {
            throw ExportError.noFrames(path: source.asset, trackID: source.trackID)
        }
        return frame
    }
}
