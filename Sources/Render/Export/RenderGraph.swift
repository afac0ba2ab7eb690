import Foundation
import Logging
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// Makes a `RenderPlan` (AVAssetExportSession's role, for one output or a recipe's
/// whole set): group by group, in order, every output of a group from one decode.
///
/// A shared group runs on threads that overlap: one decodes and composites
/// (`FrameProducer`, serving every output frame by frame; the pictures of posters and
/// previews composited from the same frames), one per encoded output encodes and muxes
/// (`FileLane`, `HLSLadderWriter`), each with a small pool of canvases circulating through
/// bounded queues — memory does not grow with the clip, and the steady state allocates no
/// pictures. Every movie is read back (`OutputCheck`) before the group counts as made.
///
/// All or nothing: an error in any output stops every thread of its group, and on any
/// error or cancellation (`ExportError.cancelled`) nothing any group wrote is left. A
/// group whose copied stream fails (`StreamCopyUnsuitable`, or a copy that does not read
/// back as the composition) is made again as the plan's rule says (`RenderPlan.reencoding`).
package final class RenderGraph: Sendable {
    package let plan: RenderPlan
    let logger: Logger

    /// What a group did.
    package struct GroupStatistics: Sendable, Hashable {
        /// The plan's outputs it made.
        package var outputs: [Int]
        /// Frames decoded from each source file.
        package var framesDecoded: [String: Int]
        /// For an encoded output (its position among the group's encoded outputs) scaled
        /// down from another's composite, that output's position (`DecodeSharing.scalesDown`).
        package var scaledFrom: [Int: Int]
        /// The ladders it wrote, in order.
        package var ladders: [HLSExportSession.Ladder] = []
    }

    /// What the render made.
    package struct Made: Sendable {
        /// Each group's figures, in the order they ran (a group made again lists its
        /// replacement's groups).
        package var groups: [GroupStatistics] = []
        /// The ladders written, by output.
        package var ladders: [Int: HLSExportSession.Ladder] = [:]
        /// Outputs whose planned copy (or splice) failed while rendering and which were
        /// encoded instead, by output, with why: what was done, where it is not what the
        /// plan said.
        package var copiesAbandoned: [Int: String] = [:]
    }

    package init(plan: RenderPlan, logger: Logger) {
        self.plan = plan
        self.logger = logger
    }

    /// Makes every output, calling `progress` with an output's index after each of its
    /// frames (encoded outputs only).
    package func run(progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> Made {
        // The work blocks in FFmpeg: keep it off the cooperative thread pool.
        try await BlockingWork.run("dropcut-render") { cancelled in
            try self.run(cancelled: cancelled, progress: progress)
        }
    }

    private func run(cancelled: Cancellation, progress: @escaping @Sendable (Int, ExportProgress) -> Void) throws -> Made {
        for output in plan.outputs { try output.validate() }
        var made = Made()
        var written: [any RenderLane] = []
        do {
            for group in plan.groups {
                if cancelled.isCancelled { throw ExportError.cancelled }
                try make(group, of: plan, as: Array(plan.outputs.indices), into: &made, written: &written,
                         cancelled: cancelled, progress: progress)
            }
        } catch {
            for lane in written { lane.discard() }
            throw cancelled.isCancelled ? ExportError.cancelled : error
        }
        return made
    }

    /// Makes `group` of `plan`, whose outputs are this graph's `index[k]`; its lanes join
    /// `written`. A copy that fails gives way to the group's outputs re-encoded.
    private func make(_ group: RenderPlan.Group, of plan: RenderPlan, as index: [Int], into made: inout Made,
                      written: inout [any RenderLane], cancelled: Cancellation,
                      progress: @escaping @Sendable (Int, ExportProgress) -> Void) throws {
        let report: @Sendable (Int, ExportProgress) -> Void = { progress(index[$0], $1) }
        do {
            let lanes: [(output: Int, lane: any RenderLane)]
            var statistics: GroupStatistics?
            switch group.kind {
            case .pictures:
                try makePictures(group, of: plan, cancelled: cancelled)
                lanes = []
            case .copy:
                lanes = [try makeCopy(group, of: plan, cancelled: cancelled, progress: report)]
            case .shared:
                let (shared, decoded) = try SharedRender(group: group, plan: plan).run(cancelled: cancelled, progress: report)
                lanes = shared
                statistics = GroupStatistics(outputs: group.outputs.map { index[$0] }, framesDecoded: decoded,
                                             scaledFrom: group.scaledFrom)
            }
            do {
                try verify(lanes, of: plan)
            } catch {
                for (_, lane) in lanes { lane.discard() }
                throw error
            }
            for (output, lane) in lanes {
                written.append(lane)
                if let ladder = (lane as? HLSLadderWriter)?.made {
                    made.ladders[index[output]] = ladder
                    statistics?.ladders.append(ladder)
                }
            }
            if let statistics { made.groups.append(statistics) }
        } catch let error where group.outputs.contains(where: { plan.outputs[$0].copies })
                                && (error is StreamCopyUnsuitable || error is OutputCheck.Failure) {
            logger.warning("pass-through abandoned, re-encoding: \(error)", metadata: [
                "outputs": "\(group.outputs.map { plan.outputs[$0].describe })", "reason": "\(error)"])
            let again = plan.reencoding(group)
            let outputs = group.outputs.map { index[$0] }
            for output in group.outputs where plan.outputs[output].copies { made.copiesAbandoned[index[output]] = "\(error)" }
            for replacement in again.groups {
                try make(replacement, of: again, as: outputs, into: &made, written: &written, cancelled: cancelled, progress: progress)
            }
        }
    }

    /// Never a movie called made that has not been read back.
    private func verify(_ lanes: [(output: Int, lane: any RenderLane)], of plan: RenderPlan) throws {
        for (output, lane) in lanes {
            guard let file = lane as? FileLane else { continue }
            let session = plan.outputs[output].session
            try OutputCheck.verify(file.path, composition: session.composition, frameDuration: session.videoComposition.frameDuration)
        }
    }

    /// Pictures with no render to join: each frame found and composited on its own.
    private func makePictures(_ group: RenderPlan.Group, of plan: RenderPlan, cancelled: Cancellation) throws {
        for output in group.outputs {
            guard case let .pictures(tap) = plan.outputs[output].destination else { continue }
            let renderer = try PosterRenderer(session: tap.session)
            for frame in tap.frames {
                if cancelled.isCancelled { throw ExportError.cancelled }
                try tap.receive(try renderer.frame(frame))
            }
        }
    }

    /// A movie whose picture is copied: its packets, on this thread.
    private func makeCopy(_ group: RenderPlan.Group, of plan: RenderPlan, cancelled: Cancellation,
                          progress: @escaping @Sendable (Int, ExportProgress) -> Void) throws -> (output: Int, lane: any RenderLane) {
        let output = group.outputs[0]
        let session = plan.outputs[output].session
        guard case let .file(path) = plan.outputs[output].destination, session.settings.copiesVideo else {
            throw ExportError.invalidComposition(["a copy group of no copied movie"])
        }
        let started = ContinuousClock.now
        let frameCount = FrameScheduler(composition: session.composition, videoComposition: session.videoComposition).frameCount
        // The sources before the encoders, as the ffmpeg CLI opens its inputs first.
        let copier = try session.settings.videoCopy.map { try StreamCopier(path: $0.asset, trackID: $0.trackID, range: $0.range, statingColour: $0.statedColour) }
        let sound = try RenderSound([session], lead: session.videoComposition.frameDuration.multiplied(by: 4, dividedBy: 1),
                                    cancelled: cancelled, logger: session.logger)
        let lane = try FileLane(session, path: path, copier: copier, sound: sound, index: 0)
        session.logger.debug("export started", metadata: [
            "output": "\(path)", "size": "\(session.videoComposition.renderSize)", "frames": "\(frameCount)",
            "video": "\(session.settings.videoSplice.map { "spliced: \($0.plan.copiedFrames) of \(frameCount) frames copied" } ?? "copied")",
            "audio": "\(sound.describe(0))"])
        do {
            try lane.run(from: nil, frameCount: frameCount, isCancelled: { cancelled.isCancelled }, progress: { progress(output, $0) })
        } catch {
            lane.discard()
            throw error
        }
        session.logger.debug("export finished", metadata: [
            "output": "\(path)", "seconds": "\((ContinuousClock.now - started) / .seconds(1))", "video": "copied"])
        return (output, lane)
    }
}

extension RenderOutput {
    /// The output as a log names it: its file, or its ladder's master playlist.
    var describe: String {
        switch destination {
        case let .file(path): path
        case let .ladder(ladder): (ladder.folder as NSString).appendingPathComponent(ladder.masterName)
        case let .pictures(tap): "pictures of frames \(tap.frames)"
        }
    }
}
