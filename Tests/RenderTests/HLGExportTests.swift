import Foundation
import Logging
import DropcutMediaIO
@testable import DropcutRender
import Testing
import TestSupport
import DropcutTimeline

/// HLG exports through the library API: blending and background fill on the 16-bit
/// canvas, and the codec rule.
@Suite struct HLGExportTests {
    static func pixel(_ frame: (y: [UInt16], u: [UInt16], v: [UInt16]), x: Int = 160, y: Int = 120) -> (Int, Int, Int) {
        (Int(frame.y[y * 320 + x]), Int(frame.u[(y / 2) * 160 + x / 2]), Int(frame.v[(y / 2) * 160 + x / 2]))
    }

    static var hlgSettings: ExportSettings {
        var settings = ExportSettings()
        settings.dynamicRange = .hlg
        settings.videoCodec = .hevc
        settings.crf = 0
        return settings
    }

    /// Red fades out over blue (two SDR clips mapped up), then a gap shows a white
    /// background: the fade's midpoint is the mean of the two HLG colours, the background is
    /// white placed at reference white (HLG 75 %).
    @Test func crossfadeAndBackgroundOnTheTenBitCanvas() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let red = try ExportSessionTests.videoSource(try ExportSessionTests.solidClip("red", in: dir))
        let blue = try ExportSessionTests.videoSource(try ExportSessionTests.solidClip("blue", in: dir))
        var composition = Composition()
        let a = composition.addTrack(.video), b = composition.addTrack(.video)
        try composition.edit(track: a) { try $0.insert(TimeRange(start: 0, duration: 2), of: red, at: 0) }
        try composition.edit(track: b) {
            try $0.insert(TimeRange(start: 0, duration: 2), of: blue, at: 1)
            try $0.insertEmpty(TimeRange(start: 3, duration: 1))
        }
        var fadeOut = LayerInstruction(trackID: a)
        try fadeOut.setOpacityRamp(from: 1, to: 0, range: TimeRange(start: 1, duration: 1))
        let video = VideoComposition(renderSize: ExportSessionTests.size, frameDuration: ExportSessionTests.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 1), layerInstructions: [LayerInstruction(trackID: a)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: 1, duration: 1), layerInstructions: [fadeOut, LayerInstruction(trackID: b)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: 2, duration: 1), layerInstructions: [LayerInstruction(trackID: b)]),
            VideoCompositionInstruction(timeRange: TimeRange(start: 3, duration: 1), backgroundColor: Color(red: 1, green: 1, blue: 1)),
        ])
        let output = dir.path + "/hlg.mp4"
        try await ExportSession(composition: composition, videoComposition: video, settings: Self.hlgSettings,
                                logger: ExportSessionTests.logger).export(to: output)

        func frame(_ index: Int) throws -> (Int, Int, Int) {
            Self.pixel(try DecodedMedia.yuv10Frame(of: output, index: index, width: 320, height: 240))
        }
        let first = try frame(0), last = try frame(89), middle = try frame(45), background = try frame(105)
        let expected = ((first.0 + last.0) / 2, (first.1 + last.1) / 2, (first.2 + last.2) / 2)
        print("HLG canvas: red \(first), blue \(last), midpoint \(middle) (expected \(expected)), white background \(background)")
        #expect(first.2 > 700 && last.1 > 700, "red then blue: \(first) \(last)")
        #expect(abs(middle.0 - expected.0) <= 3 && abs(middle.1 - expected.1) <= 3 && abs(middle.2 - expected.2) <= 3,
                "midpoint \(middle), expected \(expected)")
        #expect(abs(background.0 - 721) <= 2 && abs(background.1 - 512) <= 2 && abs(background.2 - 512) <= 2, "background \(background)")
        // The background's codes are the conversion's own.
        #expect(CanvasPlanes.hlgCodes(Color(red: 1, green: 1, blue: 1)) == (721, 512, 512))
    }

    /// HLG is written as HEVC Main 10: asking the library for it in H.264 fails up front.
    @Test func hlgInH264IsRefused() async throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let red = try ExportSessionTests.videoSource(try ExportSessionTests.solidClip("red", in: dir, seconds: 1))
        var composition = Composition()
        let a = composition.addTrack(.video)
        try composition.edit(track: a) { try $0.insert(TimeRange(start: 0, duration: 1), of: red, at: 0) }
        let video = VideoComposition(renderSize: ExportSessionTests.size, frameDuration: ExportSessionTests.frameDuration, instructions: [
            VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 1), layerInstructions: [LayerInstruction(trackID: a)]),
        ])
        var settings = Self.hlgSettings
        settings.videoCodec = .h264
        let output = dir.path + "/h264.mp4"
        await #expect(throws: ExportError.invalidComposition(["HDR (HLG) output needs the HEVC codec (got h264)"])) {
            try await ExportSession(composition: composition, videoComposition: video, settings: settings,
                                    logger: ExportSessionTests.logger).export(to: output)
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
