import Foundation
import MediaIO
import Support
import Timeline

/// The decoding + compositing stage, on its own thread: plans each frame, fetches the
/// layers' source frames, composites into a pooled canvas and queues it for encoding.
// @unchecked: its decoders and compositor (not Sendable) are handed to the composite thread at `start`.
final class FrameProducer: @unchecked Sendable {
    enum Item {
        case frame(VideoFrame, index: Int)
        case failed(any Error)
        case end
    }

    let free: BoundedQueue<VideoFrame>
    let filled: BoundedQueue<Item>
    private let scheduler: FrameScheduler
    private let compositor: VideoCompositor
    private let overlays: OverlayRenderer
    private let sources: VideoSources
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the thread runs (`stop` then waits for it).
    private var started = false

    init(scheduler: FrameScheduler, renderSize: PixelSize, overlays: OverlayRenderer, poolSize: Int, deinterlace: Bool,
         dynamicRange: OutputDynamicRange = .sdr) throws {
        sources = VideoSources(deinterlace: deinterlace)
        self.scheduler = scheduler
        self.overlays = overlays
        compositor = VideoCompositor(renderSize: renderSize, dynamicRange: dynamicRange)
        free = BoundedQueue(capacity: poolSize)
        filled = BoundedQueue(capacity: poolSize + 1)
        for _ in 0..<poolSize {
            let canvas = try VideoFrame(width: renderSize.width, height: renderSize.height, pixelFormat: dynamicRange.pixelFormat)
            if dynamicRange != .sdr { canvas.setColorTags(dynamicRange.color) }
            free.put(canvas)
        }
    }

    func start() throws(DetachedThread.StartError) {
        try DetachedThread.start("dropcut-compose") { [self] in
            produce()
            finished.signal()
        }
        started = true
    }

    /// Opens the readers frame 0 needs (without decoding).
    func openFirstSources() throws {
        guard scheduler.frameCount > 0 else { return }
        for layer in scheduler.plan(frame: 0).layers {
            try sources.open(track: layer.trackID, source: layer.source)
        }
    }

    /// Closes the queues and waits for the thread to leave them.
    func stop() {
        free.close()
        filled.close()
        if started {
            finished.wait()
            started = false
        }
    }

    private func produce() {
        var plan = FramePlan(index: 0, time: .zero, background: .black, layers: [])
        var frames: [LayerPicture] = []
        do {
            for index in 0..<scheduler.frameCount {
                // Decode first, then wait for a canvas: decoding overlaps the encoding
                // of the previous frame even with a single canvas.
                scheduler.plan(frame: index, into: &plan)
                frames.removeAll(keepingCapacity: true)
                for layer in plan.layers {
                    frames.append(try sources.picture(track: layer.trackID, source: layer.source, at: layer.sourceTime,
                                                      sampling: layer.frameSampling, background: plan.background))
                }
                guard let canvas = free.take() else { return }
                try canvas.makeWritable()
                try compositor.composite(plan, frames: frames, into: canvas)
                try overlays.draw(at: plan.time, into: canvas)
                canvas.pts = Int64(index)
                guard filled.put(.frame(canvas, index: index)) else { return }
            }
            filled.put(.end)
        } catch {
            filled.put(.failed(error))
        }
    }
}
