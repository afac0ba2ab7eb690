/// What `receivePacket(into:)` produced. FFmpeg signals the last two with AVERROR(EAGAIN)
/// and AVERROR_EOF; they are the normal rhythm of an encoder, not failures, so they are
/// results here and never thrown.
package enum EncoderResult: Sendable, Hashable {
    /// The packet was filled: write it, then ask again.
    case packet
    /// The encoder wants more frames before it can produce another packet (EAGAIN).
    case needsInput
    /// The encoder has been flushed (`send(nil)`) and has given out every packet (EOF).
    case endOfStream
}
