internal import CDropcutFFmpeg
import DropcutTimeline

/// An AAC encoder (FFmpeg's native `aac`), holding one `CodecContext` (freed with the
/// encoder).
///
/// Same loop as `VideoEncoder`: `send` a frame, `receivePacket(into:)` until
/// `.needsInput`; `send(nil)` then receive until `.endOfStream`. Frames are planar float
/// (`AudioFrame`) with `pts` in samples (the time base is 1/sampleRate), and every frame
/// but the last holds exactly `frameSize` samples: AAC codes fixed blocks, and a short
/// block in the middle would become a gap of silence.
package final class AudioEncoder {
    /// The stream's `CODECS` value for an HLS playlist (RFC 6381): FFmpeg's `aac` encoder
    /// writes AAC-LC (object type 2).
    package static let codecsAttribute = "mp4a.40.2"

    /// What the encoder was opened with.
    package let settings: AudioEncoderSettings
    /// One tick of the encoder's clock: one sample, 1/sampleRate.
    package let timeBase: MediaTime
    /// Samples per channel in each frame the encoder takes (1024 for AAC).
    package let frameSize: Int

    private let codecContext: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codecContext.pointer }
    private var flushed = false
    /// Set once a frame shorter than `frameSize` was sent: only the flush may follow it.
    private var sentShortFrame = false

    /// Opens the AAC encoder. `globalHeader` puts the AudioSpecificConfig in the codec
    /// extradata, which MP4/MOV need (`Muxer.needsGlobalHeader`). Throws an `FFmpegError`
    /// from `avcodec_open2` for a sample rate AAC does not have, no channels, or a bad bit
    /// rate.
    package init(settings: AudioEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        self.settings = settings
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, function: "avcodec_find_encoder_by_name", path: nil)
        }
        let codecContext = try CodecContext(codec: codec, path: nil)
        let c = codecContext.pointer
        c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        c.pointee.sample_rate = Int32(clamping: settings.sampleRate)
        av_channel_layout_default(&c.pointee.ch_layout, Int32(clamping: settings.channels))
        c.pointee.bit_rate = Int64(settings.bitrate)
        c.pointee.time_base = AVRational(num: 1, den: Int32(clamping: settings.sampleRate))
        if globalHeader { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        try codecContext.open()
        self.codecContext = codecContext
        self.timeBase = codecContext.timeBase
        self.frameSize = Int(c.pointee.frame_size)
    }

    /// Sends one frame (`pts` in samples), or nil to flush: after `send(nil)`, receive
    /// until `.endOfStream`. Flushing twice is harmless; a frame after the flush throws.
    ///
    /// Throws "Invalid argument" for a frame whose channel count or sample rate differs
    /// from the settings, without a pts, longer than `frameSize`, or following a short one.
    package func send(_ frame: AudioFrame?) throws(FFmpegError) {
        guard let frame else {
            if flushed { return }
            try check(avcodec_send_frame(context, nil), "avcodec_send_frame", path: nil)
            flushed = true
            return
        }
        guard frame.channels == settings.channels, frame.sampleRate == settings.sampleRate, frame.pts != nil,
              frame.sampleCount <= frameSize || frameSize == 0, !sentShortFrame else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "avcodec_send_frame", path: nil)
        }
        try check(avcodec_send_frame(context, frame.frame), "avcodec_send_frame", path: nil)
        if frameSize > 0 && frame.sampleCount < frameSize { sentShortFrame = true }
    }

    /// Fills `packet` with the next AAC packet, timestamps in samples, or says why there
    /// is none: `.needsInput` or `.endOfStream`. The first packets have negative pts: the
    /// encoder's priming delay, which the MP4 muxer hides with an edit list.
    package func receivePacket(into packet: Packet) throws(FFmpegError) -> EncoderResult {
        try codecContext.receivePacket(into: packet)
    }
}
