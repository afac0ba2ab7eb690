internal import CDropcutFFmpeg
import DropcutTimeline

/// Where the keyframes and IDR pictures of a track lie, how its pictures are spaced and
/// reordered: read from its packets, no decoding (`SourcePictureIndex`).
package enum KeyframeIndex {
    /// Reads every packet of track `trackID` (stream index + 1) of `path`. Times are
    /// source times from the file's origin, as `AssetProbe` counts them. Memory: one
    /// timestamp per picture.
    package static func scan(path: String, trackID: TrackID) throws(FFmpegError) -> SourcePictureIndex {
        let demuxer = try Demuxer(path: path)
        let index = Int(trackID) - 1
        guard demuxer.streams.indices.contains(index), let parameters = demuxer.codecParameters(ofStream: index) else {
            return SourcePictureIndex(keyframes: [], idrPictures: [], frameCount: 0, frameDuration: nil, firstFrame: .zero,
                                      reorderDepth: 0, decoderConfiguration: [])
        }
        let stream = demuxer.streams[index]
        let origin = demuxer.origin(of: stream)
        var configuration: [UInt8] = []
        if let extradata = parameters.pointee.extradata, parameters.pointee.extradata_size > 0 {
            configuration = Array(UnsafeBufferPointer(start: extradata, count: Int(parameters.pointee.extradata_size)))
        }
        // Length-prefixed H.264 only: where the IDR pictures are is read from the NAL types.
        let lengthSize: Int? = parameters.pointee.codec_id == AV_CODEC_ID_H264
            ? H264DecoderConfiguration(configuration)?.nalLengthSize : nil
        let packet = try Packet()
        var keyTicks: [Int64] = [], idrTicks: [Int64] = [], decodeOrder: [Int64] = []
        while try demuxer.read(into: packet) {
            guard packet.streamIndex == index, !packet.isDiscarded, let pts = packet.pts else { continue }
            decodeOrder.append(pts)
            if packet.isKeyframe { keyTicks.append(pts) }
            if let lengthSize, isIDR(packet, lengthSize: lengthSize) { idrTicks.append(pts) }
        }
        func time(_ ticks: Int64) -> MediaTime { stream.timeBase.multiplied(by: ticks, dividedBy: 1) - origin }
        let presentation = decodeOrder.sorted()
        let frameDuration = Self.frameDuration(presentation, timeBase: stream.timeBase, nominal: stream.frameDuration)
        // How far ahead of its place each picture is decoded: its decode position less its
        // presentation position (pictures have distinct places on a grid).
        var depth = 0
        if let frameDuration, let first = presentation.first, let grid = FrameGrid(origin: .zero, frameDuration: frameDuration) {
            for (k, pts) in decodeOrder.enumerated() {
                guard let place = grid.frame(stampedAt: stream.timeBase.multiplied(by: pts - first, dividedBy: 1)) else { continue }
                depth = max(depth, k - Int(clamping: place))
            }
        }
        return SourcePictureIndex(
            keyframes: keyTicks.sorted().map(time), idrPictures: idrTicks.sorted().map(time), frameCount: decodeOrder.count,
            frameDuration: frameDuration,
            firstFrame: presentation.first.map(time) ?? .zero, reorderDepth: depth, decoderConfiguration: configuration)
    }

    /// The one frame duration the pictures (presentation times in `timeBase` ticks, in
    /// order) lie on: the step between every two, or — when the steps differ, as a phone's
    /// clock rounds each time to its ticks — the stream's nominal one (`r_frame_rate`), when
    /// every picture is within an eighth of a frame of its place on that grid (`FrameGrid.stampTolerance`). nil when neither.
    static func frameDuration(_ presentation: [Int64], timeBase: MediaTime, nominal: MediaTime?) -> MediaTime? {
        guard presentation.count >= 2 else { return nil }
        let step = presentation[1] - presentation[0]
        if step > 0, presentation.indices.dropFirst().allSatisfy({ presentation[$0] - presentation[$0 - 1] == step }) {
            return timeBase.multiplied(by: step, dividedBy: 1)
        }
        guard let nominal, let grid = FrameGrid(origin: .zero, frameDuration: nominal) else { return nil }
        let first = presentation[0]
        for (k, pts) in presentation.enumerated() where grid.frame(stampedAt: timeBase.multiplied(by: pts - first, dividedBy: 1)) != Int64(k) {
            return nil
        }
        return nominal
    }

    /// Whether the packet holds an IDR picture (a NAL unit of type 5), its length prefixes
    /// walked in place.
    static func isIDR(_ packet: Packet, lengthSize: Int) -> Bool {
        // The first slice says: IDR (5) or not (1); a damaged walk before it, not an IDR.
        var idr = false
        _ = packet.withPayload { bytes in
            H264DecoderConfiguration.forEachUnit(bytes, lengthSize: lengthSize) { unit in
                guard let type = unit.first.map({ $0 & 0x1F }), type == 5 || type == 1 else { return true }
                idr = type == 5
                return false
            }
        }
        return idr
    }
}
