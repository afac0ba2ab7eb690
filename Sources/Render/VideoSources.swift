import MediaIO
import Timeline

/// The decoded frames a composition's video tracks show: one `VideoTrackReader` per
/// composition track, reopened when the track moves on to another file, so a clip's
/// decoder is released once the timeline has passed it.
///
/// With `deinterlace`, the sources the composition marks interlaced (`SourceTrack`'s
/// field order, as the probe found it: the stream's statement or, where it makes none, its
/// first frame's flags) are read through a `Deinterlacer`: their frames come at the field
/// rate the composition was planned with. The streams are not asked again here, so the
/// render cannot disagree with the plan.
final class VideoSources {
    let deinterlace: Bool
    private var readers: [TrackID: (source: SourceTrack, reader: VideoTrackReader)] = [:]

    init(deinterlace: Bool = true) {
        self.deinterlace = deinterlace
    }

    /// The picture of `source` shown at `sourceTime` on composition track `trackID`: the
    /// covering frame, or with `.blend` sampling that frame and the next to mix. It stays
    /// valid until the next request for the same track.
    func picture(track trackID: TrackID, source: SourceTrack, at sourceTime: MediaTime,
                 sampling: FrameSampling) throws -> LayerPicture {
        let reader = try open(track: trackID, source: source)
        var picture: LayerPicture?
        switch sampling {
        case .repeat:
            picture = try reader.frame(at: sourceTime).map { LayerPicture($0) }
        case .blend:
            picture = try reader.frames(around: sourceTime).map { LayerPicture($0.frame, next: $0.next, weight: $0.weight) }
        }
        if var picture {
            picture.pixelAspectRatio = reader.pixelAspectRatio
            return picture
        }
        throw ExportError.noFrames(path: source.asset, trackID: source.trackID)
    }

    /// The reader for `source` on track `trackID`, opened if the track shows another file.
    @discardableResult
    func open(track trackID: TrackID, source: SourceTrack) throws -> VideoTrackReader {
        if let open = readers[trackID], open.source.asset == source.asset, open.source.trackID == source.trackID {
            return open.reader
        }
        readers[trackID] = nil   // release the finished clip's decoder first
        let deinterlace = deinterlace
        let reader = try VideoTrackReader(path: source.asset, trackID: source.trackID) { _ throws(FFmpegError) in
            guard deinterlace, let order = source.fieldOrder else { return nil }
            return try Deinterlacer(fieldOrder: order)
        }
        readers[trackID] = (source, reader)
        return reader
    }
}
