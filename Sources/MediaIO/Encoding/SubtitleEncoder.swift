internal import CDropcutFFmpeg
import DropcutTimeline

/// A `mov_text` (3GPP timed text) encoder: the soft subtitle stream of MP4 and MOV files,
/// which players show or hide. Holds one `CodecContext` (freed with the encoder), in a
/// 1/1000 s time base. Cues go in as plain text; each becomes one packet.
package final class SubtitleEncoder {
    /// One tick: a millisecond.
    package let timeBase = MediaTime(value: 1, timescale: 1000)

    private let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    /// The encoder's output buffer, kept from cue to cue.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// The ASS header FFmpeg's text subtitle encoders parse their style from (the
    /// `ff_ass_subtitle_header_default` FFmpeg's own tools use: one Default style).
    static let assHeader = """
        [Script Info]\r
        ScriptType: v4.00+\r
        PlayResX: 384\r
        PlayResY: 288\r
        \r
        [V4+ Styles]\r
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\r
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1\r
        \r
        [Events]\r
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\r

        """

    package init() throws(FFmpegError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder", path: nil, note: "mov_text")
        }
        let codecContext = try CodecContext(codec: codec, path: nil)
        let c = codecContext.pointer
        c.pointee.time_base = AVRational(num: 1, den: 1000)
        // Freed by avcodec_free_context with the context.
        let header = Array(Self.assHeader.utf8)
        guard let copy = av_malloc(header.count + 1)?.assumingMemoryBound(to: UInt8.self) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_malloc", path: nil)
        }
        copy.initialize(from: header, count: header.count)
        copy[header.count] = 0
        c.pointee.subtitle_header = copy
        c.pointee.subtitle_header_size = Int32(header.count)
        try codecContext.open()
        self.codecContext = codecContext
    }

    /// Encodes `cue` into `packet`: pts its start, duration its length, in milliseconds.
    /// A cue before 0 or not lasting is refused (EINVAL).
    package func encode(_ cue: CaptionCue, into packet: Packet) throws(FFmpegError) {
        guard let start = cue.timeRange.start.ticks(in: 1000), let end = cue.timeRange.end.ticks(in: 1000), start >= 0, end > start else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_encode_subtitle", path: nil)
        }
        // ASS dialogue: ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text,
        // with ASS's own escapes (line breaks as \N; braces and backslashes would start
        // override tags).
        var text = ""
        for c in cue.text {
            switch c {
            case "\n": text += "\\N"
            case "\\": text += "\\\u{2060}"   // a word joiner stops "\N" being read in text
            case "{": text += "("   // a brace would open an override block and hide the words
            case "}": text += ")"
            default: text.append(c)
            }
        }
        let dialogue = "0,0,Default,,0,0,0,," + text
        let context = self.context
        let capacity = Int32(buffer.count)
        let size: Int32 = buffer.withUnsafeMutableBufferPointer { output in
            dialogue.withCString { ass in
                var rect = AVSubtitleRect()
                rect.type = SUBTITLE_ASS
                rect.ass = UnsafeMutablePointer(mutating: ass)
                return withUnsafeMutablePointer(to: &rect) { rectPointer in
                    var rects: UnsafeMutablePointer<AVSubtitleRect>? = rectPointer
                    return withUnsafeMutablePointer(to: &rects) { rectsPointer in
                        var subtitle = AVSubtitle()
                        subtitle.num_rects = 1
                        subtitle.rects = rectsPointer
                        subtitle.end_display_time = UInt32(clamping: end - start)
                        return avcodec_encode_subtitle(context, output.baseAddress, capacity, &subtitle)
                    }
                }
            }
        }
        try check(size, "avcodec_encode_subtitle", path: nil)
        packet.unref()
        try check(av_new_packet(packet.packet, size), "av_new_packet", path: nil)
        buffer.withUnsafeBufferPointer { packet.packet.pointee.data.update(from: $0.baseAddress!, count: Int(size)) }
        packet.packet.pointee.pts = start
        packet.packet.pointee.dts = start
        packet.packet.pointee.duration = end - start
    }
}
