internal import CDropcutFFmpeg

/// A block of audio in planar 32-bit float (FFmpeg's `fltp`, AAC's native format),
/// owning one `AVFrame`. Allocated once with a fixed capacity and reused, so steady-state
/// audio processing allocates nothing.
package final class AudioFrame {
    let frame: UnsafeMutablePointer<AVFrame>
    /// How many samples per channel the buffers hold.
    package let capacity: Int

    package init(channels: Int, sampleRate: Int, capacity: Int) throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_frame_alloc", path: nil)
        }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(sampleRate)
        frame.pointee.nb_samples = Int32(capacity)
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(channels))
        let result = av_frame_get_buffer(frame, 0)
        if result < 0 {
            var doomed: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&doomed)
            throw FFmpegError(code: result, function: "av_frame_get_buffer", path: nil)
        }
        self.frame = frame
        self.capacity = capacity
    }

    /// An empty frame for a decoder to fill (`avcodec_receive_frame` allocates buffers).
    init(decoderOutput: ()) throws(FFmpegError) {
        guard let frame = av_frame_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_frame_alloc", path: nil)
        }
        self.frame = frame
        self.capacity = 0
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&doomed)
    }

    package var channels: Int { Int(frame.pointee.ch_layout.nb_channels) }
    package var sampleRate: Int { Int(frame.pointee.sample_rate) }

    /// Valid samples per channel (≤ `capacity`).
    package var sampleCount: Int {
        get { Int(frame.pointee.nb_samples) }
        set {
            precondition(newValue >= 0 && newValue <= capacity, "sampleCount \(newValue) outside 0...\(capacity)")
            frame.pointee.nb_samples = Int32(newValue)
        }
    }

    /// Presentation time in samples (the frame's time base is 1/sampleRate).
    package var pts: Int64? {
        get { frame.pointee.pts == cff_nopts_value() ? nil : frame.pointee.pts }
        set { frame.pointee.pts = newValue ?? cff_nopts_value() }
    }

    /// Runs `body` with channel `index`'s samples (all `capacity` of them).
    package func withChannel<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < channels, "channel \(index) of \(channels)")
        let base = frame.pointee.extended_data[index]!
        return try base.withMemoryRebound(to: Float.self, capacity: capacity) {
            try body(UnsafeMutableBufferPointer(start: $0, count: capacity))
        }
    }

    /// Makes the buffers writable, copying them if an encoder still holds a reference.
    package func makeWritable() throws(FFmpegError) {
        try check(av_frame_make_writable(frame), "av_frame_make_writable", path: nil)
    }
}
