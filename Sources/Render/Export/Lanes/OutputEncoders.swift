import DropcutMediaIO
import DropcutTimeline

/// Where every render's encoders are made — a movie's, each HLS rung's, every audio
/// rendition's, a smart render's encoded pieces — from the export settings, and added to their muxer: one place says how
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

    /// The settings of a smart render's encoded pieces (`VideoSplicer`): H.264 in the
    /// source's profile, level and entropy coder under a parameter-set id of their own
    /// (`match`), pictures as `format` stores them, stating the copied stream's colour to
    /// its code points, at rate factor `crf` (from the source's quantisers) and the
    /// recipe's preset. Each piece has an encoder of its own (`piece`), so it starts with
    /// an IDR picture and is flushed whole.
    static func splicedPieces(_ settings: ExportSettings, format: SplicedPictureFormat, frameDuration: MediaTime, crf: Int,
                              colour: ColorDescription, codePoints: ColourCodePoints?,
                              match: VideoEncoderSettings.SpliceMatch) -> VideoEncoderSettings {
        var pieces = VideoEncoderSettings(
            codec: .h264, size: format.storedSize, frameDuration: frameDuration, crf: crf, preset: settings.preset,
            pixelFormat: format.pixelFormat, color: colour, keyframeInterval: nil, spliceMatch: match)
        pieces.colourCodePoints = codePoints
        return pieces
    }

    /// An encoder of one encoded piece of a splice (its parameter sets in the one sample
    /// entry the splicer writes: a global header).
    static func piece(_ settings: VideoEncoderSettings) throws -> VideoEncoder {
        try VideoEncoder(settings: settings, globalHeader: true)
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
