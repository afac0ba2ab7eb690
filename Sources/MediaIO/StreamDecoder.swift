internal import CFFmpeg
import Timeline

/// One stream of a file, decoded in order: the demuxer, the stream's decoder and a reused
/// packet, run in FFmpeg's send_packet / receive_frame loop (doc/examples/demux_decode.c),
/// flushed with a NULL packet at the end of the file. Track readers build on it.
final class StreamDecoder {
    let demuxer: Demuxer
    let streamIndex: Int
    private let decoder: Decoder
    private let packet: Packet
    private var inputEnded = false, outputEnded = false

    /// Opens track `trackID` (stream index + 1) of `path`, which must be a `kind` stream;
    /// with no track id, the file's first `kind` stream.
    init(path: String, trackID: TrackID? = nil, kind: StreamInfo.Kind,
         formats: [String] = Demuxer.containers) throws(FFmpegError) {
        let demuxer = try Demuxer(path: path, formats: formats)
        let index = trackID.map { Int($0) - 1 } ?? demuxer.streams.firstIndex { $0.kind == kind } ?? -1
        guard demuxer.streams.indices.contains(index), demuxer.streams[index].kind == kind else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "\(kind) track \(trackID.map { "\($0)" } ?? "(first)")",
                              path: path, streamIndex: index)
        }
        self.demuxer = demuxer
        streamIndex = index
        decoder = try Decoder(demuxer: demuxer, stream: index)
        packet = try Packet()
    }

    var stream: StreamInfo { demuxer.streams[streamIndex] }
    var path: String { demuxer.path }

    /// Decodes the next frame of the stream into `frame`; false once the stream has ended.
    func decodeNext(into frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> Bool {
        while !outputEnded {
            switch try decoder.receive(into: frame) {
            case .frame: return true
            case .endOfStream: outputEnded = true
            case .needsInput: try feed()
            }
        }
        return false
    }

    /// Seeks to the last keyframe at or before `time` (stream time, start time included)
    /// and drops whatever the decoder held.
    func seek(to time: MediaTime) throws(FFmpegError) {
        try demuxer.seek(stream: streamIndex, to: time)
        decoder.flush()
        inputEnded = false
        outputEnded = false
    }

    /// Sends the next packet of this stream, or the flush once the file has ended.
    private func feed() throws(FFmpegError) {
        if inputEnded { _ = try decoder.send(nil); return }
        while true {
            guard try demuxer.read(into: packet) else {
                inputEnded = true
                _ = try decoder.send(nil)
                return
            }
            if Int(packet.packet.pointee.stream_index) == streamIndex {
                _ = try decoder.send(packet)   // the decoder asked for input, so it has room
                return
            }
        }
    }
}
