internal import CDropcutFFmpeg
import DropcutTimeline

/// One `AVCodecContext`: allocated for a codec in `init`, freed in `deinit`. Encoders and
/// decoders hold one, so a context whose `avcodec_open2` fails is still freed.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>
    let path: String?
    let streamIndex: Int?

    init(codec: UnsafePointer<AVCodec>, path: String?, stream: Int? = nil) throws(FFmpegError) {
        guard let pointer = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avcodec_alloc_context3", path: path, streamIndex: stream)
        }
        self.pointer = pointer
        self.codec = codec
        self.path = path
        self.streamIndex = stream
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&doomed)
    }

    /// Opens the codec with the parameters set on `pointer`.
    func open() throws(FFmpegError) {
        try check(avcodec_open2(pointer, codec, nil), "avcodec_open2", path: path, stream: streamIndex)
    }

    /// The context's time base as a one-tick time.
    var timeBase: MediaTime {
        MediaTime(value: Int64(pointer.pointee.time_base.num), timescale: pointer.pointee.time_base.den)
    }

    /// The encoder side of the send/receive loop: the next packet, or why there is none.
    func receivePacket(into packet: Packet) throws(FFmpegError) -> EncoderResult {
        let result = avcodec_receive_packet(pointer, packet.packet)
        if result == FFmpegError.again { return .needsInput }
        if result == FFmpegError.endOfFile { return .endOfStream }
        try check(result, "avcodec_receive_packet", path: path, stream: streamIndex)
        return .packet
    }
}
