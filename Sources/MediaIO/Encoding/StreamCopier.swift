internal import CDropcutFFmpeg
import DropcutTimeline

/// Copies one source stream's packets into a `Muxer` as they are (the ffmpeg CLI's
/// `-c copy`): no decoding, no encoding. Owns its `Demuxer` (one open file) and one
/// reused `Packet`, so copying allocates nothing per packet beyond what FFmpeg does.
///
/// The stream copied is `range` of the track (source time, from the file's origin as
/// `AssetProbe` counts it), moved to start at output time 0. A range that starts after the
/// source's start must start on a keyframe: the copy seeks there, skips what comes before
/// it and the leading pictures presented before it. It ends before the first keyframe
/// presented at or after `range.end` (in decode order: a closed group of pictures refers to
/// nothing past the next keyframe), or at the end of the file. Whoever asks for a copy has
/// checked that the cut lies on keyframes (`PassThrough` in Pipeline).
///
/// Use: `addStream(to:)` before the muxer's header, then `copy(until:into:)` — packets
/// are held one ahead, so `nextTime` says when the next one is decoded, for interleaving.
package final class StreamCopier {
    package let path: String
    private let demuxer: Demuxer
    private let index: Int
    /// The stream's time base: one tick.
    package let timeBase: MediaTime
    /// Source ticks at output time 0 (the origin plus the range's start).
    private let shift: Int64
    private let startTicks: Int64
    private let endTicks: Int64
    private let cutsStart: Bool
    private let packet: Packet
    /// The muxer's stream, once added.
    private var outputStream: Int?
    /// True while `packet` holds the next packet to write.
    private var holding = false
    private var ended = false
    private var skippingToKeyframe: Bool
    /// H.264/HEVC: the size of each NAL unit's length prefix; nil for other codecs.
    private let nalLengthSize: Int?
    private var lastDecodeTime: Int64?
    /// How many packets have been written.
    package private(set) var packetsCopied = 0
    /// What states a colour in the stream the source leaves unstated; nil: as it is.
    private let statement: ColourStatement?

    /// Opens track `trackID` (stream index + 1) of `path` for copying `range`; with
    /// `statingColour`, the copy's parameter sets and container state that colour
    /// (`ColourStatement`: for an untagged source).
    package init(path: String, trackID: TrackID, range: TimeRange, statingColour: ColorDescription? = nil) throws {
        self.path = path
        demuxer = try Demuxer(path: path)
        index = Int(trackID) - 1
        guard demuxer.streams.indices.contains(index) else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "stream copy", path: path, streamIndex: index,
                              note: "no stream \(index) to copy")
        }
        let stream = demuxer.streams[index]
        timeBase = stream.timeBase
        let origin = demuxer.origin(of: stream)
        func ticks(_ time: MediaTime) -> Int64 {
            time.convertScale(stream.timeBase.timescale, rounding: .toNearestOrAwayFromZero).value / max(1, stream.timeBase.value)
        }
        startTicks = ticks(origin + range.start)
        endTicks = ticks(origin + range.end)
        shift = startTicks
        cutsStart = range.start > .zero
        skippingToKeyframe = cutsStart
        packet = try Packet()
        nalLengthSize = try Self.nalLengthSize(of: demuxer, stream: index)
        if let statingColour, let parameters = demuxer.codecParameters(ofStream: index) {
            statement = try ColourStatement(parameters: parameters, nalLengthSize: nalLengthSize ?? 4, timeBase: stream.timeBase,
                                            colour: statingColour, path: path)
        } else {
            statement = nil
        }
        if cutsStart { try demuxer.seek(stream: index, to: origin + range.start) }
    }

    /// H.264 and HEVC in MP4/MOV/Matroska: the bytes before each NAL unit that give its
    /// length (avcC/hvcC `lengthSizeMinusOne` + 1), so every packet can be checked whole
    /// before it is copied; nil for other codecs. Throws `StreamCopyUnsuitable` for H.264 or
    /// HEVC without such a header (Annex B start codes, a transport stream's): not checkable.
    private static func nalLengthSize(of demuxer: Demuxer, stream index: Int) throws(StreamCopyUnsuitable) -> Int? {
        guard let parameters = demuxer.codecParameters(ofStream: index) else { return nil }
        let codec = parameters.pointee.codec_id
        guard codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC else { return nil }
        let count = Int(parameters.pointee.extradata_size)
        guard let extradata = parameters.pointee.extradata, count > 0, extradata[0] == 1 else {
            throw StreamCopyUnsuitable(path: demuxer.path, stream: index, reason: "its packets are not length-prefixed NAL units")
        }
        if codec == AV_CODEC_ID_H264, count >= 7 { return Int(extradata[4] & 3) + 1 }
        if codec == AV_CODEC_ID_HEVC, count >= 23 { return Int(extradata[21] & 3) + 1 }
        throw StreamCopyUnsuitable(path: demuxer.path, stream: index, reason: "its codec header is too short")
    }

    /// Whether the packet's NAL units fill it exactly, each length prefix within it: the
    /// damage a flipped bit in a length does ("Invalid NAL unit size"), which a decoder
    /// would conceal and a copy would hand on.
    private func packetIsWhole() -> Bool {
        guard let lengthSize = nalLengthSize else { return true }
        return packet.withPayload { bytes in
            !bytes.isEmpty && H264DecoderConfiguration.forEachUnit(bytes, lengthSize: lengthSize) { _ in true }
        }
    }

    /// Adds the output stream, carrying the source's codec parameters; returns its index.
    @discardableResult
    package func addStream(to muxer: Muxer) throws(FFmpegError) -> Int {
        let stream = try muxer.addStream(copying: demuxer, stream: index, parameters: statement?.outputParameters)
        outputStream = stream
        return stream
    }

    /// The output decode time of the next packet to copy; nil when the range is done.
    package func nextTime() throws -> MediaTime? {
        guard try fill() else { return nil }
        let ticks = (packet.dts ?? packet.pts ?? shift) - shift
        return timeBase.multiplied(by: ticks, dividedBy: 1)
    }

    /// Copies the packets decoded before output time `time` (all that are left when nil);
    /// returns how many.
    @discardableResult
    package func copy(until time: MediaTime?, into muxer: Muxer) throws -> Int {
        var count = 0
        while let next = try nextTime() {
            if let time, next >= time { break }
            try writeHeld(into: muxer)
            count += 1
        }
        return count
    }

    /// Copies the next packet; false when the range is done.
    package func copyNext(into muxer: Muxer) throws -> Bool {
        guard try fill() else { return false }
        try writeHeld(into: muxer)
        return true
    }

    /// Moves the next packet into `target`, its timestamps in `timeBase` ticks from the
    /// range's start (for a caller that times the packets itself: a splice); false when
    /// the range is done.
    package func takeNext(into target: Packet) throws -> Bool {
        guard try fill() else { return false }
        let raw = packet.packet
        if raw.pointee.pts != cff_nopts_value() { raw.pointee.pts -= shift }
        if raw.pointee.dts != cff_nopts_value() { raw.pointee.dts -= shift }
        raw.pointee.pos = -1
        holding = false
        target.unref()
        av_packet_move_ref(target.packet, raw)
        packetsCopied += 1
        return true
    }

    private func writeHeld(into muxer: Muxer) throws(FFmpegError) {
        guard let outputStream else {
            throw FFmpegError(code: cff_averror(EINVAL), function: "stream copy", path: path, streamIndex: index,
                              note: "no output stream added")
        }
        let raw = packet.packet
        if raw.pointee.pts != cff_nopts_value() { raw.pointee.pts -= shift }
        if raw.pointee.dts != cff_nopts_value() { raw.pointee.dts -= shift }
        raw.pointee.pos = -1
        holding = false
        try muxer.write(packet, from: timeBase, stream: outputStream)
        packetsCopied += 1
    }

    /// Reads ahead to the next packet of the stream that belongs to the range.
    private func fill() throws -> Bool {
        if holding { return true }
        guard !ended else { return false }
        while try demuxer.read(into: packet) {
            guard Int(packet.packet.pointee.stream_index) == index else { continue }
            let pts = packet.pts ?? packet.dts
            if skippingToKeyframe {
                // Seeking lands on the keyframe at or before the start: the cut's keyframe.
                guard packet.isKeyframe, let pts, pts >= startTicks else { continue }
                skippingToKeyframe = false
            } else if cutsStart, let pts, pts < startTicks {
                continue  // a leading picture of an open group: shown before the cut
            }
            if packet.isKeyframe, let pts, pts >= endTicks {
                break
            }
            // Decode times must rise: a damaged sample table's would make the muxer
            // refuse the packet or stretch the stream.
            if let dts = packet.dts {
                if let last = lastDecodeTime, dts <= last {
                    throw StreamCopyUnsuitable(path: path, stream: index, reason: "its decode times go back at packet \(packetsCopied + 1)")
                }
                lastDecodeTime = dts
            }
            guard packetIsWhole() else {
                throw StreamCopyUnsuitable(path: path, stream: index,
                                           reason: "packet \(packetsCopied + 1) is damaged (its NAL unit lengths do not fill it)")
            }
            try statement?.filter(packet)
            holding = true
            return true
        }
        packet.unref()
        ended = true
        return false
    }
}

/// A stream that cannot be copied as it is after all — a damaged packet, a form whose
/// packets cannot be checked: the export encodes it instead (the decoder conceals what
/// it can, as for any clip).
package struct StreamCopyUnsuitable: Error, Sendable, CustomStringConvertible {
    package let path: String
    package let stream: Int
    package let reason: String

    package init(path: String, stream: Int, reason: String) {
        self.path = path
        self.stream = stream
        self.reason = reason
    }

    package var description: String { "\(path): stream \(stream) cannot be copied: \(reason)" }
}
