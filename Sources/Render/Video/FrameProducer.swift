import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// The decoding + compositing stage, on its own thread: plans each frame, fetches the
/// layers' source frames, composites into a pooled canvas and queues it for encoding.
///
/// It serves one output or several (`SharedRender`): outputs drawn from the same
/// timeline on the same frame grid ask for the same source frames at every frame, so
/// the frames are fetched once, through one `VideoSources`, and composited into each
/// output's own canvas by its own compositor and overlays.
// @unchecked: its decoders and compositors (not Sendable) are handed to the composite thread at `start`.
final class FrameProducer: @unchecked Sendable {
    enum Item {
        case frame(VideoFrame, index: Int)
        case failed(any Error)
        case end
    }

    /// One output's side of the stage: its frame grid, its compositor and overlays, and
    /// the canvases circulating between this stage and the output's encoder.
    // @unchecked: the compositor and plan are used by the composite thread alone; the
    // queues are thread-safe.
    final class Output: @unchecked Sendable {
        let free: BoundedQueue<VideoFrame>
        let filled: BoundedQueue<Item>
        fileprivate let scheduler: FrameScheduler
        fileprivate let compositor: VideoCompositor
        fileprivate let overlays: OverlayRenderer
        /// The frame being planned (its layer storage reused frame to frame).
        fileprivate var plan = FramePlan(index: 0, time: .zero, background: .black, layers: [])

        init(scheduler: FrameScheduler, renderSize: PixelSize, overlays: OverlayRenderer, poolSize: Int,
             dynamicRange: OutputDynamicRange) throws {
            self.scheduler = scheduler
            self.overlays = overlays
            compositor = VideoCompositor(renderSize: renderSize, dynamicRange: dynamicRange)
            free = BoundedQueue(capacity: poolSize)
            // Room for every canvas and the end: putting `.end` or `.failed` never waits.
            filled = BoundedQueue(capacity: poolSize + 1)
            for _ in 0..<poolSize {
                let canvas = try VideoFrame(width: renderSize.width, height: renderSize.height, pixelFormat: dynamicRange.pixelFormat)
                if dynamicRange != .sdr { canvas.setColorTags(dynamicRange.color) }
                free.put(canvas)
            }
        }
    }

    let outputs: [Output]
    /// The output frames made, in order: all of them, or the pieces a splice encodes.
    let frameRange: Range<Int>
    /// For each output, the output whose canvas it is scaled down from (the same picture,
    /// larger: `DecodeSharing.scalesDown`), or nil when it is composited itself.
    private let scaledFrom: [Int?]
    /// Outputs composited (in order), then those scaled from them; and whether an output's
    /// canvas is scaled from, so that it is queued only once they are (its encoder never
    /// touches it while it is read).
    private let order: [Int]
    private let isScaledFrom: [Bool]
    private let scalers: [Scaler]
    /// Each output's canvas of the frame being made.
    private var canvases: [VideoFrame?]
    /// Writers of a few frames (posters, previews), served on this thread.
    private let taps: [PictureTap.Stage]
    private let sources: VideoSources
    private let finished = DispatchSemaphore(value: 0)
    /// Whether the thread runs (`stop` then waits for it).
    private var started = false
    /// The pictures of the frame being composited (storage reused).
    private var frames: [LayerPicture] = []

    /// A stage for several outputs; their schedulers must plan the same layers from the
    /// same sources at every frame (`DecodeSharing.sharesDecode`) — checked frame by
    /// frame all the same.
    ///
    /// `scaledFrom` maps an output's index to the output whose canvas it is scaled down
    /// from rather than composited (one that is composited itself).
    init(outputs: [Output], taps: [PictureTap.Stage] = [], deinterlace: Bool, scaledFrom: [Int: Int] = [:],
         frames: Range<Int>? = nil) {
        precondition(!outputs.isEmpty)
        frameRange = frames ?? 0..<outputs[0].scheduler.frameCount
        precondition(scaledFrom.allSatisfy { outputs.indices.contains($0.key) && scaledFrom[$0.value] == nil && $0.key != $0.value },
                     "a canvas scaled from one that is not composited")
        sources = VideoSources(deinterlace: deinterlace)
        self.outputs = outputs
        self.taps = taps
        self.scaledFrom = outputs.indices.map { scaledFrom[$0] }
        order = outputs.indices.filter { scaledFrom[$0] == nil } + outputs.indices.filter { scaledFrom[$0] != nil }
        isScaledFrom = outputs.indices.map { index in scaledFrom.values.contains(index) }
        scalers = outputs.indices.map { _ in Scaler() }
        canvases = Array(repeating: nil, count: outputs.count)
    }

