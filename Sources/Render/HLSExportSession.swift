import Foundation
import Logging
import MediaIO
import Support
import Timeline

/// Renders a composition to an adaptive HLS ladder in a folder: every output frame is
/// composited once, at the composition's render size, then scaled to each rung and
/// encoded there; the sound is mixed and encoded once, as the ladder's one audio
/// rendition. Each rendition is a folder of fMP4/CMAF segments with its own media
/// playlist (libavformat's `hls` muxer); the master playlist, written last, lists them
/// with their measured bandwidth, size and codecs.
///
/// Every rung's encoder has a keyframe exactly every `keyframeInterval` frames (the
/// segment length to the nearest frame) and nowhere else, so the rungs' segments start on
/// the same frames and a player can switch between them at any segment.
///
/// The stages are `ExportSession`'s: decoding + compositing on one thread (`FrameProducer`),
/// scaling + encoding + muxing on another, with one canvas in flight. Cancelling the task
/// stops both; on any error or cancellation the folder may hold partial files, and the
/// caller (which made it) removes it.
public final class HLSExportSession: Sendable {
    public let composition: Composition
    public let videoComposition: VideoComposition
    public let audioMix: AudioMix
    public let overlays: [OverlayLayer]
    /// As for a video; `videoCopy` and `audioCopy` are ignored (a ladder is always encoded).
    public let settings: ExportSettings
    /// The rungs, tallest first; none taller than the render size.
    public let rungs: [PixelSize]
    /// The segments' target length.
    public let segment: MediaTime
    private let logger: Logger

    /// What was written: the master playlist and its renditions.
    public struct Ladder: Sendable, Hashable {
        /// The master playlist's path.
        public var master: String
        public var playlist: MasterPlaylist
        /// Every file written, relative to the folder: the master, playlists, init and
        /// media segments.
        public var files: [String]
        /// Frames per rung.
        public var frameCount: Int
    }

    public init(composition: Composition, videoComposition: VideoComposition, audioMix: AudioMix = AudioMix(),
                overlays: [OverlayLayer] = [], settings: ExportSettings, rungs: [PixelSize], segment: MediaTime, logger: Logger) {
        self.composition = composition
        self.videoComposition = videoComposition
        self.audioMix = audioMix
        self.overlays = overlays
        var encoded = settings
        encoded.videoCopy = nil
        encoded.audioCopy = nil
        self.settings = encoded
        self.rungs = rungs
        self.segment = segment
        self.logger = logger
    }

    /// The rungs of `heights` for a render of `size`: each `size`'s shape at that height,
    /// width rounded to even; heights above the render's left out (never upscaled); the
    /// render's own size when none is left. Tallest first, each size once.
    public static func rungs(heights: [Int], renderSize size: PixelSize) -> [PixelSize] {
        var rungs: [PixelSize] = []
        for height in heights.sorted(by: >) where height <= size.height {
            let width = Swift.max(2, 2 * Int((Double(height) * Double(size.width) / Double(size.height) / 2).rounded()))
            let rung = PixelSize(width: width, height: height)
            if !rungs.contains(rung) { rungs.append(rung) }
        }
        return rungs.isEmpty ? [size] : rungs
    }

    /// Frames between keyframes: the segment length to the nearest whole frame, at least 1.
    public var keyframeInterval: Int {
        let frames = segment.seconds / videoComposition.frameDuration.seconds
        guard frames.isFinite else { return 1 }
        return Swift.max(1, Int(Swift.min(frames.rounded(), Double(Int32.max))))
    }

    /// A rung's folder name: its height (`720p`).
    static func folder(of rung: PixelSize) -> String { "\(rung.height)p" }
    static let audioFolder = "audio"
    static let mediaPlaylist = "index.m3u8"

    /// Writes the ladder into `folder` (which must exist and be empty), the master playlist
    /// named `masterName`, calling `progress` after each frame.
    public func export(to folder: String, masterName: String,
                       progress: @escaping @Sendable (ExportProgress) -> Void = { _ in }) async throws -> Ladder {
        // The work blocks in FFmpeg: keep it off the cooperative thread pool.
        try await BlockingWork.run("dropcut-hls") { cancelled in
            try self.run(to: folder, masterName: masterName, cancelled: cancelled, progress: progress)
        }
    }

    /// One rung as the encoding stage drives it.
    private final class Rendition {
        let size: PixelSize
        let encoder: VideoEncoder
        let muxer: Muxer
        let stream: Int
        /// The rung's picture, scaled from the canvas; nil for a rung of the canvas's size.
        let scaled: VideoFrame?
        let scaler = Scaler()

        init(size: PixelSize, encoder: VideoEncoder, muxer: Muxer, stream: Int, scaled: VideoFrame?) {
            self.size = size
            self.encoder = encoder
            self.muxer = muxer
            self.stream = stream
            self.scaled = scaled
        }
    }

