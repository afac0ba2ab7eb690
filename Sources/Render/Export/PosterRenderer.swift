import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// Pictures of a composition for posters: the frame showing at a time, composited exactly
/// as `ExportSession` composites it for the video of the same render size (orientation,
/// fit, transitions, overlays), and the sharpest well-exposed of a few frames
/// (`bestFrame`). One canvas, one reader per track: memory is one frame's, whatever the
/// length.
public final class PosterRenderer {
    public let composition: Composition
    public let videoComposition: VideoComposition
    private let scheduler: FrameScheduler
    private let sources: VideoSources
    private let compositor: VideoCompositor
    private let overlays: OverlayRenderer
    private let canvas: VideoFrame
    private let settings: ExportSettings

    public init(composition: Composition, videoComposition: VideoComposition, overlays: [OverlayLayer] = [],
                settings: ExportSettings = ExportSettings()) throws {
        self.composition = composition
        self.videoComposition = videoComposition
        self.settings = settings
        scheduler = FrameScheduler(composition: composition, videoComposition: videoComposition)
        sources = VideoSources(deinterlace: settings.deinterlace)
        let size = videoComposition.renderSize
        compositor = VideoCompositor(renderSize: size, dynamicRange: settings.dynamicRange)
        self.overlays = try OverlayRenderer(layers: overlays, renderSize: size, dynamicRange: settings.dynamicRange)
        canvas = try VideoFrame(width: size.width, height: size.height, pixelFormat: settings.dynamicRange.pixelFormat)
        if settings.dynamicRange != .sdr { canvas.setColorTags(settings.dynamicRange.color) }
    }

    /// The pictures of `session`'s composition as it shows them (size, overlays, range).
    package convenience init(session: ExportSession) throws {
        try self.init(composition: session.composition, videoComposition: session.videoComposition, overlays: session.overlays,
                      settings: session.settings)
    }

    /// How many frames the video of this composition has.
    public var frameCount: Int { scheduler.frameCount }

    /// The frame showing at output time `time` (the last frame for a time at or past the
    /// end).
    public func frameIndex(at time: MediaTime) -> Int {
        scheduler.frameIndex(at: time)
    }

    /// Frame `index` composited; valid until the next call.
    package func frame(_ index: Int) throws -> VideoFrame {
        guard scheduler.frameCount > 0 else { throw ExportError.invalidComposition(["the composition is empty (it lasts 0 s)"]) }
        let plan = scheduler.plan(frame: Swift.min(Swift.max(0, index), scheduler.frameCount - 1))
        var frames: [LayerPicture] = []
        for layer in plan.layers {
            frames.append(try sources.picture(track: layer.trackID, source: layer.source, at: layer.sourceTime,
                                              sampling: layer.frameSampling, background: plan.background))
        }
        try canvas.makeWritable()
        try compositor.composite(plan, frames: frames, into: canvas)
        try overlays.draw(at: plan.time, into: canvas)
        return canvas
    }

    /// The frames `best` weighs: at most `count`, spread evenly over the output at the
    /// middles of equal stretches (never the very first or last instant, where fades
    /// start and end), in order, without repeats.
    public func candidateFrames(count: Int) -> [Int] {
        let frames = scheduler.frameCount
        guard frames > 0, count > 0 else { return [] }
        let n = Swift.min(count, frames)
        var indices: [Int] = []
        for i in 0..<n {
            let index = Int((Double(i) + 0.5) * Double(frames) / Double(n))
            if indices.last != index { indices.append(Swift.min(index, frames - 1)) }
        }
        return indices
    }

    /// The sharpest well-exposed of `candidateFrames(count:)`: each is composited (the
    /// readers move forward only, seeking past gaps of more than 2 s) and scored by
    /// `PictureScore` on its luma; the earliest of equal scores wins. Returns the frame
    /// index and the scores, in candidate order.
    public func bestFrame(candidates count: Int, isCancelled: () -> Bool = { false }) throws -> (index: Int, scores: [(index: Int, score: PictureScore)]) {
        var scores: [(index: Int, score: PictureScore)] = []
        for index in candidateFrames(count: count) {
            if isCancelled() { throw ExportError.cancelled }
            let picture = try frame(index)
            let score = picture.withPlane(0) { bytes, stride in
                PictureScore(luma: UnsafeRawBufferPointer(bytes), stride: stride, width: picture.width, height: picture.height,
                             bytesPerSample: settings.dynamicRange == .sdr ? 1 : 2)
            }
            scores.append((index, score))
        }
        guard let best = scores.max(by: { $0.score.value < $1.score.value || ($0.score.value == $1.score.value && $0.index > $1.index) }) else {
            throw ExportError.invalidComposition(["the composition is empty (it lasts 0 s)"])
        }
        return (best.index, scores)
    }
}
