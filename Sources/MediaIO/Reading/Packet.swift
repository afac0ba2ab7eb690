internal import CDropcutFFmpeg

/// One compressed packet, owning one `AVPacket` (allocated in `init`, freed in `deinit`).
///
/// Allocate one per encoder loop and pass it to every `receivePacket(into:)`: the encoder
/// refills it in place and the muxer hands its payload on, so steady-state encoding
/// allocates no packets. Timestamps are in the time base of whoever filled it last
/// (the encoder's `timeBase` after `receivePacket(into:)`).
package final class Packet {
    let packet: UnsafeMutablePointer<AVPacket>

    /// An empty packet.
    package init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_packet_alloc", path: nil)
        }
        self.packet = packet
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&doomed)
    }

    /// Drops the payload reference and resets the fields, keeping the `AVPacket` itself
    /// for reuse.
    package func unref() {
        av_packet_unref(packet)
    }

    /// Presentation time, in the filler's time base; nil when unset.
    package var pts: Int64? {
        packet.pointee.pts == cff_nopts_value() ? nil : packet.pointee.pts
    }

    /// Decoding time, in the filler's time base; nil when unset.
    package var dts: Int64? {
        packet.pointee.dts == cff_nopts_value() ? nil : packet.pointee.dts
    }

    /// Sets the timestamps (in whatever time base the packet is then written from).
    package func retime(pts: Int64, dts: Int64, duration: Int64) {
        packet.pointee.pts = pts
        packet.pointee.dts = dts
        packet.pointee.duration = duration
    }

    /// How long the packet lasts, in the filler's time base (0 when unknown).
    package var duration: Int64 { packet.pointee.duration }

    /// The stream the packet belongs to (set by the demuxer).
    var streamIndex: Int { Int(packet.pointee.stream_index) }

    /// Payload size in bytes (0 for an empty packet).
    package var size: Int { Int(packet.pointee.size) }

    /// Calls `body` with the payload as it is, in place (no copy): empty for an empty packet.
    package func withPayload<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: packet.pointee.data, count: packet.pointee.data == nil ? 0 : size))
    }

    /// Replaces the payload with `count` bytes that `fill` writes into a buffer of the
    /// packet's own (zero padding after them, as FFmpeg's readers require); timestamps,
    /// flags and side data stay. The one way dropcut changes a packet's bytes (a copied
    /// stream's restated colour, a repeated `idr_pic_id` rewritten): the old payload, which
    /// may be shared with the demuxer, is left as it was and released.
    package func replacePayload(count: Int, fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) throws(FFmpegError) {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard count >= 0, count <= Int(Int32.max) - padding else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "av_buffer_alloc", path: nil, note: "a packet of \(count) bytes")
        }
        guard let buffer = av_buffer_alloc(count + padding), let data = buffer.pointee.data else {
            throw FFmpegError(code: cff_averror(ENOMEM), function: "av_buffer_alloc", path: nil)
        }
        fill(UnsafeMutableBufferPointer(start: data, count: count))
        (data + count).initialize(repeating: 0, count: padding)
        av_buffer_unref(&packet.pointee.buf)
        packet.pointee.buf = buffer
        packet.pointee.data = data
        packet.pointee.size = Int32(count)
    }

    /// Replaces the payload with `bytes` (see `replacePayload(count:fill:)`).
    package func replacePayload(with bytes: [UInt8]) throws(FFmpegError) {
        try replacePayload(count: bytes.count) { out in
            _ = out.initialize(from: bytes)
        }
    }

    /// True when the packet can be decoded on its own (a video sync point).
    package var isKeyframe: Bool { packet.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// True for a sample the container leaves out of the presentation (an MP4 edit list
    /// starting after it: the frames before a cut made without re-encoding, which are
    /// decoded only as references). It is not shown and does not count toward the length.
    package var isDiscarded: Bool { packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
}
