internal import CDropcutFFmpeg
import DropcutTimeline

/// One stream of a file, decoded in order: the demuxer, the stream's decoder and a reused
/// packet, run in FFmpeg's send_packet / receive_frame loop (doc/examples/demux_decode.c),
/// flushed with a NULL packet at the end of the file. Track readers build on it.
final class StreamDecoder {
    let demuxer: Demuxer
    let streamIndex: Int
    private let decoder: Decoder
    private let packet: Packet
    private var inputEnded = false, outputEnded = false
    /// Packets of this stream sent to the decoder, and those it refused as damaged (or
    /// whose decoding failed): skipped, as ffmpeg does — a video track then holds its last
    /// good frame over the gap. A render fails only past `tolerableDamage`.
    private(set) var packetsSent = 0, damagedPackets = 0
    /// The last damage met, for the message when there is too much of it.
    private var lastDamage: FFmpegError?
    private var flushRefusals = 0
    /// The most damage concealed: a stream with more damaged packets than this fraction of
    /// its packets fails (at the end of the stream, or as soon as three quarters of at
    /// least 32 packets so far were damaged — nothing worth rendering is left). Half: a
    /// phone clip with a burst of bit errors still renders, as ffmpeg renders it, with the
    /// count in a warning; a file that is mostly noise does not pass as a render.
    static let tolerableDamage = 0.5

    /// Opens track `trackID` (stream index + 1) of `path`, which must be a `kind` stream;
    /// with no track id, the file's first `kind` stream. `format` forces the demuxer
    /// (`Demuxer.init(path:formats:format:probeStreams:)`); `strict` makes what the decoder
    /// would conceal an error (`Decoder`): for still pictures.
    init(path: String, trackID: TrackID? = nil, kind: StreamInfo.Kind,
         formats: [String] = Demuxer.containers, format: String? = nil, probeStreams: Bool = true,
         strict: Bool = false, sketch: Bool = false, quantisers: Bool = false) throws(FFmpegError) {
        let demuxer = try Demuxer(path: path, formats: formats, format: format, probeStreams: probeStreams)
        let index = trackID.map { Int($0) - 1 } ?? demuxer.streams.firstIndex { $0.kind == kind } ?? -1
        guard demuxer.streams.indices.contains(index), demuxer.streams[index].kind == kind else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "\(kind) track \(trackID.map { "\($0)" } ?? "(first)")",
                              path: path, streamIndex: index)
        }
        self.demuxer = demuxer
        streamIndex = index
        decoder = try Decoder(demuxer: demuxer, stream: index, strict: strict, sketch: sketch, quantisers: quantisers)
        packet = try Packet()
    }

    var stream: StreamInfo { demuxer.streams[streamIndex] }
    var path: String { demuxer.path }

    /// Decodes the next frame of the stream into `frame`; false once the stream has ended.
    func decodeNext(into frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> Bool {
        while !outputEnded {
            let result: DecoderResult
            do {
                result = try decoder.receive(into: frame)
            } catch {
                try conceal(error)
                continue
            }
            switch result {
            case .frame: return true
            case .endOfStream:
                outputEnded = true
                try checkDamage(atEnd: true)
            case .needsInput: try feed()
            }
        }
        return false
    }

    deinit {
        if damagedPackets > 0 {
            FFmpegLog.warning("\(path): stream \(streamIndex): concealed \(damagedPackets) damaged packet(s) of \(packetsSent)",
                              metadata: ["DROPCUT_DAMAGED_PACKETS": "\(damagedPackets)"])
        }
    }

    /// Sends the end of the stream. With frame threads, a damaged frame still in flight
    /// reports its error here: concealed like the others, and after a few refusals the
    /// stream counts as ended (a decoder that never drains must not loop for ever).
    private func flush() throws(FFmpegError) {
        do {
            _ = try decoder.send(nil)
        } catch {
            try conceal(error)
            flushRefusals += 1
            if flushRefusals > 8 {
                outputEnded = true
                try checkDamage(atEnd: true)
            }
        }
    }

    /// Skips what the decoder could not decode, unless it is the machine's failure or
    /// there is too much of it.
    private func conceal(_ error: FFmpegError) throws(FFmpegError) {
        if error.isSystemFailure { throw error }
        damagedPackets += 1
        lastDamage = error
        try checkDamage(atEnd: false)
    }

    private func checkDamage(atEnd: Bool) throws(FFmpegError) {
        // Audio is never failed for damage: what cannot be decoded is silence (ffmpeg
        // renders such a clip with its audio cut short), and the warning gives the count.
        guard damagedPackets > 0, let lastDamage, stream.kind != .audio else { return }
        let tooMuch = atEnd ? Double(damagedPackets) > Self.tolerableDamage * Double(max(packetsSent, 1))
            : damagedPackets >= 32 && damagedPackets * 4 > packetsSent * 3
        guard tooMuch else { return }
        throw FFmpegError(code: lastDamage.code, function: lastDamage.function, path: path, streamIndex: streamIndex,
                          note: "\(damagedPackets) of \(packetsSent) packets are damaged; more than \(Int(Self.tolerableDamage * 100)) % is not concealed")
    }

    /// Seeks to the last keyframe at or before `time` (stream time, start time included)
    /// and drops whatever the decoder held.
    func seek(to time: MediaTime) throws(FFmpegError) {
        try demuxer.seek(stream: streamIndex, to: time)
        decoder.flush()
        inputEnded = false
        outputEnded = false
        flushRefusals = 0
    }

    /// Sends the next packet of this stream, or the flush once the file has ended.
    private func feed() throws(FFmpegError) {
        if inputEnded { try flush(); return }
        while true {
            let more: Bool
            do {
                more = try demuxer.read(into: packet)
            } catch where (!error.isSystemFailure || error.code == cff_averror(ENOMEM)) && packetsSent > 0 {
                // A damaged container past its first packets: what came before is kept,
                // the rest ends the stream (as ffmpeg ends its input there). ENOMEM too:
                // here it is a damaged size asking for an absurd packet.
                damagedPackets += 1
                lastDamage = error
                more = false
            }
            guard more else {
                inputEnded = true
                try flush()
                return
            }
            if Int(packet.packet.pointee.stream_index) == streamIndex {
                packetsSent += 1
                do {
                    _ = try decoder.send(packet)   // the decoder asked for input, so it has room
                } catch {
                    try conceal(error)
                }
                return
            }
        }
    }
}
