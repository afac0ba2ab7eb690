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
                                      reorderDepth: 0, decoderConfiguration: [], missingFrames: [])
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
        let layout = Self.layout(presentation, timeBase: stream.timeBase, nominal: stream.frameDuration)
        // How far ahead of its place in presentation order each picture is decoded: its
        // decode position less its rank among the presentation times (distinct, on a grid).
        var depth = 0
        if layout != nil {
            for (k, pts) in decodeOrder.enumerated() {
                depth = max(depth, k - Self.rank(of: pts, in: presentation))
            }
        }
        return SourcePictureIndex(
            keyframes: keyTicks.sorted().map(time), idrPictures: idrTicks.sorted().map(time),
            frameCount: layout?.frames ?? decodeOrder.count, frameDuration: layout?.frameDuration,
            firstFrame: presentation.first.map(time) ?? .zero, reorderDepth: depth, decoderConfiguration: configuration,
            missingFrames: layout?.missing ?? [])
    }

    /// How the pictures (presentation times in `timeBase` ticks, in order) lie on one frame
    /// grid: its frame duration, the frames it spans from the first picture to the last, and
    /// those of them no picture is on (ascending). The grid is the step between every two
    /// pictures; or — when the steps differ, as a phone's clock rounds each time to its
    /// ticks, or leaves a frame out in low light — the stream's nominal one (`r_frame_rate`),
    /// when every picture is within an eighth of a frame of a place of its own on it
    /// (`FrameGrid.stampTolerance`) and at most two places in three are empty (an average
    /// rate at least a third of the nominal one, as `AssetProbe` takes the nominal rate for
    /// the output's). nil when neither: a variable rate off any grid, fewer than two pictures.
    static func layout(_ presentation: [Int64], timeBase: MediaTime, nominal: MediaTime?)
        -> (frameDuration: MediaTime, frames: Int, missing: [Int])? {
        guard presentation.count >= 2 else { return nil }
        let step = presentation[1] - presentation[0]
        if step > 0, presentation.indices.dropFirst().allSatisfy({ presentation[$0] - presentation[$0 - 1] == step }) {
            return (timeBase.multiplied(by: step, dividedBy: 1), presentation.count, [])
        }
        guard let nominal, let grid = FrameGrid(origin: .zero, frameDuration: nominal) else { return nil }
        let first = presentation[0]
        var missing: [Int] = [], last = -1
        for pts in presentation {
            guard let place = grid.frame(stampedAt: timeBase.multiplied(by: pts - first, dividedBy: 1)), place > last,
                  let frame = Int(exactly: place) else { return nil }
            // Bounded before it is filled: never more than twice the pictures.
            guard frame - last - 1 <= 2 * presentation.count - missing.count else { return nil }
            missing.append(contentsOf: (last + 1)..<frame)
            last = frame
        }
        guard missing.count <= 2 * presentation.count else { return nil }
        return (nominal, last + 1, missing)
    }

    /// The one frame duration the pictures lie on (`layout`), or nil.
    static func frameDuration(_ presentation: [Int64], timeBase: MediaTime, nominal: MediaTime?) -> MediaTime? {
        layout(presentation, timeBase: timeBase, nominal: nominal)?.frameDuration
    }

    /// The index of `value` in `sorted` (ascending, distinct): where it is, or would be.
    private static func rank(of value: Int64, in sorted: [Int64]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
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
