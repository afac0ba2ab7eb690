internal import CDropcutFFmpeg

/// Converts decoded audio of any sample format, rate and channel layout to planar float
/// at one rate and channel count, with libswresample; owns one `SwrContext` (freed in
/// `deinit`). The context is set up from the first frame and rebuilt only if the input
/// format changes mid-stream.
final class Resampler {
    let sampleRate: Int
    let channels: Int
    private var context: OpaquePointer?
    private var input: (format: Int32, rate: Int32, channels: Int32)?
    private let path: String
    private let streamIndex: Int

    init(sampleRate: Int, channels: Int, path: String, streamIndex: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.path = path
        self.streamIndex = streamIndex
    }

    deinit {
        swr_free(&context)
    }

    /// Forgets buffered samples (after a seek).
    func reset() {
        swr_free(&context)
        input = nil
    }

    /// Converts `frame` into `outputs` (one float pointer per output channel, room for
    /// `capacity` samples each); returns the samples written.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, into outputs: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                 capacity: Int) throws(FFmpegError) -> Int {
        let key = (frame.pointee.format, frame.pointee.sample_rate, frame.pointee.ch_layout.nb_channels)
        if input.map({ $0 != key }) ?? true {
            try configure(for: frame)
            input = key
        }
        let converted = frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { data in
            swr_convert(context, outputs, Int32(capacity), data, frame.pointee.nb_samples)
        }
        return Int(try check(converted, "swr_convert", path: path, stream: streamIndex))
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        swr_free(&context)
        var inputLayout = AVChannelLayout()
        // Some files store only a channel count: take FFmpeg's default layout for it.
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, frame.pointee.ch_layout.nb_channels)
        } else {
            try check(av_channel_layout_copy(&inputLayout, &frame.pointee.ch_layout), "av_channel_layout_copy",
                      path: path, stream: streamIndex)
        }
        defer { av_channel_layout_uninit(&inputLayout) }
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(channels))
        defer { av_channel_layout_uninit(&outputLayout) }
        try check(swr_alloc_set_opts2(&context, &outputLayout, AV_SAMPLE_FMT_FLTP, Int32(sampleRate),
                                      &inputLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil),
                  "swr_alloc_set_opts2", path: path, stream: streamIndex)
        try check(swr_init(context), "swr_init", path: path, stream: streamIndex)
    }
}
