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
        var step: Int64?
        var regular = presentation.count >= 2
        for k in presentation.indices.dropFirst() {
            let gap = presentation[k] - presentation[k - 1]
            if step == nil { step = gap }
            if gap != step || gap <= 0 { regular = false; break }
        }
        // How far ahead of its place each picture is decoded: its decode position less its
        // presentation position (pictures have distinct times on a regular grid).
        var depth = 0
        if regular, let step, let first = presentation.first {
            for (k, pts) in decodeOrder.enumerated() {
                depth = max(depth, k - Int((pts - first) / step))
            }
        }
        return SourcePictureIndex(
            keyframes: keyTicks.sorted().map(time), idrPictures: idrTicks.sorted().map(time), frameCount: decodeOrder.count,
            frameDuration: regular ? step.map { stream.timeBase.multiplied(by: $0, dividedBy: 1) } : nil,
            firstFrame: presentation.first.map(time) ?? .zero, reorderDepth: depth, decoderConfiguration: configuration)
    }

    /// Whether the packet holds an IDR picture (a NAL unit of type 5), its length prefixes
    /// walked in place.
    static func isIDR(_ packet: Packet, lengthSize: Int) -> Bool {
        guard let data = packet.packet.pointee.data else { return false }
        let size = packet.size
        var offset = 0
        while offset + lengthSize < size {
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(data[offset + k]) }
            offset += lengthSize
            guard length > 0, length <= size - offset else { return false }
            let type = data[offset] & 0x1F
            if type == 5 { return true }
            if type == 1 { return false }
            offset += length
        }
        return false
    }
}
