internal import CDropcutFFmpeg
import DropcutTimeline

/// How a video stream's fields were recorded when the stream does not say: its first
/// decoded frame is asked.
///
/// FFmpeg leaves a stream's `field_order` unknown wherever neither the container nor a
/// parser or decoder states it — DV in every container, FFV1, ProRes or VP9 in a
/// container that does not say — while the decoders flag every interlaced frame
/// (`interlaced_frame`, with `top_field_first`). A DV camcorder's clip would otherwise be
/// taken as progressive and shown combed. So when, and only when, the order is unknown
/// (a stream that states progressive is believed), the stream's first packets are
/// decoded: if the first frame they give is flagged interlaced, its `top_field_first` is
/// the order (top first when set, else bottom first); if it is not, or no frame comes,
/// the stream stays progressive.
///
/// Cheap and bounded: a demuxer of its own from the first packet, a decoder without frame
/// threads (whose output would wait for as many packets as threads), at most
/// `packetLimit` packets of the stream decoded (then the decoder is drained) and
/// `readLimit` packets of the file read. What cannot be decoded leaves the order unknown;
/// only the machine's failures (EIO, ENOMEM) are thrown, as everywhere in MediaIO, so a
/// job is retried rather than rendered combed.
///
/// HEVC is never asked: FFmpeg 5.1 decodes field-coded HEVC as one picture per field, and
/// flags each of those interlaced, so its flag says nothing about woven frames.
///
/// `AssetProbe` and `dropcut probe` use it; the composition carries the answer to the
/// render (`SourceTrack.fieldOrder`), so a clip is deinterlaced exactly when its plan ran
/// at its field rate.
package enum FieldOrderDetection {
    /// The most packets of the stream decoded.
    package static let packetLimit = 8
    /// The most packets of the file read while looking for those (other streams' packets
    /// are read past, not decoded).
    package static let readLimit = 1024

    /// `streams` with the field order of each video stream that does not state one taken
    /// from its first frame (see the type). `demuxer` is not moved: each stream asked is
    /// read by a demuxer of its own.
    package static func resolving(_ streams: [StreamInfo], of demuxer: Demuxer) throws(FFmpegError) -> [StreamInfo] {
        var resolved: [StreamInfo] = []
        for stream in streams { resolved.append(try self.resolved(stream, of: demuxer)) }
        return resolved
    }

    /// `stream` (of `demuxer`'s file) with its field order taken from its first frame when
    /// it states none; as it is otherwise.
    package static func resolved(_ stream: StreamInfo, of demuxer: Demuxer) throws(FFmpegError) -> StreamInfo {
        guard asksFrames(stream) else { return stream }
        var stream = stream
        stream.fieldOrder = try firstFrameFieldOrder(ofStream: stream.index, in: demuxer.reopened())
        return stream
    }

    /// Whether `stream`'s frames are asked: a decodable video stream (not a cover picture)
    /// whose field order is unknown, of a codec whose interlaced flag means woven frames.
    static func asksFrames(_ stream: StreamInfo) -> Bool {
        stream.kind == .video && !stream.statesFieldOrder && stream.fieldOrder == nil
            && stream.isDecodable && !stream.isAttachedPicture && stream.size != nil && stream.codecName != "hevc"
    }

    /// The field order stream `index`'s first decoded frame states, reading `demuxer` from
    /// where it stands (its first packet when just opened); nil when that frame is
    /// progressive or no frame comes of the first `packetLimit` packets.
    static func firstFrameFieldOrder(ofStream index: Int, in demuxer: Demuxer) throws(FFmpegError) -> FieldOrder? {
        let decoder: Decoder
        do {
            decoder = try Decoder(demuxer: demuxer, stream: index, frameThreads: false)
        } catch {
            if error.isSystemFailure { throw error }
            return nil
        }
        let packet = try Packet(), frame = try VideoFrame()
        var sent = 0, read = 0
        while sent < packetLimit, read < readLimit {
            let more: Bool
            do {
                more = try demuxer.read(into: packet)
            } catch {
                if error.isSystemFailure && error.code != cff_averror(ENOMEM) { throw error }
                break   // a damaged container (or a damaged size asking for an absurd packet)
            }
            guard more else { break }
            read += 1
            guard Int(packet.packet.pointee.stream_index) == index else { continue }
            sent += 1
            // A packet the decoder refuses is passed over, as a render conceals it: the
            // next may decode.
            if try send(packet, to: decoder), try receive(from: decoder, into: frame) {
                return order(of: frame)
            }
        }
        // Drain: a decoder that reorders holds its first frames until it has seen more.
        guard try send(nil, to: decoder), try receive(from: decoder, into: frame) else { return nil }
        return order(of: frame)
    }

    /// What a decoded frame's flags say: nil for a progressive frame.
    static func order(of frame: VideoFrame) -> FieldOrder? {
        guard frame.isInterlaced else { return nil }
        return frame.isTopFieldFirst ? .topFirst : .bottomFirst
    }

    /// Sends `packet` (nil: the end of the stream); false when the decoder refused it.
    private static func send(_ packet: Packet?, to decoder: Decoder) throws(FFmpegError) -> Bool {
        do {
            // The decoder's output is always read before the next packet goes in, so it
            // has room (a refusal for want of room counts as a refusal).
            return try decoder.send(packet)
        } catch {
            if error.isSystemFailure { throw error }
            return false
        }
    }

    /// Receives the decoder's next frame into `frame`; false when it wants input, has
    /// ended or fails.
    private static func receive(from decoder: Decoder, into frame: VideoFrame) throws(FFmpegError) -> Bool {
        do {
            return try decoder.receive(into: frame.frame) == .frame
        } catch {
            if error.isSystemFailure { throw error }
            return false
        }
    }
}
