import DropcutMediaIO
import DropcutTimeline

/// The decoded frames a composition's video tracks show: one `VideoTrackReader` per
/// composition track, reopened when the track moves on to another file, so a clip's
/// decoder is released once the timeline has passed it.
///
/// With `deinterlace`, the sources the composition marks interlaced (`SourceTrack`'s
/// field order, as the probe found it: the stream's statement or, where it makes none, its
/// first frame's flags) are read through a `Deinterlacer`: their frames come at the field
/// rate the composition was planned with. The streams are not asked again here, so the
/// render cannot disagree with the plan.
///
/// Still pictures (`SourceTrack.isStillImage`) are decoded once, when their track reaches
/// them, into a `StillPicture` whose one frame serves every output frame of their span.
final class VideoSources {
    let deinterlace: Bool
    private var readers: [TrackID: (source: SourceTrack, reader: Reader)] = [:]
    /// The number the next still picture decoded gets (`StillIdentity.serial`).
    private var nextStillSerial = 0
    /// Frames decoded by readers already closed, by file.
    private var closedDecodes: [String: Int] = [:]

    /// Frames decoded so far from each movie file, by every reader opened on it (a test's
    /// proof that outputs sharing one decode decode each frame once).
    var framesDecoded: [String: Int] {
        var counts = closedDecodes
        for (_, open) in readers {
            if case let .movie(reader) = open.reader { counts[open.source.asset, default: 0] += reader.framesDecoded }
        }
        return counts
    }

    /// What reads one source: a movie's track reader, or a still picture decoded once
    /// (numbered: the compositor keeps copies of it by that number).
    enum Reader {
        case movie(VideoTrackReader)
        case still(StillPicture, serial: Int)
    }

    init(deinterlace: Bool = true) {
        self.deinterlace = deinterlace
    }

    /// The picture of `source` shown at `sourceTime` on composition track `trackID`: the
    /// covering frame, or with `.blend` sampling that frame and the next to mix; for a
    /// still picture, its one picture composited over `background` (the instruction's
    /// colour shows through its transparent pixels). It stays valid until the next request
    /// for the same track.
    func picture(track trackID: TrackID, source: SourceTrack, at sourceTime: MediaTime,
                 sampling: FrameSampling, background: Color = .black) throws -> LayerPicture {
        let reader: VideoTrackReader
        switch try open(track: trackID, source: source) {
        case let .still(still, serial):
            // The same frame every time: no decode, conversion or allocation per frame.
            return LayerPicture(try still.frame(over: background), still: StillIdentity(serial: serial, background: background))
        case let .movie(movie):
            reader = movie
        }
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

    /// The reader for `source` on track `trackID`, opened if the track shows another file
    /// (a still picture is decoded as it opens).
    @discardableResult
    func open(track trackID: TrackID, source: SourceTrack) throws -> Reader {
        if let open = readers[trackID], open.source.asset == source.asset, open.source.trackID == source.trackID,
           open.source.isStillImage == source.isStillImage {
            return open.reader
        }
        if let closing = readers[trackID], case let .movie(reader) = closing.reader {
            closedDecodes[closing.source.asset, default: 0] += reader.framesDecoded
        }
        readers[trackID] = nil   // release the finished clip's decoder first
        if source.isStillImage {
            let reader = Reader.still(try StillPicture(path: source.asset), serial: nextStillSerial)
            nextStillSerial += 1
            readers[trackID] = (source, reader)
            return reader
        }
        let deinterlace = deinterlace
        let reader = try VideoTrackReader(path: source.asset, trackID: source.trackID) { _ throws(FFmpegError) in
            guard deinterlace, let order = source.fieldOrder else { return nil }
            return try Deinterlacer(fieldOrder: order)
        }
        readers[trackID] = (source, .movie(reader))
        return .movie(reader)
    }
}
