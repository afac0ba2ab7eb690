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
        guard let frame = try open(track: trackID, source: source).frame(at: sourceTime) else {
            throw ExportError.noFrames(path: source.asset, trackID: source.trackID)
        }
        return frame
    }

    /// The reader for `source` on track `trackID`, opened if the track shows another file.
    @discardableResult
    func open(track trackID: TrackID, source: SourceTrack) throws -> VideoTrackReader {
        if let open = readers[trackID], open.source.asset == source.asset, open.source.trackID == source.trackID {
            return open.reader
        }
        readers[trackID] = nil   // release the finished clip's decoder first
        let reader = try VideoTrackReader(path: source.asset, trackID: source.trackID)
        readers[trackID] = (source, reader)
        return reader
    }
}
