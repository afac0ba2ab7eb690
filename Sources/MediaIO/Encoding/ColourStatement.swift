internal import CDropcutFFmpeg
import DropcutTimeline

/// States a colour in a copied H.264 stream's parameter sets (the SPS's VUI: colour
/// primaries, transfer characteristics, matrix coefficients, video range), as libavcodec's
/// `h264_metadata` bitstream filter rewrites them: the sample entry's sets when it is
/// made, and any set a packet carries in-band. The pictures themselves pass untouched.
/// Owns one `AVBSFContext` (freed in `deinit`).
///
/// The filter hands its output on in Annex B form (start codes); what leaves here is in
/// the form MP4 stores and the source had — an `avcC` and NAL units with
/// `nalLengthSize`-byte lengths — so a copy's packets can sit beside encoded ones whose
/// sample entry dropcut writes itself (`VideoSplicer`).
///
/// What an untagged clip is copied with: players guess BT.709 for HD and BT.601 for SD;
/// the copy says what they guess, in the stream and (from the codec parameters) in the
/// container's `colr` box, as an encoded output says its colour.
final class ColourStatement {
    private var context: UnsafeMutablePointer<AVBSFContext>?
    private let path: String

    private let nalLengthSize: Int

    /// A filter for the length-prefixed H.264 stream described by `parameters` (NAL
    /// lengths of `nalLengthSize` bytes, time base `timeBase`) stating `colour`.
    init(parameters: UnsafePointer<AVCodecParameters>, nalLengthSize: Int, timeBase: MediaTime, colour: ColorDescription,
         path: String) throws(FFmpegError) {
        self.path = path
        self.nalLengthSize = nalLengthSize
        let name = "h264_metadata"
        guard parameters.pointee.codec_id == AV_CODEC_ID_H264, [1, 2, 4].contains(nalLengthSize) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "av_bsf_get_by_name", path: path, note: "no colour filter for this stream")
        }
        guard let filter = av_bsf_get_by_name(name) else {
            throw FFmpegError(code: cff_averror(ENOSYS), function: "av_bsf_get_by_name", path: path, note: "\(name) is not in this FFmpeg")
        }
        var context: UnsafeMutablePointer<AVBSFContext>?
        try check(av_bsf_alloc(filter, &context), "av_bsf_alloc", path: path)
        self.context = context
        guard let context else { throw FFmpegError(code: cff_averror(ENOMEM), function: "av_bsf_alloc", path: path) }
        try check(avcodec_parameters_copy(context.pointee.par_in, parameters), "avcodec_parameters_copy", path: path)
        context.pointee.time_base_in = AVRational(num: Int32(clamping: timeBase.value), den: timeBase.timescale)
        let tags = ColorTags.tags(of: colour)
        for (option, value) in [("colour_primaries", Int64(tags.primaries.rawValue)),
                                ("transfer_characteristics", Int64(tags.transfer.rawValue)),
                                ("matrix_coefficients", Int64(tags.matrix.rawValue)),
                                ("video_full_range_flag", colour.fullRange ? 1 : 0)] {
            try check(av_opt_set_int(context.pointee.priv_data, option, value, 0), "av_opt_set_int", path: path)
        }
        try check(av_bsf_init(context), "av_bsf_init", path: path)
        // The container states what the stream now states.
        let out = context.pointee.par_out!
        out.pointee.color_primaries = tags.primaries
        out.pointee.color_trc = tags.transfer
        out.pointee.color_space = tags.matrix
        out.pointee.color_range = tags.range
        // The sets back in an avcC, with the source's NAL length size.
        let extradata = out.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(out.pointee.extradata_size))) } ?? []
        if extradata.first != 1 {
            guard let configuration = H264DecoderConfiguration(annexB: extradata, nalLengthSize: nalLengthSize),
                  let bytes = configuration.bytes,
                  let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw FFmpegError(code: cff_averror(EINVAL), function: "h264_metadata", path: path, note: "its parameter sets could not be read back")
            }
            buffer.update(from: bytes, count: bytes.count)
            av_freep(&out.pointee.extradata)
            out.pointee.extradata = buffer
            out.pointee.extradata_size = Int32(bytes.count)
        }
    }

    deinit {
        av_bsf_free(&context)
    }

    /// The stream's codec parameters as the filter leaves them (the rewritten sets).
    var outputParameters: UnsafePointer<AVCodecParameters> { UnsafePointer(context!.pointee.par_out) }

    /// Passes `packet` through, in place (one packet in, one out: the filter neither holds
    /// nor splits packets), its NAL units length-prefixed again.
    func filter(_ packet: Packet) throws(FFmpegError) {
        guard let context else { return }
        try check(av_bsf_send_packet(context, packet.packet), "av_bsf_send_packet", path: path)
        try check(av_bsf_receive_packet(context, packet.packet), "av_bsf_receive_packet", path: path)
        try lengthPrefix(packet)
    }

    /// Rewrites an Annex B packet's NAL units with length prefixes, into a new buffer.
    private func lengthPrefix(_ packet: Packet) throws(FFmpegError) {
        let raw = packet.packet
        let size = Int(raw.pointee.size)
        guard let data = raw.pointee.data, size >= 3, data[0] == 0, data[1] == 0, data[2] == 1 || (size >= 4 && data[2] == 0 && data[3] == 1) else {
            return
        }
        // Two walks over the units, measuring then writing: nothing allocated per packet
        // but the new buffer.
        let maximum = nalLengthSize == 4 ? Int(Int32.max) : (1 << (8 * nalLengthSize)) - 1
        var total = 0, tooLong = false
        Self.forEachUnit(data, size: size) { start, end in
            tooLong = tooLong || end - start > maximum
            total += nalLengthSize + end - start
        }
        guard !tooLong else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "h264_metadata", path: path, note: "a NAL unit is too long for its length field")
        }
        let lengthSize = nalLengthSize
        try packet.replacePayload(count: total) { out in
            var offset = 0
            Self.forEachUnit(data, size: size) { start, end in
                let length = end - start
                for k in 0..<lengthSize { out[offset + k] = UInt8(truncatingIfNeeded: length >> (8 * (lengthSize - 1 - k))) }
                offset += lengthSize
                (out.baseAddress! + offset).update(from: data + start, count: length)
                offset += length
            }
        }
    }

    /// Calls `body` with the bounds of each NAL unit of Annex B bytes: from after its start
    /// code to the next start code, less the zero bytes before that; empty units skipped.
    private static func forEachUnit(_ data: UnsafeMutablePointer<UInt8>, size: Int, _ body: (Int, Int) -> Void) {
        var i = 0, start = -1
        while i + 2 < size {
            if data[i] == 0, data[i + 1] == 0, data[i + 2] == 1 {
                if start >= 0 { unit(data, from: start, to: i, body) }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if start >= 0 { unit(data, from: start, to: size, body) }
    }

    private static func unit(_ data: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int, _ body: (Int, Int) -> Void) {
        var end = end
        while end > start, data[end - 1] == 0 { end -= 1 }
        if end > start { body(start, end) }
    }
}
