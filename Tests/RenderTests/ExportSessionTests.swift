import Foundation
import Logging
import DropcutMediaIO
import DropcutRender
import Testing
import TestSupport
import DropcutTimeline

/// ExportSession on compositions built by hand with the Timeline API, checked by
/// decoding its output with the ffmpeg CLI.
@Suite struct ExportSessionTests {
    static let logger = Logger(label: "dropcut.tests")
    static let size = PixelSize(width: 320, height: 240)
    static let frameDuration = MediaTime(value: 1, timescale: 30)

    /// A solid-colour 2 s clip with a 1 kHz tone.
    static func solidClip(_ color: String, in dir: TemporaryDirectory, seconds: Int = 2) throws -> String {
        let path = dir.path + "/\(color).mp4"
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "color=c=\(color):s=320x240:r=30:d=\(seconds)",
                                          "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=\(seconds)",
                                          "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p",
                                          "-c:a", "aac", "-b:a", "192k", "-shortest", path])
        return path
    }

    static func videoSource(_ path: String) throws -> SourceTrack {
        let media = try AssetProbe().probe(path)
        let video = try #require(media.video)
        return SourceTrack(asset: path, trackID: video.trackID, mediaType: .video, timeRange: video.timeRange)
    }

    static func audioSource(_ path: String) throws -> SourceTrack {
        let media = try AssetProbe().probe(path)
        let audio = try #require(media.audio)
        return SourceTrack(asset: path, trackID: audio.trackID, mediaType: .audio, timeRange: audio.timeRange)
    }

    static func pixel(_ frame: (y: [UInt8], u: [UInt8], v: [UInt8]), x: Int = 160, y: Int = 120) -> (Int, Int, Int) {
        (Int(frame.y[y * 320 + x]), Int(frame.u[(y / 2) * 160 + x / 2]), Int(frame.v[(y / 2) * 160 + x / 2]))
    }

    @Test func crossfadeBlendsTheTwoClipsByTheOpacityRamp() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let red = try Self.videoSource(try Self.solidClip("red", in: dir))
        let blue = try Self.videoSource(try Self.solidClip("blue", in: dir))
        var composition = Composition()
        let a = composition.addTrack(.video), b = composition.addTrack(.video)
        try composition.edit(track: a) { try $0.insert(TimeRange(start: 0, duration: 2), of: red, at: 0) }
        try composition.edit(track: b) { try $0.insert(TimeRange(start: 0, duration: 2), of: blue, at: 1) }
        var fadeOut = LayerInstruction(trackID: a)
        try fadeOut.setOpacityRamp(from: 1, to: 0, range: TimeRange(start: 1, duration: 1))
        let video = VideoComposition(renderSize: Self.size, frameDuration: Self.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 1), layerInstructions: [LayerInstruction(trackID: a)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: 1, duration: 1), layerInstructions: [fadeOut, LayerInstruction(trackID: b)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: 2, duration: 1), layerInstructions: [LayerInstruction(trackID: b)]),
        ])
        let output = dir.path + "/crossfade.mp4"
        var settings = ExportSettings()
        settings.crf = 4
        try await ExportSession(composition: composition, videoComposition: video, settings: settings, logger: Self.logger)
            .export(to: output)

        let format = try FFprobe.format(of: output)
        #expect(abs((Double(format.duration ?? "0") ?? 0) - 3) < 1.0 / 30)
        let first = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 0, width: 320, height: 240))
        let last = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 89, width: 320, height: 240))
        let middle = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 45, width: 320, height: 240))
        // Frame 45 is at 1.5 s: the red layer at opacity 0.5 over blue.
        let expected = ((first.0 + last.0) / 2, (first.1 + last.1) / 2, (first.2 + last.2) / 2)
        #expect(first.2 > 200 && last.1 > 200, "red then blue: \(first) \(last)")
        #expect(abs(middle.0 - expected.0) <= 3 && abs(middle.1 - expected.1) <= 3 && abs(middle.2 - expected.2) <= 3,
                "midpoint \(middle), expected \(expected)")
        // A quarter of the way (frame 38 ≈ 1.27 s) is still mostly red.
        let early = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 38, width: 320, height: 240))
        #expect(early.2 > middle.2)
    }

    @Test func emptySegmentsShowTheBackgroundColour() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let red = try Self.videoSource(try Self.solidClip("red", in: dir, seconds: 1))
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { t in
            try t.insertEmpty(TimeRange(start: 0, duration: 1))
            try t.insert(TimeRange(start: 0, duration: 1), of: red, at: 1)
        }
        let green = Color(red: 0, green: 1, blue: 0)
        let video = VideoComposition(renderSize: Self.size, frameDuration: Self.frameDuration, backgroundColor: green, instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 2), layerInstructions: [LayerInstruction(trackID: track)]),
        ])
        let output = dir.path + "/gap.mp4"
        try await ExportSession(composition: composition, videoComposition: video, logger: Self.logger).export(to: output)
        let gap = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 10, width: 320, height: 240))
        let clip = Self.pixel(try DecodedMedia.yuvFrame(of: output, index: 40, width: 320, height: 240))
        // BT.709 video-range green: Y 173, Cb 42, Cr 26.
        #expect(abs(gap.0 - 173) <= 3 && abs(gap.1 - 42) <= 3 && abs(gap.2 - 26) <= 3, "gap \(gap)")
        #expect(clip.2 > 200, "clip \(clip)")
    }

    @Test func volumeRampsScaleTheAudioAndUncoveredTimeIsSilent() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try Self.solidClip("gray", in: dir, seconds: 3)
        let videoTrack = try Self.videoSource(path), audio = try Self.audioSource(path)
        var composition = Composition()
        let v = composition.addTrack(.video), a = composition.addTrack(.audio)
        try composition.edit(track: v) { try $0.insert(TimeRange(start: 0, duration: 3), of: videoTrack, at: 0) }
        // Sound from 0.5 s on only; fading out over [1.5, 2.5].
        try composition.edit(track: a) { try $0.insert(TimeRange(start: 0, duration: MediaTime(value: 5, timescale: 2)), of: audio, at: MediaTime(value: 1, timescale: 2)) }
        var mix = AudioMix()
        try mix.edit(track: a) { try $0.setVolumeRamp(from: 1, to: 0, range: TimeRange(start: MediaTime(value: 3, timescale: 2), duration: 1)) }
        let video = VideoComposition(renderSize: Self.size, frameDuration: Self.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 3), layerInstructions: [LayerInstruction(trackID: v)]),
        ])
        let output = dir.path + "/ramp.mp4"
        try await ExportSession(composition: composition, videoComposition: video, audioMix: mix, logger: Self.logger).export(to: output)

        let samples = try DecodedMedia.monoSamples(of: output)
        #expect(abs(Double(samples.count) / 48000 - 3) < 0.05, "\(samples.count) samples")
        func level(_ from: Double, _ to: Double) -> Double { DecodedMedia.rmsDecibels(samples, Int(from * 48000)..<Int(to * 48000)) }
        let full = level(0.8, 1.4), silentStart = level(0.05, 0.45)
        let halfway = level(1.95, 2.05), end = level(2.6, 2.95)
        #expect(silentStart < -70, "before the audio segment: \(silentStart) dBFS")
        #expect(full > -25, "full volume: \(full) dBFS")
        // Halfway through the ramp the gain is 0.5: -6 dB.
        #expect(abs(halfway - full + 6.02) < 0.5, "halfway \(halfway) vs full \(full)")
        #expect(end < full - 60, "after the ramp: \(end) dBFS")
    }

    @Test func cancellingStopsTheExportAndRemovesThePartialFile() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try await Fixtures.makeClip(in: dir.path, width: 640, height: 360, seconds: 6)
        let source = try Self.videoSource(path)
        var composition = Composition()
        let v = composition.addTrack(.video)
        try composition.edit(track: v) { try $0.insert(source.timeRange, of: source, at: 0) }
        let video = VideoComposition(renderSize: PixelSize(width: 640, height: 360), frameDuration: Self.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: source.timeRange, layerInstructions: [LayerInstruction(trackID: v)]),
        ])
        let output = dir.path + "/cancelled.mp4"
        let session = ExportSession(composition: composition, videoComposition: video, logger: Self.logger)
        // Cancel from the progress callback itself, on the encoding thread, at frame 5:
        // a test task resumed later could find the export already finished when the
        // parallel suite keeps the cooperative pool busy.
        let handle = TaskHandle()
        let task = Task {
            try await session.export(to: output) { progress in
                if progress.framesWritten == 5 {
                    #expect(FileManager.default.fileExists(atPath: output), "the export is under way")
                    handle.cancel()
                }
            }
        }
        handle.set(task)
        await #expect(throws: ExportError.cancelled) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aSourceThatVanishedFailsNamingItAndLeavesNoOutput() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = try await Fixtures.makeClip(in: dir.path, seconds: 1)
        let source = try Self.videoSource(path)
        var composition = Composition()
        let v = composition.addTrack(.video)
        try composition.edit(track: v) { try $0.insert(source.timeRange, of: source, at: 0) }
        let video = VideoComposition(renderSize: Self.size, frameDuration: Self.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: source.timeRange, layerInstructions: [LayerInstruction(trackID: v)]),
        ])
        try FileManager.default.removeItem(atPath: path)
        let output = dir.path + "/out.mp4"
        do {
            try await ExportSession(composition: composition, videoComposition: video, logger: Self.logger).export(to: output)
            Issue.record("export of a missing source succeeded")
        } catch let error as FFmpegError {
            #expect(error.path == path)
            #expect(error.function == "avformat_open_input")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A task that a callback may cancel, once it has been created.
    final class TaskHandle: @unchecked Sendable {
        private let lock = NSLock()
        private var task: Task<Void, any Error>?
        private var cancelRequested = false

        func set(_ task: Task<Void, any Error>) {
            lock.lock()
            self.task = task
            let cancel = cancelRequested
            lock.unlock()
            if cancel { task.cancel() }
        }

        func cancel() {
            lock.lock()
            cancelRequested = true
            let task = self.task
            lock.unlock()
            task?.cancel()
        }
    }
}
