/// How to encode audio as AAC.
package struct AudioEncoderSettings: Sendable, Hashable {
    /// Samples per second (AAC accepts the usual rates: 44100, 48000...).
    package var sampleRate: Int
    /// Channel count; the layout is FFmpeg's default for it (1 mono, 2 stereo, 6 5.1).
    package var channels: Int
    /// Target bit rate in bits per second (160_000 for "160k").
    package var bitrate: Int

    /// Settings; the defaults are the recipe's (48 kHz stereo, 160 kb/s).
    package init(sampleRate: Int = 48_000, channels: Int = 2, bitrate: Int = 160_000) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
    }
}
