import Foundation
import DropcutTimeline

/// An HLS master (multivariant) playlist, RFC 8216 §4.4.6: one `EXT-X-STREAM-INF` per
/// rung, tallest first, and the ladder's one audio rendition (`EXT-X-MEDIA`) that every
/// rung refers to. Pure: the values in, the text out.
public struct MasterPlaylist: Sendable, Hashable {
    /// One video rendition (a rung).
    public struct Variant: Sendable, Hashable {
        /// Its media playlist, relative to the master (`720p/index.m3u8`).
        public var uri: String
        public var size: PixelSize
        /// Peak bits per second over its segments, the audio rendition's peak included
        /// (§4.4.6.2: an upper bound of what a player downloads per second).
        public var bandwidth: Int
        /// Its whole size over its duration, the audio's included.
        public var averageBandwidth: Int
        /// The video's RFC 6381 codec (`avc1.64001f`); the audio's is added when there is one.
        public var videoCodec: String
        public var frameRate: Double
        /// `SDR` or `HLG`.
        public var videoRange: String

        public init(uri: String, size: PixelSize, bandwidth: Int, averageBandwidth: Int, videoCodec: String,
                    frameRate: Double, videoRange: String) {
            self.uri = uri
            self.size = size
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.videoCodec = videoCodec
            self.frameRate = frameRate
            self.videoRange = videoRange
        }
    }

    /// The audio rendition: its media playlist and codec (`mp4a.40.2`).
    public struct Audio: Sendable, Hashable {
        public var uri: String
        public var codec: String

        public init(uri: String, codec: String) {
            self.uri = uri
            self.codec = codec
        }
    }

    public var variants: [Variant]
    public var audio: Audio?

    /// The audio group's id.
    static let audioGroup = "audio"

    public init(variants: [Variant], audio: Audio?) {
        self.variants = variants
        self.audio = audio
    }

    /// The playlist: version 7 (fMP4 segments with `EXT-X-MAP` need 6+), independent
    /// segments (every segment starts with a keyframe).
    public var text: String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let audio {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(Self.audioGroup)\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,URI=\"\(audio.uri)\"")
        }
        for variant in variants {
            let codecs = [variant.videoCodec] + (audio.map { [$0.codec] } ?? [])
            var attributes = [
                "BANDWIDTH=\(variant.bandwidth)",
                "AVERAGE-BANDWIDTH=\(variant.averageBandwidth)",
                "RESOLUTION=\(variant.size.width)x\(variant.size.height)",
                "CODECS=\"\(codecs.joined(separator: ","))\"",
                "FRAME-RATE=\(String(format: "%.3f", variant.frameRate))",
                "VIDEO-RANGE=\(variant.videoRange)",
            ]
            if audio != nil { attributes.append("AUDIO=\"\(Self.audioGroup)\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
