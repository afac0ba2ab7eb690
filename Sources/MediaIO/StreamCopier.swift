internal import CFFmpeg
import Timeline

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
public final class StreamCopier {
    public let path: String
    private let demuxer: Demuxer
    private let index: Int
    private let timeBase: MediaTime
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
    /// How many packets have been written.
    public private(set) var packetsCopied = 0

    /// Opens track `trackID` (stream index + 1) of `path` for copying `range`.
    public init(path: String, trackID: TrackID, range: TimeRange) throws(FFmpegError) {
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
        if cutsStart { try demuxer.seek(stream: index, to: origin + range.start) }
    }

    /// Adds the output stream, carrying the source's codec parameters; returns its index.
    @discardableResult
    public func addStream(to muxer: Muxer) throws(FFmpegError) -> Int {
        let stream = try muxer.addStream(copying: demuxer, stream: index)
        outputStream = stream
        return stream
    }

    /// The output decode time of the next packet to copy; nil when the range is done.
    public func nextTime() throws(FFmpegError) -> MediaTime? {
        guard try fill() else { return nil }
        let ticks = (packet.dts ?? packet.pts ?? shift) - shift
        return timeBase.multiplied(by: ticks, dividedBy: 1)
    }

    /// Copies the packets decoded before output time `time` (all that are left when nil);
    /// returns how many.
    @discardableResult
    public func copy(until time: MediaTime?, into muxer: Muxer) throws(FFmpegError) -> Int {
        var count = 0
        while let next = try nextTime() {
            if let time, next >= time { break }
            try writeHeld(into: muxer)
            count += 1
        }
        return count
    }

    /// Copies the next packet; false when the range is done.
    public func copyNext(into muxer: Muxer) throws(FFmpegError) -> Bool {
        guard try fill() else { return false }
        try writeHeld(into: muxer)
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
    private func fill() throws(FFmpegError) -> Bool {
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
            holding = true
            return true
        }
        packet.unref()
        ended = true
        return false
    }
}

/// Where the keyframes of a track lie: read from its packets (no decoding).
public enum KeyframeIndex {
    /// The source times (from the file's origin, as `AssetProbe` counts them) of every
    /// keyframe of track `trackID` (stream index + 1) of `path`, in presentation order.
    public static func presentationTimes(path: String, trackID: TrackID) throws(FFmpegError) -> [MediaTime] {
        let demuxer = try Demuxer(path: path)
        let index = Int(trackID) - 1
        guard demuxer.streams.indices.contains(index) else { return [] }
        let stream = demuxer.streams[index]
        let origin = demuxer.origin(of: stream)
        let packet = try Packet()
        var times: [MediaTime] = []
        while try demuxer.read(into: packet) {
            guard Int(packet.packet.pointee.stream_index) == index, packet.isKeyframe, !packet.isDiscarded,
                  let pts = packet.pts else { continue }
            times.append(stream.timeBase.multiplied(by: pts, dividedBy: 1) - origin)
        }
        return times.sorted()
    }
}
