import Testing
@testable import Timeline

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
    }

    @Test func safeAreasStayInsideTheFrame() {
        let portrait = CaptionStyle.SafeArea.automatic(for: PixelSize(width: 1080, height: 1920)).rect(on: PixelSize(width: 1080, height: 1920))
        #expect(portrait == PixelBox(x: 64, y: 192, width: 1080 - 64 - 130, height: 1920 - 192 - 480))
        let landscape = CaptionStyle.SafeArea.automatic(for: PixelSize(width: 1920, height: 1080)).rect(on: PixelSize(width: 1920, height: 1080))
        #expect(landscape == PixelBox(x: 96, y: 54, width: 1728, height: 972))
    }
}
