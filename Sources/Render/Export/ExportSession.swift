import Foundation
import Logging
import MediaIO
import Support
import Timeline

/// Renders a composition to a movie file (AVAssetExportSession's role): every output
/// frame on the video composition's frame grid is planned, its layers' source frames
/// fetched, composited and encoded; the audio tracks are mixed through the audio mix's
/// volume timelines and encoded to AAC; both are muxed into MP4/MOV with the index
/// first.
///
/// Two stages run on their own threads and overlap: decoding + compositing, and
/// encoding + muxing (+ audio). A small pool of output frames circulates between them
/// through bounded queues, so memory does not grow with clip length and the steady
/// state allocates no pictures. Cancelling the task stops both stages and deletes the
/// partial file.
public final class ExportSession: Sendable {
    public let composition: Composition
    public let videoComposition: VideoComposition
    public let audioMix: AudioMix
    /// Drawn over the composited video, in order (later on top).
    public let overlays: [OverlayLayer]
    public let settings: ExportSettings
    let logger: Logger

    /// Output frames in flight between the stages: one being composited while the other
    /// is encoded. (A third, queued between them, bought no speed on 2 cores and cost a
    /// frame of memory.)
    static let framePoolSize = 1
    /// The most samples mixed at once: AAC's frame (1024), with room to spare.
    static let audioBlock = 2048

