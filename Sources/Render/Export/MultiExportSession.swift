import Foundation
import Logging
import MediaIO
import Support
import Timeline

/// Renders several outputs of one timeline — a recipe's deliverables of different sizes,
/// fits and encodings — from one decode: every source frame is decoded once, however
/// many outputs show it; each output composites it into its own canvas (its size, its
/// fit, its overlays), and the outputs' encoders run side by side, each on its own thread
/// with its own muxer. The sound is decoded and mixed once (`SharedAudioMix`) and encoded
/// per output. An HLS ladder of the same timeline is one more lane (`LadderOutput`): its
/// canvas composited once, at its size, like any output's, then scaled to each rung and
/// encoded there on its lane's thread (`HLSLadderWriter`), its audio rendition encoded
/// from the same mix. Outputs of one shape without overlays (`scalesDown`) are composited
/// once, at the largest, and scaled down to the others.
///
/// The outputs must share their timeline (`sharesDecode`): the same composition, the same
/// frame grid and instruction timing, the same audio mix, no stream copied. Threads: one
/// decodes and composites (`FrameProducer`, serving every output frame by frame), one per
/// output encodes and muxes, each with a small pool of canvases circulating through
/// bounded queues — memory does not grow with the clip. An error in any output fails the
/// whole export, and on any error or cancellation no output file is left.
package final class MultiExportSession: Sendable {
    package let sessions: [ExportSession]
    package let paths: [String]
    /// HLS ladders composited from the same decode, each written into its folder.
    package let ladders: [LadderOutput]
    /// Posters and previews composited from the same decode.
    package let taps: [PictureTap]

    /// Canvases per output: one being composited or queued while another is encoded, so
    /// the compositing stage does not wait for each encoder in turn.
    static let framePoolSize = 2

    /// An HLS ladder rendered as a lane of the shared render: written into `folder`
    /// (which exists and is empty), its master playlist named `masterName`.
    package struct LadderOutput: Sendable {
        package let session: HLSExportSession
        package let folder: String
        package let masterName: String

        package init(session: HLSExportSession, folder: String, masterName: String) {
            self.session = session
            self.folder = folder
            self.masterName = masterName
        }
    }

    /// What the export did: frames decoded from each source file, and what each ladder
    /// wrote.
    package struct Statistics: Sendable, Hashable {
        package var framesDecoded: [String: Int]
        /// The ladders written, in `ladders`' order.
        package var ladders: [HLSExportSession.Ladder]
        /// The outputs (indices into `sessions` followed by `ladders`) whose frames were
        /// scaled down from another's composite (`scalesDown`), each with that output.
        package var scaledFrom: [Int: Int]

        package init(framesDecoded: [String: Int], ladders: [HLSExportSession.Ladder] = [], scaledFrom: [Int: Int] = [:]) {
            self.framesDecoded = framesDecoded
            self.ladders = ladders
            self.scaledFrom = scaledFrom
        }
    }

    /// `sessions[i]` written to `paths[i]`, the ladders of `ladders` and the pictures of
    /// `taps`; every session must share its decode with the first (`sharesDecode`), every
    /// ladder too (`sharesLadder`), every tap its pictures (`sharesPictures`).
    package init(sessions: [ExportSession], paths: [String], ladders: [LadderOutput] = [], taps: [PictureTap] = []) {
        precondition(!sessions.isEmpty && sessions.count == paths.count)
        precondition(sessions.allSatisfy { Self.sharesDecode(sessions[0], $0) }, "outputs that do not share their timeline")
        precondition(ladders.allSatisfy { Self.sharesLadder(sessions[0], $0.session) }, "a ladder of another timeline")
        precondition(taps.allSatisfy { Self.sharesPictures(sessions[0], $0.session) }, "pictures of another timeline")
        self.sessions = sessions
        self.paths = paths
        self.ladders = ladders
        self.taps = taps
    }

    /// Whether `b`'s pictures can be composited from the source frames `a` decodes: the
    /// same composition and the same frame grid and instruction timing (how either
    /// encodes, or copies, does not matter to a picture).
    package static func sharesPictures(_ a: ExportSession, _ b: ExportSession) -> Bool {
        a.composition == b.composition && a.settings.deinterlace == b.settings.deinterlace
            && Timing(a.videoComposition) == Timing(b.videoComposition)
    }

    /// Whether `a` and `b` can be rendered from one decode: the same composition (tracks,
    /// sources and source times), the same frame grid and instruction timing (so every
    /// frame draws the same source frames), the same audio mix in the same format, and
    /// no video copied (a copy has no decode to share). Sound copied from the same source
    /// is shared too: each output copies its packets (nothing to decode).
    package static func sharesDecode(_ a: ExportSession, _ b: ExportSession) -> Bool {
        guard a.settings.videoCopy == nil, b.settings.videoCopy == nil, a.settings.audioCopy == b.settings.audioCopy else { return false }
        return sharesPictures(a, b) && a.audioMix == b.audioMix
            && a.settings.audioSampleRate == b.settings.audioSampleRate && a.settings.audioChannels == b.settings.audioChannels
            && a.settings.loudnessTarget == b.settings.loudnessTarget
    }

    /// Whether `ladder` can be a lane of a render of `video`: its pictures composited from
    /// the source frames `video` decodes (`sharesPictures`), `video` decoding them (not
    /// copying). A ladder is always encoded; its sound is the render's shared mix when it
    /// is the same mix (`sharesMix`), else mixed on its own lane as its own render mixes it.
    package static func sharesLadder(_ video: ExportSession, _ ladder: HLSExportSession) -> Bool {
        video.settings.videoCopy == nil && sharesPictures(video, ladder.videoSession)
    }

    /// Whether `b` encodes the very mix `a` encodes (neither copying its sound): the same
    /// composition, audio mix, format and loudness target.
    static func sharesMix(_ a: ExportSession, _ b: ExportSession) -> Bool {
        a.settings.audioCopy == nil && b.settings.audioCopy == nil && a.composition == b.composition && a.audioMix == b.audioMix
            && a.settings.audioSampleRate == b.settings.audioSampleRate && a.settings.audioChannels == b.settings.audioChannels
            && a.settings.loudnessTarget == b.settings.loudnessTarget
    }

    /// Whether `small`'s every frame is `large`'s scaled down: the same pictures
    /// (`sharesPictures`), in the same dynamic range, neither with overlays (they are
    /// placed on each canvas in pixels), `small` smaller with exactly `large`'s shape, and
    /// every layer placed as in `large` then scaled by that ratio (the same `fit`; crops
    /// the same). Such an output is scaled from `large`'s composite rather than composited
    /// itself: not the same pixels (one more resampling), the same picture (`SharedDecodeTests`
    /// bounds the difference by PSNR).
    package static func scalesDown(_ large: ExportSession, to small: ExportSession) -> Bool {
        let a = large.videoComposition, b = small.videoComposition
        let big = a.renderSize, size = b.renderSize
        guard large.overlays.isEmpty, small.overlays.isEmpty, large.settings.dynamicRange == small.settings.dynamicRange,
              size.width < big.width, size.width * big.height == size.height * big.width,
              sharesPictures(large, small), a.instructions.count == b.instructions.count else { return false }
        let scale = Timeline.AffineTransform(scaleX: Double(size.width) / Double(big.width), y: Double(size.height) / Double(big.height))
        func scaled(_ x: Timeline.AffineTransform, _ y: Timeline.AffineTransform) -> Bool {
            let z = x.concatenating(scale)
            return zip([z.a, z.b, z.c, z.d, z.tx, z.ty], [y.a, y.b, y.c, y.d, y.tx, y.ty])
                .allSatisfy { abs($0 - $1) <= 1e-9 * Swift.max(1, abs($0)) }
        }
        for (x, y) in zip(a.instructions, b.instructions) {
            guard x.layerInstructions.count == y.layerInstructions.count else { return false }
            for (p, q) in zip(x.layerInstructions, y.layerInstructions) {
                // The default is the value only before the first keyframe.
                let keyed = p.transform.keyframes.first.map { $0.start <= x.timeRange.start } ?? false
                guard p.cropRectangle == q.cropRectangle, p.transform.keyframes.count == q.transform.keyframes.count,
                      keyed || scaled(p.transform.defaultValue, q.transform.defaultValue) else { return false }
                for pair in zip(p.transform.keyframes, q.transform.keyframes) {
                    switch pair {
                    case let (.set(v, t), .set(w, u)):
                        guard t == u, scaled(v, w) else { return false }
                    case let (.ramp(v0, v1, r), .ramp(w0, w1, s)):
                        guard r == s, scaled(v0, w0), scaled(v1, w1) else { return false }
                    default:
                        return false
                    }
                }
            }
        }
        return true
    }

    /// For each output of `outputs` that another scales down to (`scalesDown`), the
    /// largest such, composited itself.
    static func scaledFrom(_ outputs: [ExportSession]) -> [Int: Int] {
        var sources: [Int: Int] = [:]
        let area = outputs.map { $0.videoComposition.renderSize.width * $0.videoComposition.renderSize.height }
        for index in outputs.indices {
            let larger = outputs.indices.filter { area[$0] > area[index] && scalesDown(outputs[$0], to: outputs[index]) }
            if let largest = larger.max(by: { area[$0] < area[$1] }) { sources[index] = largest }
        }
        // Scaled only from an output composited itself (the largest of its shape is).
        return sources.filter { sources[$0.value] == nil }
    }

    /// What decides which source frames a video composition draws, and nothing of how
    /// (sizes, transforms, crops are each output's own).
    private struct Timing: Hashable {
        struct Layer: Hashable {
            var trackID: TrackID
            var opacity: Ramp<Double>
            var frameSampling: FrameSampling
        }
        struct Instruction: Hashable {
            var timeRange: TimeRange
            var backgroundColor: Color?
            var layers: [Layer]
        }
        var frameDuration: MediaTime
        var backgroundColor: Color
        var instructions: [Instruction]

        init(_ videoComposition: VideoComposition) {
            frameDuration = videoComposition.frameDuration
            backgroundColor = videoComposition.backgroundColor
            instructions = videoComposition.instructions.map { instruction in
                Instruction(timeRange: instruction.timeRange, backgroundColor: instruction.backgroundColor,
                            layers: instruction.layerInstructions.map {
                                Layer(trackID: $0.trackID, opacity: $0.opacity, frameSampling: $0.frameSampling)
                            })
            }
        }
    }

    /// Exports every output, calling `progress` with an output's index after each of its
    /// frames. On error or cancellation (`ExportError.cancelled`) no output is left.
    package func export(progress: @escaping @Sendable (Int, ExportProgress) -> Void = { _, _ in }) async throws -> Statistics {
        // The work blocks in FFmpeg: keep it off the cooperative thread pool.
        try await BlockingWork.run("dropcut-fanout") { cancelled in
            try self.run(cancelled: cancelled, progress: progress)
        }
    }

    /// One output's encoding side, handed to its thread: a file's muxer and encoders, or
    /// a ladder's writer.
    // @unchecked: built on the coordinating thread, then used by the output's thread alone
    // until it is joined.
    private final class Lane: @unchecked Sendable {
        let index: Int
        let stage: FrameProducer.Output
        let muxer: Muxer?
        var video: (encoder: VideoEncoder, stream: Int)?
        var audio: (any AudioOutput)?
        var captions: CaptionStreamStage?
        let ladder: (writer: HLSLadderWriter, masterName: String)?
        /// What the ladder wrote, once it has.
        var made: HLSExportSession.Ladder?
        var finished = false

        init(index: Int, stage: FrameProducer.Output, muxer: Muxer) {
            self.index = index
            self.stage = stage
            self.muxer = muxer
            ladder = nil
        }

        init(index: Int, stage: FrameProducer.Output, ladder: HLSLadderWriter, masterName: String) {
            self.index = index
            self.stage = stage
            muxer = nil
            self.ladder = (ladder, masterName)
        }

        /// Stops writing and removes what the lane wrote; a finished file stays (its muxer
        /// no longer owns it), a ladder's files all go.
        func abandon() {
            muxer?.abandon()
            ladder?.writer.abandon()
        }
    }

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

    private func run(cancelled: Cancellation, progress: @escaping @Sendable (Int, ExportProgress) -> Void) throws -> Statistics {
        for session in sessions { try session.validate() }
        for ladder in ladders { try ladder.session.validate() }
        let first = sessions[0]
        let started = ContinuousClock.now
        let frameDuration = first.videoComposition.frameDuration

        // The sources first, before the encoders (as `ExportSession` does).
        var stages: [FrameProducer.Output] = []
        let outputSessions = sessions + ladders.map(\.session.videoSession)
        // Outputs of the same shape: composited once, at the largest, scaled down to the others.
        let scaledFrom = Self.scaledFrom(outputSessions)
        for session in outputSessions {
            let size = session.videoComposition.renderSize
            let range = session.settings.dynamicRange
            stages.append(try FrameProducer.Output(
                scheduler: FrameScheduler(composition: session.composition, videoComposition: session.videoComposition),
                renderSize: size, overlays: try OverlayRenderer(layers: session.overlays, renderSize: size, dynamicRange: range,
                                                                   logger: session.logger),
                poolSize: Self.framePoolSize, dynamicRange: range))
        }
        let producer = FrameProducer(outputs: stages, taps: try taps.map { try PictureTap.Stage($0) },
                                     deinterlace: first.settings.deinterlace, scaledFrom: scaledFrom)
        try producer.openFirstSources()
        let frameCount = FrameScheduler(composition: first.composition, videoComposition: first.videoComposition).frameCount
        // Copied sound (pass-through): each output copies the packets itself.
        var copiers: [StreamCopier] = []
        if let copy = first.settings.audioCopy {
            for _ in sessions { copiers.append(try StreamCopier(path: copy.asset, trackID: copy.trackID, range: copy.range)) }
        }
        let audioFormat = copiers.isEmpty ? try first.audioFormat() : nil
        var gain: Float = 1
        if let target = first.settings.loudnessTarget, let format = audioFormat {
            gain = try first.measureLoudnessGain(format, target: target, cancelled: cancelled)
        }

        // A ladder whose sound is the videos' mix encodes it from the shared mix; one of
        // another mix (or beside copied sound) mixes its own on its lane.
        let ladderSharesMix = ladders.map { audioFormat != nil && Self.sharesMix(first, $0.session.videoSession) }
        let mixConsumers = sessions.count + ladderSharesMix.filter { $0 }.count
        let outputs = sessions.count + ladders.count

        var lanes: [Lane] = []
        do {
            var sharedMix: SharedAudioMix?
            for (index, session) in sessions.enumerated() {
                let muxer = try Muxer(path: paths[index])
                let lane = Lane(index: index, stage: stages[index], muxer: muxer)
                lanes.append(lane)
                let settings = session.settings
                let encoder = try VideoEncoder(settings: VideoEncoderSettings(
                    codec: settings.videoCodec, size: session.videoComposition.renderSize, frameDuration: frameDuration,
                    crf: settings.crf, preset: settings.preset, pixelFormat: settings.dynamicRange.pixelFormat,
                    color: settings.dynamicRange.color), globalHeader: muxer.needsGlobalHeader)
                lane.video = (encoder, try muxer.addStream(for: encoder))
                if !copiers.isEmpty {
                    try copiers[index].addStream(to: muxer)
                    lane.audio = AudioCopyStage(copier: copiers[index])
                } else if let format = audioFormat {
                    let encoder = try AudioEncoder(settings: AudioEncoderSettings(
                        sampleRate: format.sampleRate, channels: format.channels, bitrate: settings.audioBitrate),
                        globalHeader: muxer.needsGlobalHeader)
                    if sharedMix == nil {
                        let mixer = AudioMixer(composition: first.composition, audioMix: first.audioMix, sampleRate: format.sampleRate,
                                               channels: format.channels, maximumBlock: ExportSession.audioBlock)
                        try mixer.openFirstSources()
                        precondition(encoder.frameSize <= mixer.maximumBlock, "AAC frame of \(encoder.frameSize) samples")
                        // The outputs' pictures lie at most a pool and a frame or two apart.
                        sharedMix = try SharedAudioMix(
                            mixer: mixer, blockSize: encoder.frameSize,
                            totalSamples: first.composition.duration.ticks(in: Int32(format.sampleRate)) ?? 0, gain: gain,
                            consumers: mixConsumers, lead: frameDuration.multiplied(by: Int64(Self.framePoolSize + 3), dividedBy: 1))
                    }
                    lane.audio = try SharedAudioStage(encoder: encoder, stream: try muxer.addStream(for: encoder), mix: sharedMix!,
                                                      consumer: index)
                }
                if !settings.softCaptions.isEmpty { lane.captions = try CaptionStreamStage(cues: settings.softCaptions, muxer: muxer) }
                try muxer.writeHeader(creationTime: settings.creationTime ?? session.firstVideoCreationTime())
                session.logger.debug("export started", metadata: [
                    "output": "\(paths[index])", "size": "\(session.videoComposition.renderSize)", "frames": "\(frameCount)",
                    "video": "encoded, decode shared by \(outputs) outputs",
                    "audio": "\(!copiers.isEmpty ? "copied" : audioFormat.map { "\($0.sampleRate) Hz \($0.channels) ch, mixed once" } ?? "none")"])
            }
            var consumer = sessions.count
            for (k, ladder) in ladders.enumerated() {
                let index = sessions.count + k
                var audio: HLSLadderWriter.Audio?
                if ladderSharesMix[k], let format = audioFormat, let mix = sharedMix {
                    let reader = consumer
                    consumer += 1
                    audio = HLSLadderWriter.Audio(sampleRate: format.sampleRate, channels: format.channels) { encoder, stream in
                        try SharedAudioStage(encoder: encoder, stream: stream, mix: mix, consumer: reader)
                    }
                } else {
                    audio = try ladder.session.ownAudio(cancelled: cancelled)
                }
                let writer = try ladder.session.writer(folder: ladder.folder, audio: audio)
                lanes.append(Lane(index: index, stage: stages[index], ladder: writer, masterName: ladder.masterName))
                ladder.session.videoSession.logger.debug("hls export started", metadata: [
                    "folder": "\(ladder.folder)", "rungs": "\(ladder.session.rungs.map(\.description).joined(separator: ", "))",
                    "keyframe interval": "\(ladder.session.keyframeInterval)", "frames": "\(frameCount)",
                    "video": "decode shared by \(outputs) outputs",
                    "audio": "\(!writer.hasAudio ? "none" : ladderSharesMix[k] ? "mixed once" : "mixed on its own")"])
            }
            precondition(consumer == mixConsumers || sharedMix == nil, "\(consumer) readers of a mix for \(mixConsumers)")
        } catch {
            for lane in lanes { lane.abandon() }
            throw error
        }

        // One thread per output encodes; the first error stops them all.
        let stop = Stop(stages: stages)
        let done = DispatchGroup()
        for lane in lanes {
            done.enter()
            do {
                try DetachedThread.start("dropcut-encode\(lane.index)") {
                    defer { done.leave() }
                    do {
                        if let ladder = lane.ladder {
                            _ = try ladder.writer.encodeFrames(
                                from: lane.stage, frameCount: frameCount, isCancelled: { cancelled.isCancelled || stop.isStopped },
                                progress: { progress(lane.index, $0) })
                            lane.made = try ladder.writer.writeMaster(masterName: ladder.masterName, frameCount: frameCount)
                        } else {
                            guard let video = lane.video, let muxer = lane.muxer else {
                                throw ExportError.invalidComposition(["no video stage"])
                            }
                            _ = try ExportSession.encodeFrames(
                                from: lane.stage, encoder: video.encoder, stream: video.stream, audio: lane.audio,
                                captions: lane.captions, muxer: muxer,
                                frameDuration: frameDuration, frameCount: frameCount,
                                isCancelled: { cancelled.isCancelled || stop.isStopped },
                                progress: { progress(lane.index, $0) })
                        }
                        lane.finished = true
                    } catch {
                        stop.abort(cancelled.isCancelled ? ExportError.cancelled : error)
                    }
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
        done.wait()
        producer.stop()
        let framesDecoded = producer.framesDecoded

        if let error = stop.error {
            // All or nothing: outputs already complete go too.
            for lane in lanes {
                if lane.finished, lane.ladder == nil { _ = unlink(paths[lane.index]) } else { lane.abandon() }
            }
            throw error
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        first.logger.debug("export finished", metadata: [
            "outputs": "\(paths)", "frames": "\(frameCount)", "seconds": "\(seconds)",
            "decoded": "\(framesDecoded.values.reduce(0, +)) frames"])
        return Statistics(framesDecoded: framesDecoded, ladders: lanes.compactMap(\.made), scaledFrom: scaledFrom)
    }
}