    convenience init(scheduler: FrameScheduler, renderSize: PixelSize, overlays: OverlayRenderer, poolSize: Int, deinterlace: Bool,
                     dynamicRange: OutputDynamicRange = .sdr, frames: Range<Int>? = nil) throws {
        self.init(outputs: [try Output(scheduler: scheduler, renderSize: renderSize, overlays: overlays, poolSize: poolSize,
                                       dynamicRange: dynamicRange)],
                  deinterlace: deinterlace, frames: frames)
    }

    /// The one output's queues (a single-output stage).
    var free: BoundedQueue<VideoFrame> { outputs[0].free }
    var filled: BoundedQueue<Item> { outputs[0].filled }

    /// Frames decoded so far from each movie file (read once the thread has stopped).
    var framesDecoded: [String: Int] { sources.framesDecoded }

    func start() throws(DetachedThread.StartError) {
        try DetachedThread.start("dropcut-compose") { [self] in
            produce()
            finished.signal()
        }
        started = true
    }

    /// Opens the readers frame 0 needs (without decoding).
    func openFirstSources() throws {
        let scheduler = outputs[0].scheduler
        guard !frameRange.isEmpty else { return }
        for layer in scheduler.plan(frame: frameRange.lowerBound).layers {
            try sources.open(track: layer.trackID, source: layer.source)
        }
    }

    /// Closes the queues and waits for the thread to leave them.
    func stop() {
        for output in outputs {
            output.free.close()
            output.filled.close()
        }
        if started {
            finished.wait()
            started = false
        }
    }

    private func produce() {
        do {
            for index in frameRange {
                // Decode first, then wait for a canvas: decoding overlaps the encoding
                // of the previous frame even with a single canvas.
                for output in outputs { output.scheduler.plan(frame: index, into: &output.plan) }
                let plan = outputs[0].plan
                frames.removeAll(keepingCapacity: true)
                for layer in plan.layers {
                    frames.append(try sources.picture(track: layer.trackID, source: layer.source, at: layer.sourceTime,
                                                      sampling: layer.frameSampling, background: plan.background))
                }
                for k in order {
                    let output = outputs[k]
                    // A picture stays valid only until its track's next request: another
                    // output must show exactly these.
                    if output !== outputs[0], !Self.sameSources(output.plan, plan) {
                        throw ExportError.invalidComposition(["frame \(index): the outputs do not show the same source frames"])
                    }
                    guard let canvas = output.free.take() else { return }
                    try canvas.makeWritable()
                    if let source = scaledFrom[k], let large = canvases[source] {
                        // The same picture, larger: scaled down, not composited again.
                        try scalers[k].scale(large, region: PixelRect(size: outputs[source].compositor.renderSize), into: canvas,
                                             region: PixelRect(size: output.compositor.renderSize))
                    } else {
                        try output.compositor.composite(output.plan, frames: frames, into: canvas)
                        try output.overlays.draw(at: output.plan.time, into: canvas)
                    }
                    canvas.pts = Int64(index)
                    if isScaledFrom[k] {
                        canvases[k] = canvas
                    } else {
                        guard output.filled.put(.frame(canvas, index: index)) else { return }
                    }
                }
                for k in outputs.indices where isScaledFrom[k] {
                    guard let canvas = canvases[k] else { continue }
                    canvases[k] = nil
                    guard outputs[k].filled.put(.frame(canvas, index: index)) else { return }
                }
                for tap in taps where tap.wants(index) {
                    tap.scheduler.plan(frame: index, into: &tap.plan)
                    if !Self.sameSources(tap.plan, plan) {
                        throw ExportError.invalidComposition(["frame \(index): a picture does not show the videos' source frames"])
                    }
                    try tap.canvas.makeWritable()
                    try tap.compositor.composite(tap.plan, frames: frames, into: tap.canvas)
                    try tap.overlays.draw(at: tap.plan.time, into: tap.canvas)
                    while tap.wants(index) {
                        try tap.tap.receive(tap.canvas)
                        tap.next += 1
                    }
                }
            }
            for output in outputs { output.filled.put(.end) }
        } catch {
            for output in outputs { output.filled.put(.failed(error)) }
        }
    }

    /// Whether two plans draw the same source frames, layer by layer.
    private static func sameSources(_ a: FramePlan, _ b: FramePlan) -> Bool {
        guard a.layers.count == b.layers.count, a.background == b.background else { return false }
        for (x, y) in zip(a.layers, b.layers) {
            guard x.trackID == y.trackID, x.sourceTime == y.sourceTime, x.frameSampling == y.frameSampling,
                  x.source == y.source else { return false }
        }
        return true
    }
}
