import DropcutRender
import Testing
import DropcutTimeline

@Suite struct FrameSchedulerTests {
    static let a = SourceTrack(asset: "a.mov", trackID: 1, mediaType: .video, duration: 6)
    static let c = SourceTrack(asset: "c.mov", trackID: 1, mediaType: .video, duration: 300)

    /// Video A 0–6 at 1x with a held last frame 6–7, then C 69–77 at 2x (7–11), 30 fps.
    static func scheduler() throws -> FrameScheduler {
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { t in
            try t.insert(TimeRange(start: 0, duration: 6), of: a, at: 0)
            try t.insertHold(at: MediaTime(value: 179, timescale: 30), of: a, at: 6, duration: 1)
            try t.insert(TimeRange(start: 69, duration: 8), of: c, at: 7)
            try t.scale(TimeRange(start: 7, duration: 8), toDuration: 4)
        }
        var layer = LayerInstruction(trackID: track)
        try layer.setOpacityRamp(from: 1, to: 0, range: TimeRange(start: 10, duration: 1))
        let video = VideoComposition(renderSize: PixelSize(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 30),
                                     instructions: [VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 11), layerInstructions: [layer])])
        #expect(video.validate(for: composition).isEmpty)
        return FrameScheduler(composition: composition, videoComposition: video)
    }

    @Test func framesCoverTheDurationOnTheFrameGrid() throws {
        let scheduler = try Self.scheduler()
        #expect(scheduler.frameCount == 330)
        #expect(scheduler.time(ofFrame: 45) == MediaTime(value: 3, timescale: 2))
    }

    @Test func eachFrameMapsBackThroughItsSegment() throws {
        let scheduler = try Self.scheduler()
        // 1x: frame n shows source n/30.
        #expect(scheduler.plan(frame: 45).layers.first?.sourceTime == MediaTime(value: 45, timescale: 30))
        #expect(scheduler.plan(frame: 45).layers.first?.source == Self.a)
        // Held: every frame from 6 s to 7 s shows the same source frame.
        let held = Set((180..<210).map { scheduler.plan(frame: $0).layers.first?.sourceTime })
        #expect(held == [MediaTime(value: 179, timescale: 30)])
        // 2x: one output frame advances two source frames.
        let fast = (210..<215).compactMap { scheduler.plan(frame: $0).layers.first?.sourceTime }
        #expect(fast == (0..<5).map { MediaTime(seconds: 69) + MediaTime(value: Int64(2 * $0), timescale: 30) })
        #expect(scheduler.plan(frame: 210).layers.first?.source == Self.c)
    }

    @Test func opacityRampsAndFullyTransparentLayersAreSkipped() throws {
        let scheduler = try Self.scheduler()
        #expect(scheduler.plan(frame: 315).layers.first?.opacity == 0.5)   // halfway through the fade
        #expect(scheduler.plan(frame: 329).layers.count == 1)
        #expect(scheduler.plan(frame: 300).layers.first?.opacity == 1)
    }

    @Test func emptySegmentsShowTheBackground() throws {
        var composition = Composition()
        let track = composition.addTrack(.video)
        try composition.edit(track: track) { t in
            try t.insertEmpty(TimeRange(start: 0, duration: 1))
            try t.insert(TimeRange(start: 0, duration: 1), of: Self.a, at: 1)
        }
        let red = Color(red: 1, green: 0, blue: 0)
        let video = VideoComposition(renderSize: PixelSize(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 25),
                                     instructions: [VideoCompositionInstruction(timeRange: TimeRange(start: 0, duration: 2),
                                                                                layerInstructions: [LayerInstruction(trackID: track)],
                                                                                backgroundColor: red)])
        let scheduler = FrameScheduler(composition: composition, videoComposition: video)
        #expect(scheduler.frameCount == 50)
        #expect(scheduler.plan(frame: 10).layers.isEmpty && scheduler.plan(frame: 10).background == red)
        #expect(scheduler.plan(frame: 30).layers.first?.sourceTime == MediaTime(value: 5, timescale: 25))
    }
}