    private func run(to folder: String, masterName: String, cancelled: Cancellation,
                     progress: @Sendable (ExportProgress) -> Void) throws -> Ladder {
        // The single-file session's checks and audio decisions, shared.
        let single = ExportSession(composition: composition, videoComposition: videoComposition, audioMix: audioMix,
                                   overlays: overlays, settings: settings, logger: logger)
        try single.validate()
        let renderSize = videoComposition.renderSize
        guard !rungs.isEmpty, rungs.allSatisfy({ $0.isEven && $0.width <= renderSize.width && $0.height <= renderSize.height }) else {
            throw ExportError.invalidComposition(["HLS rungs \(rungs) must be even and no larger than the render size \(renderSize)"])
        }
        let scheduler = FrameScheduler(composition: composition, videoComposition: videoComposition)
        let frameCount = scheduler.frameCount
        let interval = keyframeInterval
        // Cut at every keyframe: a little under the interval, so rounding never skips one.
        let cut = (Double(interval) - 0.5) * videoComposition.frameDuration.seconds
        let creationTime = settings.creationTime ?? single.firstVideoCreationTime()

        let overlayRenderer = try OverlayRenderer(layers: overlays, renderSize: renderSize, dynamicRange: settings.dynamicRange)
        let stage = try FrameProducer(scheduler: scheduler, renderSize: renderSize, overlays: overlayRenderer,
                                      poolSize: ExportSession.framePoolSize, deinterlace: settings.deinterlace,
                                      dynamicRange: settings.dynamicRange)
        try stage.openFirstSources()
        let audioFormat = try single.audioFormat()
        var loudnessGain: Float = 1
        if let target = settings.loudnessTarget, let format = audioFormat {
            loudnessGain = try single.measureLoudnessGain(format, target: target, cancelled: cancelled)
        }

        var renditions: [Rendition] = []
        var audio: (stage: AudioStage, muxer: Muxer)?
        do {
            for rung in rungs {
                let rungFolder = (folder as NSString).appendingPathComponent(Self.folder(of: rung))
                try Self.makeFolder(rungFolder)
                let muxer = try Muxer(hlsPlaylist: (rungFolder as NSString).appendingPathComponent(Self.mediaPlaylist), segmentDuration: cut)
                let encoder = try VideoEncoder(settings: VideoEncoderSettings(
                    codec: settings.videoCodec, size: rung, frameDuration: videoComposition.frameDuration,
                    crf: settings.crf, preset: settings.preset, pixelFormat: settings.dynamicRange.pixelFormat,
                    color: settings.dynamicRange.color, keyframeInterval: interval), globalHeader: muxer.needsGlobalHeader)
                let stream = try muxer.addStream(for: encoder)
                var scaled: VideoFrame?
                if rung != renderSize {
                    let frame = try VideoFrame(width: rung.width, height: rung.height, pixelFormat: settings.dynamicRange.pixelFormat)
                    if settings.dynamicRange != .sdr { frame.setColorTags(settings.dynamicRange.color) }
                    scaled = frame
                }
                renditions.append(Rendition(size: rung, encoder: encoder, muxer: muxer, stream: stream, scaled: scaled))
                try muxer.writeHeader(creationTime: creationTime)
            }
            if let format = audioFormat {
                let audioFolder = (folder as NSString).appendingPathComponent(Self.audioFolder)
                try Self.makeFolder(audioFolder)
                // Audio has no keyframes: cut at the first packet of each segment's time.
                let muxer = try Muxer(hlsPlaylist: (audioFolder as NSString).appendingPathComponent(Self.mediaPlaylist),
                                      segmentDuration: Double(interval) * videoComposition.frameDuration.seconds)
                let mixer = AudioMixer(composition: composition, audioMix: audioMix, sampleRate: format.sampleRate,
                                       channels: format.channels, maximumBlock: ExportSession.audioBlock)
                try mixer.openFirstSources()
                let encoder = try AudioEncoder(settings: AudioEncoderSettings(
                    sampleRate: format.sampleRate, channels: format.channels, bitrate: settings.audioBitrate),
                    globalHeader: muxer.needsGlobalHeader)
                let stage = try AudioStage(encoder: encoder, stream: try muxer.addStream(for: encoder), mixer: mixer,
                                           totalSamples: composition.duration.ticks(in: Int32(format.sampleRate)) ?? 0,
                                           gain: loudnessGain)
                try muxer.writeHeader(creationTime: creationTime)
                audio = (stage, muxer)
            }
            logger.debug("hls export started", metadata: [
                "folder": "\(folder)", "rungs": "\(rungs.map(\.description).joined(separator: ", "))",
                "keyframe interval": "\(interval)", "frames": "\(frameCount)"])

            try stage.start()
            var written = 0
            loop: while true {
                guard let item = stage.filled.take() else {
                    throw cancelled.isCancelled ? ExportError.cancelled : ExportError.invalidComposition(["frame pipeline closed early"])
                }
                if cancelled.isCancelled { throw ExportError.cancelled }
                switch item {
                case let .frame(canvas, index):
                    for rendition in renditions {
                        var picture = canvas
                        if let scaled = rendition.scaled {
                            try scaled.makeWritable()
                            try rendition.scaler.scale(canvas, region: PixelRect(size: renderSize), into: scaled,
                                                       region: PixelRect(size: rendition.size))
                            scaled.pts = Int64(index)
                            picture = scaled
                        }
                        try rendition.encoder.send(picture)
                        try rendition.muxer.drain(rendition.encoder, into: rendition.stream)
                    }
                    stage.free.put(canvas)
                    let frameEnd = videoComposition.frameDuration.multiplied(by: Int64(index + 1), dividedBy: 1)
                    if let audio { try audio.stage.encode(until: frameEnd, into: audio.muxer) }
                    written += 1
                    progress(ExportProgress(framesWritten: written, frameCount: frameCount))
                case let .failed(error):
                    throw error
                case .end:
                    for rendition in renditions {
                        try rendition.encoder.send(nil)
                        try rendition.muxer.drain(rendition.encoder, into: rendition.stream)
                        try rendition.muxer.finish()
                    }
                    if let audio {
                        try audio.stage.finish(into: audio.muxer)
                        try audio.muxer.finish()
                    }
                    stage.stop()
                    break loop
                }
            }
            guard written == frameCount else {
                throw ExportError.invalidComposition(["the ladder got \(written) of \(frameCount) frames"])
            }
        } catch {
            stage.stop()
            for rendition in renditions { rendition.muxer.abandon() }
            audio?.muxer.abandon()
            throw error
        }
        return try writeMaster(folder: folder, masterName: masterName, renditions: renditions, hasAudio: audio != nil,
                               frameCount: frameCount, interval: interval)
    }