    public init(composition: Composition, videoComposition: VideoComposition, audioMix: AudioMix = AudioMix(),
                overlays: [OverlayLayer] = [], settings: ExportSettings = ExportSettings(), logger: Logger) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.audioMix = audioMix
        self.overlays = overlays
        self.settings = settings
        self.logger = logger
    }

    /// Exports to `path` (`.mp4`, `.mov` or `.m4v`), calling `progress` after each frame.
    /// On error or cancellation (`ExportError.cancelled`) nothing is left at `path`.
    public func export(to path: String, progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws {
        // The work blocks in FFmpeg: keep it off the cooperative thread pool.
        try await BlockingWork.run("dropcut-encode") { cancelled in
            try self.run(to: path, cancelled: cancelled, progress: progress)
        }
    }

    // MARK: The encoding stage

    private func run(to path: String, cancelled: Cancellation,
                     progress: @Sendable (ExportProgress) -> Void) throws {
        try validate()
        do {
            try run(to: path, settings: settings, cancelled: cancelled, progress: progress)
        } catch let unsuitable as StreamCopyUnsuitable where settings.videoCopy != nil || settings.audioCopy != nil {
            // What was written is gone (the muxer abandoned it): encode every stream, as
            // for any clip, so the decoder conceals the damage as it does elsewhere.
            logger.warning("pass-through abandoned, re-encoding", metadata: ["output": "\(path)", "reason": "\(unsuitable)"])
            var encoded = settings
            encoded.videoCopy = nil
            encoded.audioCopy = nil
            try run(to: path, settings: encoded, cancelled: cancelled, progress: progress)
        }
    }

    private func run(to path: String, settings: ExportSettings, cancelled: Cancellation,
                     progress: @Sendable (ExportProgress) -> Void) throws {
        let scheduler = FrameScheduler(composition: composition, videoComposition: videoComposition)
        let frameCount = scheduler.frameCount
        let renderSize = videoComposition.renderSize
        let creationTime = settings.creationTime ?? firstVideoCreationTime()
        let started = ContinuousClock.now

        // Open the sources before the encoders, as the ffmpeg CLI opens its inputs first:
        // their stream probing then peaks while the encoders' buffers do not exist yet.
        // A copied stream (pass-through) needs only its source.
        let videoCopier = try settings.videoCopy.map { copy in
            try StreamCopier(path: copy.asset, trackID: copy.trackID, range: copy.range)
        }
        let audioCopier = try settings.audioCopy.map { copy in
            try StreamCopier(path: copy.asset, trackID: copy.trackID, range: copy.range)
        }
        var stage: FrameProducer?
        if videoCopier == nil {
            let overlayRenderer = try OverlayRenderer(layers: overlays, renderSize: renderSize, dynamicRange: settings.dynamicRange,
                                                      logger: logger)
            stage = try FrameProducer(scheduler: scheduler, renderSize: renderSize, overlays: overlayRenderer,
                                      poolSize: Self.framePoolSize, deinterlace: settings.deinterlace,
                                      dynamicRange: settings.dynamicRange)
            try stage?.openFirstSources()
        }
        let audioFormat = audioCopier == nil ? try audioFormat() : nil
        // Loudness normalisation measures the whole mix first (a second decode of the
        // sound only), so one gain serves the whole output.
        var loudnessGain: Float = 1
        if let target = settings.loudnessTarget, let format = audioFormat {
            loudnessGain = try measureLoudnessGain(format, target: target, cancelled: cancelled)
        }
        let mixer = try audioFormat.map { format in
            let mixer = AudioMixer(composition: composition, audioMix: audioMix, sampleRate: format.sampleRate,
                                   channels: format.channels, maximumBlock: Self.audioBlock)
            try mixer.openFirstSources()
            return mixer
        }

        let muxer = try Muxer(path: path)
        do {
            var video: (encoder: VideoEncoder, stream: Int)?
            if let videoCopier {
                try videoCopier.addStream(to: muxer)
            } else {
                let encoder = try VideoEncoder(settings: VideoEncoderSettings(
                    codec: settings.videoCodec, size: renderSize, frameDuration: videoComposition.frameDuration,
                    crf: settings.crf, preset: settings.preset, pixelFormat: settings.dynamicRange.pixelFormat,
                    color: settings.dynamicRange.color), globalHeader: muxer.needsGlobalHeader)
                video = (encoder, try muxer.addStream(for: encoder))
            }
            var audio: (any AudioOutput)?
            if let audioCopier {
                try audioCopier.addStream(to: muxer)
                audio = AudioCopyStage(copier: audioCopier)
            } else if let mixer {
                let encoder = try AudioEncoder(settings: AudioEncoderSettings(
                    sampleRate: mixer.sampleRate, channels: mixer.channels, bitrate: settings.audioBitrate),
                    globalHeader: muxer.needsGlobalHeader)
                audio = try AudioStage(encoder: encoder, stream: try muxer.addStream(for: encoder), mixer: mixer,
                                       totalSamples: composition.duration.ticks(in: Int32(mixer.sampleRate)) ?? 0,
                                       gain: loudnessGain)
            }
            let captions = settings.softCaptions.isEmpty ? nil : try CaptionStreamStage(cues: settings.softCaptions, muxer: muxer)
            try muxer.writeHeader(creationTime: creationTime)
            logger.debug("export started", metadata: [
                "output": "\(path)", "size": "\(renderSize)", "frames": "\(frameCount)",
                "video": "\(videoCopier == nil ? "encoded" : "copied")",
                "audio": "\(audioCopier != nil ? "copied" : mixer.map { "\($0.sampleRate) Hz \($0.channels) ch" } ?? "none")"])

            if let videoCopier {
                // Pass-through: the video's packets as they are, the audio kept up with
                // them by decode time.
                var written = 0
                while let time = try videoCopier.nextTime() {
                    if cancelled.isCancelled { throw ExportError.cancelled }
                    try audio?.encode(until: time, into: muxer)
                    try captions?.write(until: time, into: muxer)
                    _ = try videoCopier.copyNext(into: muxer)
                    written += 1
                    progress(ExportProgress(framesWritten: min(written, frameCount), frameCount: frameCount))
                }
                if cancelled.isCancelled { throw ExportError.cancelled }
                try audio?.finish(into: muxer)
                try captions?.finish(into: muxer)
                try muxer.finish()
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                logger.debug("export finished", metadata: [
                    "output": "\(path)", "packets": "\(written)", "seconds": "\(seconds)", "video": "copied"])
                return
            }
            guard let stage, let video else { throw ExportError.invalidComposition(["no video stage"]) }
            try stage.start()
            let written = try Self.encodeFrames(from: stage.outputs[0], encoder: video.encoder, stream: video.stream, audio: audio,
                                                captions: captions, muxer: muxer, frameDuration: videoComposition.frameDuration,
                                                frameCount: frameCount, isCancelled: { cancelled.isCancelled }, progress: progress)
            stage.stop()
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            logger.debug("export finished", metadata: [
                "output": "\(path)", "frames": "\(written)", "seconds": "\(seconds)"])
        } catch {
            stage?.stop()
            muxer.abandon()
            throw error
        }
    }

    /// The encoding loop of one output: takes composited canvases from `stage` in order,
    /// encodes and muxes each, hands the canvas back and keeps the audio up with the
    /// picture; at the end flushes both encoders and finishes the file. Returns the frames
    /// written. (`MultiExportSession` runs one per output, each on its own thread.)
    static func encodeFrames(from stage: FrameProducer.Output, encoder: VideoEncoder, stream: Int, audio: (any AudioOutput)?,
                             captions: CaptionStreamStage? = nil, muxer: Muxer, frameDuration: MediaTime, frameCount: Int, isCancelled: () -> Bool,
                             progress: (ExportProgress) -> Void) throws -> Int {
        var written = 0
        while let item = stage.filled.take() {
            if isCancelled() { throw ExportError.cancelled }
            switch item {
            case let .frame(canvas, index):
                try encoder.send(canvas)
                try muxer.drain(encoder, into: stream)
                stage.free.put(canvas)
                let frameEnd = frameDuration.multiplied(by: Int64(index + 1), dividedBy: 1)
                try audio?.encode(until: frameEnd, into: muxer)
                try captions?.write(until: frameEnd, into: muxer)
                written += 1
                progress(ExportProgress(framesWritten: written, frameCount: frameCount))
            case let .failed(error):
                throw error
            case .end:
                try encoder.send(nil)
                try muxer.drain(encoder, into: stream)
                try audio?.finish(into: muxer)
                try captions?.finish(into: muxer)
                try muxer.finish()
                return written
            }
        }
        throw isCancelled() ? ExportError.cancelled : ExportError.invalidComposition(["frame pipeline closed early"])
    }

    func validate() throws {
        var problems = composition.validate().map(\.description)
        problems += videoComposition.validate(for: composition).map(\.description)
        // Never an empty file reported as a render.
        if composition.duration <= .zero { problems.append("the composition is empty (it lasts 0 s)") }
        if settings.dynamicRange == .hlg && !settings.videoCodec.carriesHDR {
            problems.append("HDR (HLG) output needs the \(VideoCodecID.hdr.rawValue.uppercased()) codec (got \(settings.videoCodec.rawValue))")
        }
        if !videoComposition.renderSize.isEven {
            problems.append("render size \(videoComposition.renderSize) is odd; 4:2:0 video needs even width and height")
        }
        if !problems.isEmpty { throw ExportError.invalidComposition(problems) }
    }

    /// The gain that brings the mix's integrated loudness to `target` LUFS: the whole
    /// mix, measured with `LoudnessMeter` (EBU R128). 1 for silence.
    func measureLoudnessGain(_ format: (sampleRate: Int, channels: Int), target: Double,
                                     cancelled: Cancellation) throws -> Float {
        let mixer = AudioMixer(composition: composition, audioMix: audioMix, sampleRate: format.sampleRate,
                               channels: format.channels, maximumBlock: Self.audioBlock)
        let meter = LoudnessMeter(channels: format.channels, sampleRate: format.sampleRate)
        let block = try AudioFrame(channels: format.channels, sampleRate: format.sampleRate, capacity: Self.audioBlock)
        try mixer.mixAll(samples: composition.duration.ticks(in: Int32(format.sampleRate)) ?? 0, into: block) { count in
            // A plain thread: `Task.isCancelled` would always be false here.
            if cancelled.isCancelled { throw ExportError.cancelled }
            block.withPlanes { plane in meter.add(count: count) { UnsafePointer(plane($0)) } }
        }
        guard let measured = meter.integratedLoudness else { return 1 }
        let gain = LoudnessMeter.gain(toReach: target, from: measured)
        logger.info("loudness measured", metadata: ["integrated": "\(measured) LUFS", "target": "\(target) LUFS",
                                                    "gain": "\(20 * log10(gain)) dB"])
        return Float(gain)
    }

    /// The mix format: from the first audio source (its rate when AAC has it, else
    /// 48 kHz; its channels, at most two), unless the settings say; nil without audio
    /// tracks. A `Production` sets both from its probe, so the source is opened here only
    /// for callers that did not.
    func audioFormat() throws -> (sampleRate: Int, channels: Int)? {
        let tracks = composition.tracks(of: .audio)
        guard !tracks.isEmpty else { return nil }
        if let rate = settings.audioSampleRate, let channels = settings.audioChannels { return (rate, channels) }
        var stream: StreamInfo?
        if let source = tracks.lazy.flatMap(\.segments).compactMap(\.source).first {
            stream = try Demuxer(path: source.track.asset).streams[Int(source.track.trackID) - 1]
        }
        let format = ExportSettings.audioFormat(sourceSampleRate: stream?.sampleRate, sourceChannels: stream?.channels)
        return (settings.audioSampleRate ?? format.sampleRate, settings.audioChannels ?? format.channels)
    }

    func firstVideoCreationTime() -> String? {
        // The first movie's: a still picture has no container to say when it was made.
        guard let source = composition.tracks(of: .video).lazy.flatMap(\.segments).compactMap(\.source)
            .first(where: { !$0.track.isStillImage }) else { return nil }
        return try? Demuxer(path: source.track.asset).creationTime
    }
}
