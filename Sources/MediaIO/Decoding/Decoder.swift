internal import CDropcutFFmpeg
import DropcutTimeline

/// A decoder for one stream of a `Demuxer`, holding its `CodecContext` (opened in
/// `init`). Threaded: frame and slice threads, as many as FFmpeg picks for the machine —
/// or slice threads only, for a look at the first frames (frame threads hold each frame
/// back until as many packets as there are threads have been sent).
final class Decoder {
    private let codecContext: CodecContext
    private var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    let path: String
    let streamIndex: Int

    /// `strict`: what the decoder would conceal is an error instead (`AV_EF_EXPLODE`): for
    /// still pictures, where a JPEG cut short otherwise decodes "fine" with its missing
    /// rows filled in green.
    /// `sketch`: decode fast and rough, for analysis — no loop filter (every picture is
    /// still decoded: a cut must be found on its frame).
    /// `quantisers`: each frame carries the quantisers it was coded with
    /// (`AV_FRAME_DATA_VIDEO_ENC_PARAMS`).
    init(demuxer: Demuxer, stream index: Int, frameThreads: Bool = true, strict: Bool = false, sketch: Bool = false,
         quantisers: Bool = false) throws(FFmpegError) {
        path = demuxer.path
        streamIndex = index
        guard let parameters = demuxer.codecParameters(ofStream: index) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avformat stream", path: demuxer.path, streamIndex: index)
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            throw FFmpegError(code: FFmpegError.decoderNotFound, function: "avcodec_find_decoder", path: demuxer.path, streamIndex: index,
                              note: "uses the \(name) codec, which this build of FFmpeg cannot decode")
        }
        codecContext = try CodecContext(codec: codec, path: demuxer.path, stream: index)
        let context = codecContext.pointer
        try check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context", path: path, stream: index)
        let timeBase = demuxer.timeBase(ofStream: index)
        context.pointee.pkt_timebase = AVRational(num: Int32(clamping: timeBase.value), den: timeBase.timescale)
        context.pointee.thread_count = 0
        context.pointee.thread_type = frameThreads ? FF_THREAD_FRAME | FF_THREAD_SLICE : FF_THREAD_SLICE
        if strict { context.pointee.err_recognition |= AV_EF_EXPLODE }
        if quantisers { context.pointee.export_side_data |= Int32(AV_CODEC_EXPORT_DATA_VIDEO_ENC_PARAMS) }
        if sketch {
            context.pointee.skip_loop_filter = AVDISCARD_ALL
            context.pointee.skip_frame = AVDISCARD_NONREF
            context.pointee.flags2 |= AV_CODEC_FLAG2_FAST
        }
        try codecContext.open()
    }

    /// Sends one packet, or nil to flush. Returns false when the decoder wants its output
    /// read first (EAGAIN): receive, then send the same packet again.
    func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let result = avcodec_send_packet(context, packet?.packet)
        if result == FFmpegError.again { return false }
        if result == FFmpegError.endOfFile { return true }   // already flushed
        try check(result, "avcodec_send_packet", path: path, stream: streamIndex)
        return true
    }

    /// Receives the next decoded frame into `frame` (its previous contents released).
    func receive(into frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> DecoderResult {
        let result = avcodec_receive_frame(context, frame)
        if result == FFmpegError.again { return .needsInput }
        if result == FFmpegError.endOfFile { return .endOfStream }
        try check(result, "avcodec_receive_frame", path: path, stream: streamIndex)
        return .frame
    }

    /// Decodes one subtitle packet: its rectangles' texts in ASS form (what FFmpeg's text
    /// subtitle decoders produce) and the display times the packet gives, in milliseconds
    /// from its presentation time; nil when the packet makes no subtitle.
    func decodeSubtitle(_ packet: Packet) throws(FFmpegError) -> (texts: [String], start: UInt32, end: UInt32)? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        try check(avcodec_decode_subtitle2(context, &subtitle, &got, packet.packet), "avcodec_decode_subtitle2", path: path, stream: streamIndex)
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        var texts: [String] = []
        for index in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[index], rect.pointee.type == SUBTITLE_ASS, let ass = rect.pointee.ass else { continue }
            texts.append(String(decoding: UnsafeRawBufferPointer(start: ass, count: strnlen(ass, 65536)).bindMemory(to: UInt8.self), as: UTF8.self))
        }
        return (texts, subtitle.start_display_time, subtitle.end_display_time)
    }

    /// Drops buffered frames after a seek.
    func flush() {
        avcodec_flush_buffers(context)
    }
}
