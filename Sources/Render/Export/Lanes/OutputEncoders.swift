import DropcutMediaIO
import DropcutTimeline

/// Where every render's encoders are made — a movie's, each HLS rung's, every audio
/// rendition's — from the export settings, and added to their muxer: one place says how
/// settings become an encoder (codec, quality, pixel format, colour tags, keyframes).
enum OutputEncoders {
    /// An encoder with its stream in a muxer.
    struct Encoded<Encoder> {
        let encoder: Encoder
        let stream: Int
    }

    /// The video encoder of `settings` for pictures of `size` on the grid `frameDuration`
    /// (a keyframe exactly every `keyframeInterval` frames when given), its stream added
    /// to `muxer`.
    static func video(_ settings: ExportSettings, size: PixelSize, frameDuration: MediaTime, keyframeInterval: Int? = nil,
                      muxer: Muxer) throws -> Encoded<VideoEncoder> {
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(
            codec: settings.videoCodec, size: size, frameDuration: frameDuration, crf: settings.crf, preset: settings.preset,
            pixelFormat: settings.dynamicRange.pixelFormat, color: settings.dynamicRange.color,
            keyframeInterval: keyframeInterval), globalHeader: muxer.needsGlobalHeader)
        return Encoded(encoder: encoder, stream: try muxer.addStream(for: encoder))
    }

    /// The AAC encoder of `settings` for sound of `format`, its stream added to `muxer`.
    static func audio(_ settings: ExportSettings, format: AudioFormat, muxer: Muxer) throws -> Encoded<AudioEncoder> {
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(
            sampleRate: format.sampleRate, channels: format.channels, bitrate: settings.audioBitrate),
            globalHeader: muxer.needsGlobalHeader)
        return Encoded(encoder: encoder, stream: try muxer.addStream(for: encoder))
    }
}

/// A mix's sample rate and channel count.
struct AudioFormat: Hashable {
    var sampleRate: Int
    var channels: Int
}
