import DropcutTimeline

/// Keeps H.264 7.4.3's rule in a stream put together from pieces: two IDR access units
/// in a row in decoding order have different `idr_pic_id`s. Each piece numbers its own —
/// x264 alternates 0 and 1 from 0 in every encoder, a source's copied groups keep theirs —
/// so at a join two IDR pictures can carry the same (an all-intra source cut into two
/// ranges, an encoded piece's one-picture IDR beside a copied group's first).
///
/// Sees every packet in decoding order and rewrites (`IDRPictureIDRewriter`) only an IDR
/// access unit whose id repeats the one just before's, to the smallest id that is neither
/// that one's id as written nor its own before any rewrite: within a copied group the
/// source alternates its ids, so the next picture likely carries the one before's own
/// again, and a rewrite to a third value ends there instead of rewriting every picture to
/// the group's end. What cannot be checked or rewritten is `refused`, never written wrong.
/// Any other packet is only read, in place.
package final class IDRPictureIDGuard {
    /// What `pass` did with a packet.
    package enum Outcome: Sendable, Hashable {
        case kept
        /// An IDR picture renumbered: its id was the one before's.
        case rewritten(from: Int, to: Int)
        /// An IDR picture after another whose id cannot be read or rewritten (why).
        case refused(String)
    }

    /// The access unit before, in decoding order.
    private enum Previous {
        case other
        /// An IDR picture: the id it was written with, and its own.
        case idr(written: Int, own: Int)
        /// Perhaps an IDR picture, its id not known.
        case unknown
    }

    private var sets: H264ParameterSets
    private let lengthSize: Int
    private var previous = Previous.other
    /// The start of an IDR slice's RBSP, reused: reading a header allocates nothing.
    private var scratch: [UInt8] = []

    /// A guard for a stream whose sample entry is `configuration` (every parameter set its
    /// pieces refer to).
    package init(configuration: H264DecoderConfiguration) {
        sets = H264ParameterSets(configuration)
        lengthSize = configuration.nalLengthSize
        scratch.reserveCapacity(IDRPictureIDRewriter.headerBytes)
    }

    /// Checks `packet`, the next access unit in decoding order, and gives it a new
    /// `idr_pic_id` when it is an IDR picture with the same as the IDR picture just before.
    /// Throws only when the rewritten packet's buffer cannot be allocated.
    package func pass(_ packet: Packet) throws(FFmpegError) -> Outcome {
        let unit = packet.withPayload { bytes in
            IDRPictureIDRewriter.classify(bytes, lengthSize: lengthSize, sets: &sets, scratch: &scratch)
        }
        let before = previous
        switch (unit, before) {
        case (.other, _):
            previous = .other
            return .kept
        case (.unreadable, .other):
            previous = .unknown
            return .kept
        case (.unreadable, _):
            previous = .unknown
            return .refused("an IDR picture's slice header cannot be read, after another IDR picture")
        case let (.idr(id), .unknown):
            previous = .idr(written: id, own: id)
            return .refused("an IDR picture follows one whose slice header cannot be read")
        case let (.idr(id), .other):
            previous = .idr(written: id, own: id)
            return .kept
        case let (.idr(id), .idr(written, own)):
            guard id == written else {
                previous = .idr(written: id, own: id)
                return .kept
            }
            var renumbered = 0
            while renumbered == written || renumbered == own { renumbered += 1 }
            guard let bytes = packet.withPayload({ bytes in
                IDRPictureIDRewriter.rewrite(bytes, lengthSize: lengthSize, pictureID: renumbered, sets: sets)
            }) else {
                previous = .unknown
                return .refused("an IDR picture with the idr_pic_id (\(id)) of the one before cannot be renumbered")
            }
            try packet.replacePayload(with: bytes)
            previous = .idr(written: renumbered, own: id)
            return .rewritten(from: id, to: renumbered)
        }
    }
}
