/// What asking a decoder for output gave: a frame, a request for more input (EAGAIN), or
/// the end of the stream after a flush (EOF). EAGAIN and EOF are results, not errors.
package enum DecoderResult: Sendable, Hashable {
    case frame
    case needsInput
    case endOfStream
}
