import Testing
@testable import DropcutTimeline

/// Cues are in their clip's source time; `CaptionTiming.retime` places them as the clip's
/// frames are placed.
@Suite struct CaptionTimingTests {
    static func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds, preferredTimescale: 48000) }
    static func range(_ a: Double, _ b: Double) -> TimeRange { TimeRange(start: s(a), end: s(b)) }
    static let clip = SourceTrack(asset: "clip.mp4", trackID: 1, mediaType: .video, duration: MediaTime(seconds: 20))
    static let intro = SourceTrack(asset: "intro.mp4", trackID: 1, mediaType: .video, duration: MediaTime(seconds: 3))

    static func cue(_ a: Double, _ b: Double, _ text: String = "x", words: [CaptionWord] = []) -> CaptionCue {
        CaptionCue(timeRange: range(a, b), text: text, words: words)
    }

    /// A 3 s intro, then the clip trimmed to [2, 10) with [4, 6) at 0.5× (lasting 4 s).
    static func composition() throws -> Composition {
        var composition = Composition()
        let id = composition.addTrack(.video)
        try composition.edit(track: id) { track in
            try track.insert(TimeRange(start: .zero, duration: MediaTime(seconds: 3)), of: intro, at: .zero)
            try track.insert(range(2, 4), of: clip, at: s(3))
            try track.insert(range(4, 6), of: clip, at: s(5))
            try track.scale(range(5, 7), toDuration: s(4))
            try track.insert(range(6, 10), of: clip, at: s(9))
        }
        return composition
    }

    @Test func aCueInsideASlowSegmentLastsTwiceAsLong() throws {
        let mapped = CaptionTiming.retime([Self.cue(4.5, 5.5)], asset: "clip.mp4", in: try Self.composition())
        #expect(mapped.map(\.timeRange) == [Self.range(6, 8)])
        #expect(mapped[0].timeRange.duration == Self.s(2))
    }

    @Test func aCueInATrimmedAwayPartIsDroppedAndOneAcrossACutIsShortened() throws {
        let composition = try Self.composition()
        #expect(CaptionTiming.retime([Self.cue(0.5, 1.5)], asset: "clip.mp4", in: composition).isEmpty)
        #expect(CaptionTiming.retime([Self.cue(11, 12)], asset: "clip.mp4", in: composition).isEmpty)
        #expect(CaptionTiming.retime([Self.cue(1, 3)], asset: "clip.mp4", in: composition).map(\.timeRange) == [Self.range(3, 4)])
    }

    @Test func aCueOverTheIntroOffsetLandsAfterIt() throws {
        let mapped = CaptionTiming.retime([Self.cue(2, 3)], asset: "clip.mp4", in: try Self.composition())
        #expect(mapped.map(\.timeRange) == [Self.range(3, 4)])
        // The intro's own cues are another asset's.
        #expect(CaptionTiming.retime([Self.cue(0, 1)], asset: "intro.mp4", in: try Self.composition()).map(\.timeRange) == [Self.range(0, 1)])
    }

    @Test func aCueAcrossSpeedChangesIsOneCueAndItsWordsMoveWithIt() throws {
        let words = [CaptionWord(textRange: 0..<2, start: Self.s(3)), CaptionWord(textRange: 3..<5, start: Self.s(5)),
                     CaptionWord(textRange: 6..<8, start: Self.s(7))]
        let mapped = CaptionTiming.retime([Self.cue(3, 8, "aa bb cc", words: words)], asset: "clip.mp4", in: try Self.composition())
        // 3 → 4; [4, 6) → [5, 9); 6 → 9; 8 → 11.
        #expect(mapped.map(\.timeRange) == [Self.range(4, 11)])
        #expect(mapped[0].words.map(\.start) == [Self.s(4), Self.s(7), Self.s(10)])
    }

    @Test func theClipUsedTwiceShowsTheCueTwice() throws {
        var composition = Composition()
        let id = composition.addTrack(.video)
        try composition.edit(track: id) { track in
            try track.insert(Self.range(0, 4), of: Self.clip, at: .zero)
            try track.insert(Self.range(0, 4), of: Self.clip, at: Self.s(4))
        }
        let mapped = CaptionTiming.retime([Self.cue(1, 2)], asset: "clip.mp4", in: composition)
        #expect(mapped.map(\.timeRange) == [Self.range(1, 2), Self.range(5, 6)])
    }

    @Test func overlappingPiecesOnTwoTracksMerge() throws {
        // A crossfade: the clip on track 1 up to 5 s, and again on track 2 from 4 s.
        var composition = Composition()
        let a = composition.addTrack(.video), b = composition.addTrack(.video)
        try composition.edit(track: a) { try $0.insert(Self.range(0, 5), of: Self.clip, at: .zero) }
        try composition.edit(track: b) { track in
            try track.insertEmpty(Self.range(0, 4))
            try track.insert(Self.range(5, 10), of: Self.clip, at: Self.s(4))
        }
        let mapped = CaptionTiming.retime([Self.cue(4, 6)], asset: "clip.mp4", in: composition)
        #expect(mapped.count == 1)
        #expect(mapped[0].timeRange == TimeRange(start: Self.s(4), end: Self.s(5)))
    }

    @Test func activeCuesAreFoundByTime() {
        let track = CaptionTrack(cues: [Self.cue(2, 4, "b"), Self.cue(0, 1, "a"), Self.cue(3, 5, "c")], style: CaptionStyle(fontPaths: []))
        #expect(track.cues.map(\.text) == ["a", "b", "c"])
        #expect(track.activeCues(at: Self.s(0.5)) == [0])
        #expect(track.activeCues(at: Self.s(1)) == [])
        #expect(track.activeCues(at: Self.s(3.5)) == [1, 2])
        #expect(track.activeCues(at: Self.s(5)) == [])
        // A long cue early in the file still shows among later short ones.
        let long = CaptionTrack(cues: [Self.cue(0, 100, "long")] + (1...50).map { Self.cue(Double($0), Double($0) + 0.5) },
                                style: CaptionStyle(fontPaths: []))
        #expect(long.activeCues(at: Self.s(10.25)) == [0, 10])
        #expect(long.activeCues(at: Self.s(10.75)) == [0])
        #expect(long.activeCues(at: Self.s(100)) == [])
    }

    @Test func safeAreasStayInsideTheFrame() {
        let portrait = CaptionStyle.SafeArea.automatic(for: PixelSize(width: 1080, height: 1920)).rect(on: PixelSize(width: 1080, height: 1920))
        #expect(portrait == PixelBox(x: 64, y: 192, width: 1080 - 64 - 130, height: 1920 - 192 - 480))
        let landscape = CaptionStyle.SafeArea.automatic(for: PixelSize(width: 1920, height: 1080)).rect(on: PixelSize(width: 1920, height: 1080))
        #expect(landscape == PixelBox(x: 96, y: 54, width: 1728, height: 972))
    }
}