    /// Measures each rendition's segments and writes the master playlist.
    private func writeMaster(folder: String, masterName: String, renditions: [Rendition], hasAudio: Bool,
                             frameCount: Int, interval: Int) throws -> Ladder {
        let frameDuration = videoComposition.frameDuration.seconds
        let total = Double(frameCount) * frameDuration
        // Segment k of every rendition starts at k × interval frames (the audio's within
        // one AAC frame of it).
        let segmentSeconds = Double(interval) * frameDuration
        var files: [String] = [masterName]
        func measure(_ name: String) throws -> (peak: Double, average: Double) {
            let listed = try FileManager.default.contentsOfDirectory(atPath: (folder as NSString).appendingPathComponent(name))
            files += listed.sorted().map { "\(name)/\($0)" }
            let segments = listed.filter { $0.hasPrefix("seg-") && $0.hasSuffix(".m4s") }.sorted()
            var peak = 0.0, bytes = 0.0
            for (k, segment) in segments.enumerated() {
                let size = Double(try Self.size(of: (folder as NSString).appendingPathComponent("\(name)/\(segment)")))
                bytes += size
                let duration = Swift.min(segmentSeconds, total - Double(k) * segmentSeconds)
                // A last segment of a few frames would claim a peak no player sees.
                peak = Swift.max(peak, size * 8 / Swift.max(duration, segmentSeconds / 2))
            }
            let header = Double(try Self.size(of: (folder as NSString).appendingPathComponent("\(name)/init.mp4")))
            return (peak, (bytes + header) * 8 / Swift.max(total, frameDuration))
        }
        let audioRate = hasAudio ? try measure(Self.audioFolder) : (peak: 0, average: 0)
        let range = settings.dynamicRange == .sdr ? "SDR" : "HLG"
        var variants: [MasterPlaylist.Variant] = []
        for rendition in renditions {
            let name = Self.folder(of: rendition.size)
            let rate = try measure(name)
            guard let codec = rendition.encoder.codecsAttribute else {
                throw ExportError.invalidComposition(["the \(name) encoder gave no parameter sets to name its codec by"])
            }
            let average = rate.average + audioRate.average
            variants.append(MasterPlaylist.Variant(
                uri: "\(name)/\(Self.mediaPlaylist)", size: rendition.size,
                // The init segments count in the average only: a ladder of a few segments
                // could otherwise have a peak under its average.
                bandwidth: Int(Swift.max(rate.peak + audioRate.peak, average).rounded(.up)),
                averageBandwidth: Int(average.rounded(.up)),
                videoCodec: codec, frameRate: 1 / frameDuration, videoRange: range))
        }
        let playlist = MasterPlaylist(variants: variants,
                                      audio: hasAudio ? MasterPlaylist.Audio(uri: "\(Self.audioFolder)/\(Self.mediaPlaylist)", codec: AudioEncoder.codecsAttribute) : nil)
        let master = (folder as NSString).appendingPathComponent(masterName)
        guard FileManager.default.createFile(atPath: master, contents: Data(playlist.text.utf8)) else {
            throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: master)
        }
        return Ladder(master: master, playlist: playlist, files: files, frameCount: frameCount)
    }

    private static func makeFolder(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw SystemError(errno: errno, function: "mkdir", path: path) }
    }

    private static func size(of path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemError(errno: errno, function: "stat", path: path) }
        return Int(info.st_size)
    }
}
