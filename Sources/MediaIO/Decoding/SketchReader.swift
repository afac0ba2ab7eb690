internal import CDropcutFFmpeg
import DropcutTimeline

/// Reads a video track fast and small, for analysis (`fit: smart`): decoded roughly
/// (`Decoder`'s sketch mode: no loop filter) and scaled to an 8-bit grey picture at most
/// `maxWidth` wide, in the display's shape (stored pixels widened by their aspect ratio).
/// The decoded frame is reused, and the grey pictures are the caller's: no allocation
/// per picture.
package final class SketchReader {
    package let path: String
    /// The grey picture's size.
    package let size: PixelSize
    private let source: StreamDecoder
    private let decoded: VideoFrame
    private let scaler = Scaler(filter: .bilinear)
    private let timeBase: MediaTime
    private let startTime: MediaTime

    /// Opens the first video track of `path`.
    package init(path: String, maxWidth: Int = 480) throws(FFmpegError) {
        self.path = path
        source = try StreamDecoder(path: path, kind: .video, sketch: true)
        let stream = source.stream
        timeBase = stream.timeBase
        startTime = source.demuxer.origin(of: stream)
        let width = Double(max(stream.size?.width ?? 1, 1)) * (stream.pixelAspectRatio ?? .square).ratio
        let height = Double(max(stream.size?.height ?? 1, 1))
        let scale = min(1, Double(maxWidth) / width)
        // Even sides, at least 32: the detectors' smallest windows.
        func side(_ value: Double) -> Int { max(32, Int(value * scale / 2) * 2) }
        size = PixelSize(width: side(width), height: side(height))
        decoded = try VideoFrame()
    }

    /// Goes to the last keyframe at or before `seconds` from the track's first picture:
    /// the pictures before it are not decoded.
    package func seek(to seconds: Double) throws(FFmpegError) {
        guard seconds > 0, seconds.isFinite else { return }
        try source.seek(to: startTime + MediaTime(seconds: seconds, preferredTimescale: 90000))
    }

    /// A grey picture of `size`, for `next(into:)`.
    package func makePicture() throws(FFmpegError) -> VideoFrame {
        try VideoFrame(width: size.width, height: size.height, pixelFormat: .gray)
    }

    /// Decodes the next picture into `picture` (made by `makePicture`) and returns its
    /// time in seconds from the track's first picture; nil at the end of the track.
    package func next(into picture: VideoFrame) throws(FFmpegError) -> Double? {
        guard try source.decodeNext(into: decoded.frame) else { return nil }
        let best = decoded.frame.pointee.best_effort_timestamp
        let pts = best == cff_nopts_value() ? 0 : best
        let time = (timeBase.multiplied(by: pts, dividedBy: 1) - startTime).seconds
        try scaler.scale(decoded, region: PixelRect(size: decoded.size), into: picture, region: PixelRect(size: size))
        return max(0, time)
    }
}
