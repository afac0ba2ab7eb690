import DropcutMediaIO
import DropcutTimeline

/// The pictures of a writer that needs only a few frames — a poster, a preview's frames —
/// as a render output (`RenderOutput.Destination.pictures`): at each frame listed, the
/// composition is composited at the tap's own size, with its own overlays (as
/// `PosterRenderer` draws it), and handed to `receive`. In a shared render, on the
/// compositing thread, from the source frames the encoded outputs decode anyway: a poster
/// or a preview costs its compositing and encoding, no decoding of its own. With no render
/// to join, each frame is found and composited alone (`PosterRenderer`).
// @unchecked: made on the caller's thread, then used by the compositing thread alone.
package final class PictureTap: @unchecked Sendable {
    /// The composition as the pictures show it (size, overlays; its dynamic range).
    package let session: ExportSession
    /// Output frame indices, ascending; a frame listed twice is handed over twice.
    package let frames: [Int]
    let receive: (VideoFrame) throws -> Void

    package init(session: ExportSession, frames: [Int], receive: @escaping (VideoFrame) throws -> Void) {
        precondition(zip(frames, frames.dropFirst()).allSatisfy { $0 <= $1 }, "frames out of order")
        self.session = session
        self.frames = frames
        self.receive = receive
    }

    /// The tap's side of the compositing stage: one canvas, its compositor and overlays.
    final class Stage {
        let tap: PictureTap
        let scheduler: FrameScheduler
        let compositor: VideoCompositor
        let overlays: OverlayRenderer
        let canvas: VideoFrame
        var plan = FramePlan(index: 0, time: .zero, background: .black, layers: [])
        /// The next entry of `tap.frames` to hand over.
        var next = 0

        init(_ tap: PictureTap) throws {
            self.tap = tap
            let session = tap.session, size = session.videoComposition.renderSize, range = session.settings.dynamicRange
            scheduler = FrameScheduler(composition: session.composition, videoComposition: session.videoComposition)
            compositor = VideoCompositor(renderSize: size, dynamicRange: range)
            overlays = try OverlayRenderer(layers: session.overlays, renderSize: size, dynamicRange: range)
            canvas = try VideoFrame(width: size.width, height: size.height, pixelFormat: range.pixelFormat)
            if range != .sdr { canvas.setColorTags(range.color) }
        }

        /// Whether frame `index` is wanted.
        func wants(_ index: Int) -> Bool { next < tap.frames.count && tap.frames[next] == index }
    }
}
