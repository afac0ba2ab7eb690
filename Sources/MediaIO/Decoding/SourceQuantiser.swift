internal import CDropcutFFmpeg
import DropcutTimeline

/// How finely a stretch of a video was quantised: the mean of its frames' quantisers as
/// the decoder reports them (H.264: each picture's slice QP, 0...51). What pieces encoded
/// beside a source's own pictures take their rate control from, so their quality is the
/// source's, not a guessed bit rate's.
package enum SourceQuantiser {
    /// The mean quantiser of up to `frames` frames of track `trackID` of `path` from
    /// source time `start` (from the file's origin); nil when the decoder reports none.
    package static func mean(path: String, trackID: TrackID, from start: MediaTime, frames: Int) throws(FFmpegError) -> Double? {
        let source = try StreamDecoder(path: path, trackID: trackID, kind: .video, quantisers: true)
        let origin = source.demuxer.origin(of: source.stream)
        if start > .zero { try source.seek(to: origin + start) }
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_frame_alloc", path: path)
        }
        var doomed: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&doomed) }
        var total = 0.0, count = 0, decoded = 0
        while decoded < frames, try source.decodeNext(into: frame) {
            decoded += 1
            guard let side = av_frame_get_side_data(frame, AV_FRAME_DATA_VIDEO_ENC_PARAMS), let data = side.pointee.data,
                  Int(side.pointee.size) >= MemoryLayout<AVVideoEncParams>.size else { continue }
            let qp = data.withMemoryRebound(to: AVVideoEncParams.self, capacity: 1) { $0.pointee.qp }
            // A hostile stream's value is only averaged, and only in H.264's range.
            guard (0...63).contains(qp) else { continue }
            total += Double(qp)
            count += 1
        }
        return count > 0 ? total / Double(count) : nil
    }
}
