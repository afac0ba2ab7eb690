import Foundation
import DropcutMediaIO
import DropcutSupport
import DropcutTimeline

/// An HLS ladder as a lane of a render: each composited canvas scaled to every rung and
/// encoded there (a keyframe exactly every `keyframeInterval` frames), each rung muxed by
/// libavformat's `hls` muxer into its own folder, the one audio rendition beside them
/// (`RenderSound`), and at the end the master playlist, measured from the written
/// segments. It runs on one thread: the canvas's, the rungs' and the audio's work in the
/// same order, so a ladder is the same file for file whatever else shares its render.
final class HLSLadderWriter: RenderLane {
    let folder: String
    let masterName: String
    let renderSize: PixelSize
    let settings: ExportSettings
    let frameDuration: MediaTime
    let keyframeInterval: Int
    private(set) var renditions: [Rendition] = []
    private var audio: (output: any AudioOutput, muxer: Muxer)?
    /// What the ladder wrote, once it has.
    private(set) var made: HLSExportSession.Ladder?

    /// One rung as the encoding stage drives it.
    final class Rendition {
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

    /// A rung's folder name: its height (`720p`).
    static func folder(of rung: PixelSize) -> String { "\(rung.height)p" }
    static let audioFolder = "audio"
    static let mediaPlaylist = "index.m3u8"

    /// Opens, in the ladder's folder (which exists and is empty), a folder, muxer and
    /// encoder per rung (tallest first, each even and no larger than the session's render
    /// size) and, when output `index` of `sound` has sound, the audio rendition's. Nothing
    /// is left open on error.
    init(_ session: ExportSession, ladder: RenderOutput.LadderDestination, sound: RenderSound, index: Int) throws {
        folder = ladder.folder
        masterName = ladder.masterName
        renderSize = session.videoComposition.renderSize
        settings = session.settings
        frameDuration = session.videoComposition.frameDuration
        let interval = ladder.keyframeInterval(frameDuration: frameDuration)
        keyframeInterval = interval
        let creationTime = settings.creationTime ?? session.firstVideoCreationTime()
        // Cut at every keyframe: a little under the interval, so rounding never skips one.
        let cut = (Double(interval) - 0.5) * frameDuration.seconds
        do {
            for rung in ladder.rungs {
                var scaled: VideoFrame?
                if rung != renderSize {
                    let frame = try VideoFrame(width: rung.width, height: rung.height, pixelFormat: settings.dynamicRange.pixelFormat)
                    if settings.dynamicRange != .sdr { frame.setColorTags(settings.dynamicRange.color) }
                    scaled = frame
                }
                let rungFolder = (folder as NSString).appendingPathComponent(Self.folder(of: rung))
                try Self.makeFolder(rungFolder)
                let muxer = try Muxer(hlsPlaylist: (rungFolder as NSString).appendingPathComponent(Self.mediaPlaylist), segmentDuration: cut)
                do {
                    let video = try OutputEncoders.video(settings, size: rung, frameDuration: frameDuration, keyframeInterval: interval,
                                                         muxer: muxer)
                    renditions.append(Rendition(size: rung, encoder: video.encoder, muxer: muxer, stream: video.stream, scaled: scaled))
                } catch {
                    muxer.abandon()
                    throw error
                }
                try muxer.writeHeader(creationTime: creationTime)
            }
            if sound.hasSound(index) {
                let audioFolder = (folder as NSString).appendingPathComponent(Self.audioFolder)
                try Self.makeFolder(audioFolder)
                // Audio has no keyframes: cut at the first packet of each segment's time.
                let muxer = try Muxer(hlsPlaylist: (audioFolder as NSString).appendingPathComponent(Self.mediaPlaylist),
                                      segmentDuration: Double(interval) * frameDuration.seconds)
                do {
                    guard let stage = try sound.stream(for: index, settings: settings, muxer: muxer) else {
                        throw ExportError.invalidComposition(["no sound for the audio rendition"])
                    }
                    try muxer.writeHeader(creationTime: creationTime)
                    audio = (stage, muxer)
                } catch {
                    muxer.abandon()
                    throw error
                }
            }
        } catch {
            discard()
            throw error
        }
    }

    var hasAudio: Bool { audio != nil }

    /// Scales `canvas` (frame `index`) to every rung and encodes it there.
    func write(_ canvas: VideoFrame, index: Int) throws {
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
    }

    /// Writes the audio up to output time `time`.
    func encodeAudio(until time: MediaTime) throws {
        if let audio { try audio.output.encode(until: time, into: audio.muxer) }
    }

