internal import CDropcutFFmpeg
import Foundation
import DropcutTimeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An MP4 or MOV file being written, owning one output `AVFormatContext` and its open
/// file (`avio_open`) from `init` until `finish()`, `abandon()` or `deinit`.
///
/// Order of use, as in FFmpeg's doc/examples/mux.c: `addStream(for:)` per encoder (open
/// the encoders with `globalHeader: needsGlobalHeader`), `writeHeader()`, then packets
/// (`drain(_:into:)` after every `send`, and once more after `send(nil)`), then
/// `finish()`. A cancelled export calls `abandon()`, which deletes the partial file.
/// Packets are rescaled from the encoder's time base to the stream's and interleaved by
/// FFmpeg, so video and audio may be drained in any order.
package final class Muxer {
    /// The output file.
    package let path: String
    /// True when the container wants codec headers in the stream parameters rather than
    /// in-band (MP4/MOV always do): pass it to the encoders' `globalHeader`.
    package let needsGlobalHeader: Bool

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var state = State.configuring
    /// The one packet `drain` receives into, reused for every packet of every stream.
    private let scratch: Packet
    /// Whether the file at `path` is ours to delete: from `avio_open` until `abandon()`
    /// removes it or `finish()` completes it.
    private var ownsFile = false
    /// What `writeHeader` asks of the muxer: a file's faststart, or an HLS variant's
    /// segmenting.
    private let headerOptions: [(key: String, value: String)]

    private enum State {
        /// Streams may be added; nothing written yet.
        case configuring
        /// The header is written; packets may follow.
        case writing
        /// The trailer is written and the file closed: the file is complete.
        case finished
        /// Closed without a complete file (abandoned, or finishing failed).
        case closed
    }

    /// Creates (or truncates) `path` for writing. The container follows the extension,
    /// case-insensitively: `.mp4` and `.m4v` are MP4, `.mov` is QuickTime. Any other
    /// extension throws "Muxer not found"; a file that cannot be created throws the
    /// system's reason from `avio_open`. Both name `path`.
    package init(path: String) throws(FFmpegError) {
        self.path = path
        guard let formatName = Self.formatName(forExtensionOf: path) else {
            throw FFmpegError(code: FFmpegError.muxerNotFound, function: "av_guess_format", path: path)
        }
        scratch = try Packet()
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, path), "avformat_alloc_output_context2",
                  path: path)
        guard let context else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_alloc_output_context2", path: path)
        }
        do {
            try check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open", path: path)
        } catch {
            avformat_free_context(context)
            throw error
        }
        self.context = context
        self.ownsFile = true
        self.needsGlobalHeader = context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        headerOptions = [("movflags", "+faststart")]
    }

    /// One rendition of an HLS ladder (libavformat's `hls` muxer): the media playlist at
    /// `playlist`, fMP4/CMAF segments `seg-00000.m4s`… and their `init.mp4` beside it, in
    /// the playlist's folder, which must exist. A segment is cut at the first keyframe at
    /// or after each multiple of `segmentDuration` seconds (the encoders place them, see
    /// `VideoEncoderSettings.keyframeInterval`); an audio-only rendition is cut at the
    /// first packet past it. The playlist is a VOD one, written whole at `finish()`.
    /// `abandon()` leaves the files: the caller owns the folder and removes it.
    package init(hlsPlaylist playlist: String, segmentDuration: Double) throws(FFmpegError) {
        self.path = playlist
        guard segmentDuration.isFinite, segmentDuration > 0 else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avformat_alloc_output_context2", path: playlist)
        }
        scratch = try Packet()
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, "hls", playlist), "avformat_alloc_output_context2", path: playlist)
        guard let context else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_alloc_output_context2", path: playlist)
        }
        // The hls muxer opens its playlist and segments itself (AVFMT_NOFILE).
        self.context = context
        self.needsGlobalHeader = context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
        let folder = (playlist as NSString).deletingLastPathComponent
        headerOptions = [
            ("hls_segment_type", "fmp4"),
            ("hls_fmp4_init_filename", "init.mp4"),
            ("hls_segment_filename", (folder as NSString).appendingPathComponent("seg-%05d.m4s")),
            ("hls_time", String(segmentDuration)),
            ("hls_playlist_type", "vod"),
            ("hls_list_size", "0"),
            ("hls_flags", "independent_segments"),
        ]
    }

    deinit {
        if state == .writing {
            assertionFailure("Muxer for \(path) deallocated without finish() or abandon()")
        }
        release()
    }

    /// The libavformat muxer for a file name's extension (`ContainerFormat` decides which
    /// containers dropcut writes; its raw values are FFmpeg's muxer names), or nil.
    private static func formatName(forExtensionOf path: String) -> String? {
        ContainerFormat(path: path)?.rawValue
    }

    // MARK: Streams

    /// Adds a video stream carrying `encoder`'s output; returns its stream index.
    /// HEVC is tagged `hvc1` (parameter sets in the sample description), the tag Apple's
    /// players require; FFmpeg's default `hev1` does not play there.
    @discardableResult
    package func addStream(for encoder: VideoEncoder) throws(FFmpegError) -> Int {
        let stream = try addStream(copying: encoder.context)
        stream.pointee.avg_frame_rate = encoder.context.pointee.framerate
        if encoder.settings.codec == .hevc {
            stream.pointee.codecpar.pointee.codec_tag = Self.tag("h", "v", "c", "1")
        }
        return Int(stream.pointee.index)
    }

    /// Adds a stream carrying the packets of stream `index` of `demuxer` as they are
    /// (`StreamCopier`): its codec parameters copied, the tag left for the container to
    /// choose (HEVC: `hvc1`, as for encoded HEVC); returns its stream index.
    /// `parameters`, when given, replace the source stream's (a filter's output).
    func addStream(copying demuxer: Demuxer, stream index: Int,
                   parameters: UnsafePointer<AVCodecParameters>? = nil) throws(FFmpegError) -> Int {
        guard let context, state == .configuring, let source = demuxer.stream(at: index) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avformat_new_stream", path: path)
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_new_stream", path: path)
        }
        let output = Int(stream.pointee.index)
        try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters ?? UnsafePointer(source.pointee.codecpar)), "avcodec_parameters_copy",
                  path: path, stream: output)
        stream.pointee.codecpar.pointee.codec_tag = 0
        if stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC {
            stream.pointee.codecpar.pointee.codec_tag = Self.tag("h", "v", "c", "1")
        }
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = source.pointee.r_frame_rate
        stream.pointee.disposition = source.pointee.disposition & AV_DISPOSITION_DEFAULT
        // The display matrix goes with the packets (AVFoundation's passthrough keeps a
        // track's preferredTransform): a phone's sideways-stored clip, copied, is still
        // shown upright.
        var size = 0
        if let matrix = av_stream_get_side_data(source, AV_PKT_DATA_DISPLAYMATRIX, &size), size == 36,
           let copy = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size) {
            copy.update(from: matrix, count: size)
        }
        // So does the container's pixel aspect (MOV `pasp`), where it states one: players
        // take it over the codec's (a Samsung slow-motion clip says 1:1 there and 27:64 in
        // its SPS), and a copy stating the codec's would be shown squeezed.
        let aspect = source.pointee.sample_aspect_ratio
        if aspect.num > 0, aspect.den > 0 {
            stream.pointee.codecpar.pointee.sample_aspect_ratio = aspect
            stream.pointee.sample_aspect_ratio = aspect
        }
        return output
    }

    /// Times stream `stream` (a copy's) in ticks of `tick` and at `frameDuration` a frame,
    /// before the header is written: a splice whose pictures are laid on a frame grid the
    /// source's clock cannot count (29.97 fps in 1/600 s ticks) is written in one that can.
    package func retime(stream: Int, tick: MediaTime, frameDuration: MediaTime) throws(FFmpegError) {
        guard let context, state == .configuring, stream >= 0, stream < Int(context.pointee.nb_streams),
              tick.isNumeric, tick.value > 0, let num = Int32(exactly: tick.value),
              frameDuration.isNumeric, frameDuration.value > 0, let frame = Int32(exactly: frameDuration.value) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "time_base", path: path, streamIndex: stream)
        }
        let target = context.pointee.streams[stream]!
        target.pointee.time_base = AVRational(num: num, den: tick.timescale)
        target.pointee.avg_frame_rate = AVRational(num: frameDuration.timescale, den: frame)
        target.pointee.r_frame_rate = target.pointee.avg_frame_rate
    }

    /// Stream `stream`'s codec extradata (an H.264 `avcC`), as it will be written.
    package func extradata(ofStream stream: Int) -> [UInt8] {
        guard let context, stream >= 0, stream < Int(context.pointee.nb_streams),
              let parameters = context.pointee.streams[stream]?.pointee.codecpar,
              let bytes = parameters.pointee.extradata, parameters.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(parameters.pointee.extradata_size)))
    }

    /// Stream `stream`'s colour code points as its codec parameters state them (nil: no
    /// such stream).
    package func colourCodePoints(ofStream stream: Int) -> ColourCodePoints? {
        guard let context, stream >= 0, stream < Int(context.pointee.nb_streams),
              let parameters = context.pointee.streams[stream]?.pointee.codecpar else { return nil }
        let p = parameters.pointee
        return ColourCodePoints(primaries: Int(p.color_primaries.rawValue), transfer: Int(p.color_trc.rawValue),
                                matrix: Int(p.color_space.rawValue),
                                fullRange: p.color_range == AVCOL_RANGE_JPEG || PixelFormat(rawValue: AVPixelFormat(p.format)).isFullRangeYUV)
    }

    /// Replaces stream `stream`'s codec extradata (an H.264 `avcC` listing more parameter
    /// sets than its source's) before the header is written.
    package func replaceExtradata(ofStream stream: Int, with bytes: [UInt8]) throws(FFmpegError) {
        guard let context, state == .configuring, stream >= 0, stream < Int(context.pointee.nb_streams), !bytes.isEmpty,
              let size = Int32(exactly: bytes.count) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "extradata", path: path, streamIndex: stream)
        }
        let parameters = context.pointee.streams[stream]!.pointee.codecpar!
        guard let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_mallocz", path: path, streamIndex: stream)
        }
        buffer.update(from: bytes, count: bytes.count)
        av_freep(&parameters.pointee.extradata)
        parameters.pointee.extradata = buffer
        parameters.pointee.extradata_size = size
    }

    /// Adds an audio stream carrying `encoder`'s output; returns its stream index.
    @discardableResult
    package func addStream(for encoder: AudioEncoder) throws(FFmpegError) -> Int {
        Int(try addStream(copying: encoder.context).pointee.index)
    }

    /// Adds a subtitle stream carrying `encoder`'s `mov_text` packets; returns its index.
    @discardableResult
    package func addStream(for encoder: SubtitleEncoder) throws(FFmpegError) -> Int {
        Int(try addStream(copying: encoder.context).pointee.index)
    }

    private func addStream(copying codec: UnsafeMutablePointer<AVCodecContext>) throws(FFmpegError)
        -> UnsafeMutablePointer<AVStream> {
        guard let context, state == .configuring else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avformat_new_stream", path: path)
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "avformat_new_stream", path: path)
        }
        let index = Int(stream.pointee.index)
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), "avcodec_parameters_from_context",
                  path: path, stream: index)
        // A hint: the muxer may pick its own (MP4 video gets a multiple of the frame rate
        // ≥ 10000), which `write` reads back after the header.
        stream.pointee.time_base = codec.pointee.time_base
        return stream
    }

    private static func tag(_ a: Character, _ b: Character, _ c: Character, _ d: Character) -> UInt32 {
        UInt32(a.asciiValue!) | UInt32(b.asciiValue!) << 8 | UInt32(c.asciiValue!) << 16 | UInt32(d.asciiValue!) << 24
    }

    // MARK: Writing

    /// Writes the file header, after the last `addStream`. The moov atom is moved before
    /// the media data when the file is finished (`movflags=+faststart`), so players can
    /// start before the whole file has arrived. `creationTime` (ISO 8601, e.g.
    /// `2024-05-01T12:34:56Z`) becomes the container's `creation_time`.
    package func writeHeader(creationTime: String? = nil) throws(FFmpegError) {
        guard let context, state == .configuring else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avformat_write_header", path: path)
        }
        if let creationTime {
            try check(av_dict_set(&context.pointee.metadata, "creation_time", creationTime, 0), "av_dict_set", path: path)
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for option in headerOptions {
            try check(av_dict_set(&options, option.key, option.value, 0), "av_dict_set", path: path)
        }
        try check(avformat_write_header(context, &options), "avformat_write_header", path: path)
        state = .writing
    }

    /// Writes `packet`, whose timestamps are in `timeBase` (the encoder's), to stream
    /// `stream`: rescales them to the stream's time base and hands the packet to FFmpeg's
    /// interleaver, which takes its payload and leaves `packet` empty for reuse.
    package func write(_ packet: Packet, from timeBase: MediaTime, stream: Int) throws(FFmpegError) {
        guard let context, state == .writing, stream >= 0, stream < Int(context.pointee.nb_streams),
              timeBase.isNumeric, timeBase.value > 0, let num = Int32(exactly: timeBase.value) else {
            packet.unref()
            throw FFmpegError(code: cff_averror(EINVAL), function: "av_interleaved_write_frame", path: path,
                              streamIndex: stream)
        }
        let target = context.pointee.streams[stream]!.pointee.time_base
        packet.packet.pointee.stream_index = Int32(stream)
        av_packet_rescale_ts(packet.packet, AVRational(num: num, den: timeBase.timescale), target)
        try check(av_interleaved_write_frame(context, packet.packet), "av_interleaved_write_frame",
                  path: path, stream: stream)
    }

    /// Receives every packet `encoder` has ready and writes it to `stream`; returns
    /// `.needsInput` (send more) or, after `send(nil)`, `.endOfStream`. Call it after
    /// each `send`, and once after the flush. Encoder errors come back naming this file
    /// and `stream`.
    @discardableResult
    package func drain(_ encoder: VideoEncoder, into stream: Int) throws(FFmpegError) -> EncoderResult {
        try drain(into: stream, from: encoder.timeBase) { packet throws(FFmpegError) in
            try encoder.receivePacket(into: packet)
        }
    }

    /// Receives every packet `encoder` has ready and writes it to `stream`; returns
    /// `.needsInput` or, after `send(nil)`, `.endOfStream`.
    @discardableResult
    package func drain(_ encoder: AudioEncoder, into stream: Int) throws(FFmpegError) -> EncoderResult {
        try drain(into: stream, from: encoder.timeBase) { packet throws(FFmpegError) in
            try encoder.receivePacket(into: packet)
        }
    }

    private func drain(into stream: Int, from timeBase: MediaTime,
                       receive: (Packet) throws(FFmpegError) -> EncoderResult) throws(FFmpegError) -> EncoderResult {
        while true {
            let result: EncoderResult
            do {
                result = try receive(scratch)
            } catch {
                throw FFmpegError(code: error.code, function: error.function, path: path, streamIndex: stream)
            }
            guard result == .packet else { return result }
            try write(scratch, from: timeBase, stream: stream)
        }
    }

    /// Writes the trailer (the index; with faststart, FFmpeg then moves it before the
    /// media data) and closes the file. After an error the file is closed but incomplete:
    /// `abandon()` deletes it.
    package func finish() throws(FFmpegError) {
        guard let context, state == .writing else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "av_write_trailer", path: path)
        }
        state = .closed
        defer { release() }
        try check(av_write_trailer(context), "av_write_trailer", path: path)
        // Closing flushes the last buffered bytes: a full disk shows up here.
        try check(avio_closep(&context.pointee.pb), "avio_closep", path: path)
        state = .finished
        ownsFile = false
    }

    /// Stops writing: closes the file without a trailer and deletes it. Safe at any
    /// point and more than once; after a successful `finish()` it does nothing, so a
    /// finished file is never removed.
    package func abandon() {
        guard state != .finished else { return }
        release()
        state = .closed
        if ownsFile {
            _ = unlink(path)  // nothing to do if it is already gone
            ownsFile = false
        }
    }

    /// Closes the file (if open) and frees the context. The close result is dropped:
    /// this runs when the file is being thrown away or the caller already saw an error.
    private func release() {
        guard let context else { return }
        if context.pointee.pb != nil { _ = avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        self.context = nil
    }
}
