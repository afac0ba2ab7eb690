import Foundation
import Logging
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// One shared group of a `RenderPlan` as `RenderGraph` makes it: every source frame
/// decoded once, composited into each encoded output's canvas (its size, fit and
/// overlays; or scaled from the composite of one of its shape) and into the pictures'
/// canvases at their frames; one thread decodes and composites, one per encoded output
/// encodes; the sound set up once (`RenderSound`). The first error of any output stops
/// them all, and every lane's writing is removed.
struct SharedRender {
    let group: RenderPlan.Group
    let plan: RenderPlan

    /// The first error of any output, and what it stops: every output's queues, so the
    /// compositing stage and the other encoders leave them.
    // @unchecked: `error` is guarded by `lock`; the queues are thread-safe.
    private final class Stop: @unchecked Sendable {
        private let stages: [FrameProducer.Output]
        private let lock = NSLock()
        private var first: (any Error)?
        private let stopped = Cancellation()

        init(stages: [FrameProducer.Output]) {
            self.stages = stages
        }

        var isStopped: Bool { stopped.isCancelled }

        var error: (any Error)? {
            lock.lock()
            defer { lock.unlock() }
            return first
        }

        /// Records `error` unless one came first (the others are its consequences), and
        /// closes every queue.
        func abort(_ error: any Error) {
            lock.lock()
            if first == nil { first = error }
            lock.unlock()
            stopped.cancel()
            for stage in stages {
                stage.free.close()
                stage.filled.close()
            }
        }
    }

    /// A lane handed to its thread.
    // @unchecked: built on the coordinating thread, then used by its thread alone until joined.
    private final class Running: @unchecked Sendable {
        let output: Int
        let position: Int
        let lane: any RenderLane
        let stage: FrameProducer.Output

        init(output: Int, position: Int, lane: any RenderLane, stage: FrameProducer.Output) {
            self.output = output
            self.position = position
            self.lane = lane
            self.stage = stage
        }
    }

    /// Makes the group; returns its lanes (each with its output) and the frames decoded
    /// from each source file.
    func run(cancelled: Cancellation, progress: @escaping @Sendable (Int, ExportProgress) -> Void) throws
        -> (lanes: [(output: Int, lane: any RenderLane)], framesDecoded: [String: Int]) {
        let encoded = group.outputs.filter { plan.outputs[$0].isEncoded }
        let sessions = encoded.map { plan.outputs[$0].session }
        let taps = group.outputs.compactMap { output -> PictureTap? in
            if case let .pictures(tap) = plan.outputs[output].destination { return tap }
            return nil
        }
        let first = sessions[0]
        let started = ContinuousClock.now
        let frameDuration = first.videoComposition.frameDuration
        let poolSize = RenderPlan.poolSize(encodedOutputs: encoded.count)

        // The sources first, before the encoders, as the ffmpeg CLI opens its inputs: their
        // probing then peaks while the encoders' buffers do not exist yet.
        var stages: [FrameProducer.Output] = []
        for session in sessions {
            let size = session.videoComposition.renderSize, range = session.settings.dynamicRange
            stages.append(try FrameProducer.Output(
                scheduler: FrameScheduler(composition: session.composition, videoComposition: session.videoComposition),
                renderSize: size, overlays: try OverlayRenderer(layers: session.overlays, renderSize: size, dynamicRange: range,
                                                                   logger: session.logger),
                poolSize: poolSize, dynamicRange: range))
        }
        let producer = FrameProducer(outputs: stages, taps: try taps.map { try PictureTap.Stage($0) },
                                     deinterlace: first.settings.deinterlace, scaledFrom: group.scaledFrom)
        try producer.openFirstSources()
        let frameCount = FrameScheduler(composition: first.composition, videoComposition: first.videoComposition).frameCount
        // The outputs' pictures lie at most a pool and a frame or two apart.
        let sound = try RenderSound(sessions, lead: frameDuration.multiplied(by: Int64(poolSize + 3), dividedBy: 1),
                                    cancelled: cancelled, logger: first.logger)

        var running: [Running] = []
        do {
            for (position, output) in encoded.enumerated() {
                let session = sessions[position]
                let lane: any RenderLane
                switch plan.outputs[output].destination {
                case let .file(path):
                    lane = try FileLane(session, path: path, copier: nil, sound: sound, index: position)
                    session.logger.debug("export started", metadata: [
                        "output": "\(path)", "size": "\(session.videoComposition.renderSize)", "frames": "\(frameCount)",
                        "video": "encoded\(encoded.count > 1 ? ", decode shared by \(encoded.count) outputs" : "")",
                        "audio": "\(sound.describe(position))"])
                case let .ladder(ladder):
                    let writer = try HLSLadderWriter(session, ladder: ladder, sound: sound, index: position)
                    lane = writer
                    session.logger.debug("hls export started", metadata: [
                        "folder": "\(ladder.folder)", "rungs": "\(ladder.rungs.map(\.description).joined(separator: ", "))",
                        "keyframe interval": "\(writer.keyframeInterval)", "frames": "\(frameCount)",
                        "audio": "\(sound.describe(position))"])
                case .pictures:
                    continue
                }
                running.append(Running(output: output, position: position, lane: lane, stage: stages[position]))
            }
        } catch {
            for item in running { item.lane.discard() }
            throw error
        }

        // One thread per output encodes; the first error stops them all. A lone output
        // encodes on this thread, as the compositing stage's only consumer (a thread of
        // its own bought nothing and cost its memory).
        let stop = Stop(stages: stages)
        let done = DispatchGroup()
        @Sendable func encode(_ item: Running) {
            do {
                try item.lane.run(from: item.stage, frameCount: frameCount, isCancelled: { cancelled.isCancelled || stop.isStopped },
                                  progress: { progress(item.output, $0) })
            } catch {
                stop.abort(cancelled.isCancelled ? ExportError.cancelled : error)
            }
        }
        for item in running.dropFirst(running.count == 1 ? 1 : 0) {
            done.enter()
            do {
                try DetachedThread.start("dropcut-encode\(item.position)") {
                    defer { done.leave() }
                    encode(item)
                }
            } catch {
                done.leave()
                stop.abort(error)
            }
        }
        do {
            try producer.start()
        } catch {
            stop.abort(error)
        }
        if running.count == 1, !stop.isStopped { encode(running[0]) }
        done.wait()
        producer.stop()
        if let error = stop.error {
            for item in running { item.lane.discard() }
            throw error
        }
        let framesDecoded = producer.framesDecoded
        first.logger.debug("export finished", metadata: [
            "outputs": "\(encoded.map { plan.outputs[$0].describe })", "frames": "\(frameCount)",
            "seconds": "\((ContinuousClock.now - started) / .seconds(1))",
            "decoded": "\(framesDecoded.values.reduce(0, +)) frames"])
        return (running.map { ($0.output, $0.lane) }, framesDecoded)
    }
}