/// A big subtitle file through a long ramp: each cue looks only at the segments it
/// overlaps, so 20,000 cues through 6,000 speed steps map in a blink rather than 10^8 steps.
@Suite struct CaptionTimingScaleTests {
    @Test func manyCuesThroughManySegmentsMapCorrectly() throws {
        let clip = SourceTrack(asset: "clip.mp4", trackID: 1, mediaType: .video, duration: MediaTime(seconds: 600))
        var composition = Composition()
        let id = composition.addTrack(.video)
        // 6,000 steps of 50 ms of source, alternating 1x and 0.5x (100 ms of output).
        var segments: [TrackSegment] = []
        var target = MediaTime.zero
        for step in 0..<6000 {
            let source = TimeRange(start: MediaTime(value: Int64(step) * 50, timescale: 1000), duration: MediaTime(value: 50, timescale: 1000))
            let length = MediaTime(value: step % 2 == 0 ? 50 : 100, timescale: 1000)
            segments.append(TrackSegment(track: clip, sourceRange: source, target: TimeRange(start: target, duration: length)))
            target = target + length
        }
        try composition.edit(track: id) { try $0.setSegments(segments) }
        // 20,000 cues of 10 ms, one every 15 ms of source (inside the 300 s the steps cover).
        let cues = (0..<20_000).map { i in
            CaptionCue(timeRange: TimeRange(start: MediaTime(value: Int64(i) * 15, timescale: 1000), duration: MediaTime(value: 10, timescale: 1000)), text: "\(i)")
        }
        let mapped = CaptionTiming.retime(cues, asset: "clip.mp4", in: composition)
        #expect(mapped.count == 20_000)
        // Cue 1001 is at source [15.015, 15.025): step 300 (1x, source [15.0, 15.05)), which
        // starts at output 300/2 x 150 ms = 22.5 s: [22.515, 22.525).
        let cue = try #require(mapped.first { $0.text == "1001" })
        #expect(cue.timeRange == TimeRange(start: MediaTime(value: 22515, timescale: 1000), end: MediaTime(value: 22525, timescale: 1000)))
        // Cue 1004 at [15.060, 15.070) is in step 301 (0.5x, output from 22.55 s): [22.57, 22.59).
        let slowed = try #require(mapped.first { $0.text == "1004" })
        #expect(slowed.timeRange == TimeRange(start: MediaTime(value: 22570, timescale: 1000), end: MediaTime(value: 22590, timescale: 1000)))
    }
}
