import Foundation
import DropcutMediaIO
import DropcutTimeline

/// One encoded output of a render as its thread drives it: a movie (`FileLane`) or an
/// HLS ladder (`HLSLadderWriter`).
protocol RenderLane: AnyObject {
    /// Writes every frame — taken in order from `stage`, the compositing stage's queues
    /// for this output (nil for a lane that copies its picture) — keeping the sound up
    /// with the picture, and finishes the output. Calls `progress` after each frame.
    func run(from stage: FrameProducer.Output?, frameCount: Int, isCancelled: () -> Bool,
             progress: (ExportProgress) -> Void) throws
    /// Removes what the lane wrote, finished or not. Safe at any point and more than once.
    func discard()
}

/// A movie as a lane of a render: its muxer, its picture — encoded from the composited
/// canvases, or its source's packets copied as they are (pass-through) —, its sound
/// (`RenderSound`) and its soft captions, muxed into MP4/MOV with the index first.
final class FileLane: RenderLane {
    let path: String
    private let muxer: Muxer
    private enum Picture {
        case encoded(OutputEncoders.Encoded<VideoEncoder>)
        case copied(StreamCopier)
        case spliced(VideoSplicer)
    }
    // Let go once the file is finished (`run`): a finished lane stays listed until the
    // whole render is made (to be removed if a later output fails), and its encoders'
    // buffers must not add to the memory of what comes after it.
    private var picture: Picture?
    private var audio: (any AudioOutput)?
    private var captions: CaptionStreamStage?
    private let frameDuration: MediaTime
    private var finished = false

    /// Opens `path` for output `index` of `sound` and writes its header: the picture
    /// spliced (`ExportSettings.videoSplice`), copied by `copier`, or encoded as
    /// `session`'s settings say. Nothing is left at
    /// `path` on error.
    init(_ session: ExportSession, path: String, copier: StreamCopier?, sound: RenderSound, index: Int) throws {
        self.path = path
        frameDuration = session.videoComposition.frameDuration
        let settings = session.settings
        muxer = try Muxer(path: path)
        do {
            if let splice = settings.videoSplice {
                picture = .spliced(try VideoSplicer(session, splice: splice, muxer: muxer))
            } else if let copier {
                _ = try copier.addStream(to: muxer)
                picture = .copied(copier)
            } else {
                picture = .encoded(try OutputEncoders.video(settings, size: session.videoComposition.renderSize,
                                                            frameDuration: frameDuration, muxer: muxer))
            }
            audio = try sound.stream(for: index, settings: settings, muxer: muxer)
            captions = settings.softCaptions.isEmpty ? nil : try CaptionStreamStage(cues: settings.softCaptions, muxer: muxer)
            try muxer.writeHeader(creationTime: settings.creationTime ?? session.firstVideoCreationTime())
        } catch {
            muxer.abandon()
            throw error
        }
    }

    func run(from stage: FrameProducer.Output?, frameCount: Int, isCancelled: () -> Bool,
             progress: (ExportProgress) -> Void) throws {
        switch picture {
        case nil:
            throw ExportError.invalidComposition(["\(path) was already written"])
        case let .encoded(video):
            guard let stage else { throw ExportError.invalidComposition(["no compositing stage for \(path)"]) }
            try encode(video, from: stage, frameCount: frameCount, isCancelled: isCancelled, progress: progress)
        case let .copied(copier):
            try copy(copier, frameCount: frameCount, isCancelled: isCancelled, progress: progress)
        case let .spliced(splicer):
            try splicer.run(isCancelled: isCancelled, follow: follow(until:)) {
                progress(ExportProgress(framesWritten: min($0, frameCount), frameCount: frameCount))
            }
            if isCancelled() { throw ExportError.cancelled }
            try finishFile()
        }
        finished = true
        picture = nil
        audio = nil
        captions = nil
    }

    /// Takes composited canvases from `stage` in order, encodes and muxes each, hands the
    /// canvas back and keeps the sound and captions up with the picture; at the end
    /// flushes the encoders and finishes the file.
    private func encode(_ video: OutputEncoders.Encoded<VideoEncoder>, from stage: FrameProducer.Output, frameCount: Int,
                        isCancelled: () -> Bool, progress: (ExportProgress) -> Void) throws {
        var written = 0
        while let item = stage.filled.take() {
            if isCancelled() { throw ExportError.cancelled }
            switch item {
            case let .frame(canvas, index):
                try video.encoder.send(canvas)
                try muxer.drain(video.encoder, into: video.stream)
                stage.free.put(canvas)
                try follow(until: frameDuration.multiplied(by: Int64(index + 1), dividedBy: 1))
                written += 1
                progress(ExportProgress(framesWritten: written, frameCount: frameCount))
            case let .failed(error):
                throw error
            case .end:
                try video.encoder.send(nil)
                try muxer.drain(video.encoder, into: video.stream)
                try finishFile()
                return
            }
        }
        throw isCancelled() ? ExportError.cancelled : ExportError.invalidComposition(["frame pipeline closed early"])
    }

    /// Pass-through: the source's packets as they are, the sound and captions kept up
    /// with them by decode time.
    private func copy(_ copier: StreamCopier, frameCount: Int, isCancelled: () -> Bool,
                      progress: (ExportProgress) -> Void) throws {
        var written = 0
        while let time = try copier.nextTime() {
            if isCancelled() { throw ExportError.cancelled }
            try follow(until: time)
            _ = try copier.copyNext(into: muxer)
            written += 1
            progress(ExportProgress(framesWritten: min(written, frameCount), frameCount: frameCount))
        }
        if isCancelled() { throw ExportError.cancelled }
        try finishFile()
    }

    private func follow(until time: MediaTime) throws {
        try audio?.encode(until: time, into: muxer)
        try captions?.write(until: time, into: muxer)
    }

    private func finishFile() throws {
        try audio?.finish(into: muxer)
        try captions?.finish(into: muxer)
        try muxer.finish()
    }

    /// A finished file is no longer its muxer's to remove.
    func discard() {
        if finished { _ = unlink(path) } else { muxer.abandon() }
    }
}