    /// Flushes every encoder and finishes every rendition.
    func finish() throws {
        for rendition in renditions {
            try rendition.encoder.send(nil)
            try rendition.muxer.drain(rendition.encoder, into: rendition.stream)
            try rendition.muxer.finish()
        }
        if let audio {
            try audio.output.finish(into: audio.muxer)
            try audio.muxer.finish()
        }
    }

    /// The encoding loop of a ladder: takes composited canvases from `stage` in order,
    /// writes each to every rung, hands the canvas back and keeps the audio up with the
    /// picture; at the end finishes every rendition and writes the master playlist (all
    /// `frameCount` frames written, or it throws).
    func run(from stage: FrameProducer.Output?, frameCount: Int, isCancelled: () -> Bool,
             progress: (ExportProgress) -> Void) throws {
        guard let stage else { throw ExportError.invalidComposition(["no compositing stage for the ladder in \(folder)"]) }
        var written = 0
        loop: while true {
            guard let item = stage.filled.take() else {
                throw isCancelled() ? ExportError.cancelled : ExportError.invalidComposition(["frame pipeline closed early"])
            }
            if isCancelled() { throw ExportError.cancelled }
            switch item {
            case let .frame(canvas, index):
                try write(canvas, index: index)
                stage.free.put(canvas)
                try encodeAudio(until: frameDuration.multiplied(by: Int64(index + 1), dividedBy: 1))
                written += 1
                progress(ExportProgress(framesWritten: written, frameCount: frameCount))
            case let .failed(error):
                throw error
            case .end:
                try finish()
                break loop
            }
        }
        guard written == frameCount else {
            throw ExportError.invalidComposition(["the ladder got \(written) of \(frameCount) frames"])
        }
        made = try writeMaster(frameCount: frameCount)
        // Finished: the encoders' buffers go now, not when the whole render is made (a
        // finished lane stays listed until then, to be removed if a later output fails).
        renditions = []
        audio = nil
    }

    /// Stops writing: every muxer abandoned and every file of the ladder removed (the
    /// folder itself, the caller's, stays). Safe at any point and more than once.
    func discard() {
        for rendition in renditions { rendition.muxer.abandon() }
        audio?.muxer.abandon()
        removeWritten()
    }

    /// Removes what the ladder wrote into its folder, finished or not.
    func removeWritten() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names { try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name)) }
    }

    /// Measures each rendition's segments and writes the master playlist, named
    /// `masterName`, into the folder.
    private func writeMaster(frameCount: Int) throws -> HLSExportSession.Ladder {
        let frameSeconds = frameDuration.seconds
        let total = Double(frameCount) * frameSeconds
        // Segment k of every rendition starts at k × interval frames (the audio's within
        // one AAC frame of it).
        let segmentSeconds = Double(keyframeInterval) * frameSeconds
        var files: [String] = [masterName]
        func measure(_ name: String) throws -> (peak: Double, average: Double) {
            let listed = try FileManager.default.contentsOfDirectory(atPath: (folder as NSString).appendingPathComponent(name))
            files += listed.sorted().map { "\(name)/\($0)" }
            let segments = listed.filter { $0.hasPrefix("seg-") && $0.hasSuffix(".m4s") }.sorted()
            var peak = 0.0, bytes = 0.0
            for (k, segment) in segments.enumerated() {
                let size = Double(try FileSize.bytes(at: (folder as NSString).appendingPathComponent("\(name)/\(segment)")))
                bytes += size
                let duration = Swift.min(segmentSeconds, total - Double(k) * segmentSeconds)
                // A last segment of a few frames would claim a peak no player sees.
                peak = Swift.max(peak, size * 8 / Swift.max(duration, segmentSeconds / 2))
            }
            let header = Double(try FileSize.bytes(at: (folder as NSString).appendingPathComponent("\(name)/init.mp4")))
            return (peak, (bytes + header) * 8 / Swift.max(total, frameSeconds))
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
                videoCodec: codec, frameRate: 1 / frameSeconds, videoRange: range))
        }
        let playlist = MasterPlaylist(variants: variants,
                                      audio: hasAudio ? MasterPlaylist.Audio(uri: "\(Self.audioFolder)/\(Self.mediaPlaylist)", codec: AudioEncoder.codecsAttribute) : nil)
        let master = (folder as NSString).appendingPathComponent(masterName)
        guard FileManager.default.createFile(atPath: master, contents: Data(playlist.text.utf8)) else {
            throw SystemError(errno: errno == 0 ? EIO : errno, function: "open", path: master)
        }
        return HLSExportSession.Ladder(master: master, playlist: playlist, files: files, frameCount: frameCount)
    }

    private static func makeFolder(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw SystemError(errno: errno, function: "mkdir", path: path) }
    }
}
