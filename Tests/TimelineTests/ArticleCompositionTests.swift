import Testing
@testable import DropcutTimeline

/// The multi-asset composition from the AVFoundation article (seed 000): videos A, B, C
/// and a music bed, with B's last frame held and C at double speed.
struct ArticleComposition {
    static let music = SourceTrack(asset: "music.mp3", trackID: 1, mediaType: .audio, duration: 190)
    static let aVideo = SourceTrack(asset: "video_a.mov", trackID: 1, mediaType: .video, duration: 6)
    static let aAudio = SourceTrack(asset: "video_a.mov", trackID: 2, mediaType: .audio, duration: 6)
    static let bVideo = SourceTrack(asset: "video_b.mov", trackID: 1, mediaType: .video, duration: 5)
    static let bAudio = SourceTrack(asset: "video_b.mov", trackID: 2, mediaType: .audio, duration: 5)
    static let cVideo = SourceTrack(asset: "video_c.mov", trackID: 1, mediaType: .video, duration: 300)
    static let cAudio = SourceTrack(asset: "video_c.mov", trackID: 2, mediaType: .audio, duration: 300)

    let composition: Composition
    let videoComposition: VideoComposition
    let audioMix: AudioMix

    init() throws {
        var composition = Composition()
        let musicTrack = composition.addTrack(.audio)
        let aV = composition.addTrack(.video), aA = composition.addTrack(.audio)
        let bV = composition.addTrack(.video), bA = composition.addTrack(.audio)
        let cV = composition.addTrack(.video), cA = composition.addTrack(.audio)

        // Music: source 0–6 placed at 2–8; inserting past the end leaves an empty 0–2.
        try composition.edit(track: musicTrack) { try $0.insert(range("0", "6"), of: Self.music, at: 2) }
        try composition.edit(track: aV) { try $0.insert(range("0", "6"), of: Self.aVideo, at: 0) }
        try composition.edit(track: aA) { try $0.insert(range("0", "6"), of: Self.aAudio, at: 0) }
        // B: 0–5, then its last frame held from 5 to 6.
        try composition.edit(track: bV) { track in
            try track.insert(range("0", "5"), of: Self.bVideo, at: 0)
            try track.insertHold(at: 5, of: Self.bVideo, at: 5, duration: 1)
        }
        try composition.edit(track: bA) { try $0.insert(range("0", "5"), of: Self.bAudio, at: 0) }
        // C: source 69–77 at 6–10, i.e. inserted at normal speed then scaled to half.
        for (track, source) in [(cV, Self.cVideo), (cA, Self.cAudio)] {
            try composition.edit(track: track) { track in
                try track.insertEmpty(range("0", "6"))
                try track.insert(range("69", "8"), of: source, at: 6)
                try track.scale(range("6", "8"), toDuration: 4)
            }
        }

        let first = VideoCompositionInstruction(timeRange: range("0", "6"),
                                                layerInstructions: [LayerInstruction(trackID: aV), LayerInstruction(trackID: bV)])
        let second = VideoCompositionInstruction(timeRange: range("6", "4"), layerInstructions: [LayerInstruction(trackID: cV)])
        let videoComposition = VideoComposition(renderSize: PixelSize(width: 1920, height: 1080),
                                                frameDuration: MediaTime(value: 1, timescale: 30),
                                                instructions: [first, second])

        var audioMix = AudioMix()
        try audioMix.edit(track: musicTrack) { try $0.setVolume(1, at: 0) }
        try audioMix.edit(track: aA) { try $0.setVolumeRamp(from: 1, to: 0, range: range("0", "2")) }
        try audioMix.edit(track: bA) { try $0.setVolumeRamp(from: 1, to: 0, range: range("0", "2")) }
        try audioMix.edit(track: cA) { p in
            try p.setVolume(0, at: 0)
            try p.setVolumeRamp(from: 0, to: 1, range: range("8", "2"))
        }
        self.composition = composition
        self.videoComposition = videoComposition
        self.audioMix = audioMix
    }
}

@Suite struct ArticleCompositionTests {
    @Test func describesExactlyTheArticleSegments() throws {
        let article = try ArticleComposition()
        let text = TimelineDescription.text(composition: article.composition)
        #expect(text == """
        composition duration 10.000
        track 1 audio
          0: timeRange [0.000,+2.000] is empty
          1: timeRange [2.000,+6.000] from trackID 1 of asset music.mp3 sourceTimeRange [0.000,+6.000] speed 1.00
        track 2 video
          0: timeRange [0.000,+6.000] from trackID 1 of asset video_a.mov sourceTimeRange [0.000,+6.000] speed 1.00
        track 3 audio
          0: timeRange [0.000,+6.000] from trackID 2 of asset video_a.mov sourceTimeRange [0.000,+6.000] speed 1.00
        track 4 video
          0: timeRange [0.000,+5.000] from trackID 1 of asset video_b.mov sourceTimeRange [0.000,+5.000] speed 1.00
          1: timeRange [5.000,+1.000] from trackID 1 of asset video_b.mov sourceTimeRange [5.000,+0.000] speed 0.00
        track 5 audio
          0: timeRange [0.000,+5.000] from trackID 2 of asset video_b.mov sourceTimeRange [0.000,+5.000] speed 1.00
        track 6 video
          0: timeRange [0.000,+6.000] is empty
          1: timeRange [6.000,+4.000] from trackID 1 of asset video_c.mov sourceTimeRange [69.000,+8.000] speed 2.00
        track 7 audio
          0: timeRange [0.000,+6.000] is empty
          1: timeRange [6.000,+4.000] from trackID 2 of asset video_c.mov sourceTimeRange [69.000,+8.000] speed 2.00

        """)
    }

    @Test func validatesClean() throws {
        let article = try ArticleComposition()
        #expect(article.composition.validate().isEmpty)
        #expect(article.videoComposition.validate(for: article.composition).isEmpty)
        #expect(article.audioMix.invalidTrackIDs(for: article.composition).isEmpty)
        #expect(article.composition.duration == 10)
    }

    @Test func timeMappingFollowsSegments() throws {
        let composition = try ArticleComposition().composition
        let c = try #require(composition.track(6)?.segment(at: 7))
        #expect(c.sourceTime(forTargetTime: 7) == 71)       // 2x: one second in, two seconds of source
        #expect(c.sourceTime(forTargetTime: t("9.5")) == 76)
        #expect(c.targetTime(forSourceTime: 73) == 8)
        #expect(c.speedRatio! == (2, 1))
        let held = try #require(composition.track(4)?.segment(at: t("5.5")))
        #expect(held.isStill)
        #expect(held.sourceTime(forTargetTime: t("5.9")) == 5)  // every target time shows the held frame
        #expect(composition.track(1)?.segment(at: 1)?.isEmpty == true)
        #expect(composition.track(1)?.segment(at: 8) == nil)    // past the end
    }

    @Test func volumesFollowTheArticle() throws {
        let mix = try ArticleComposition().audioMix
        // A: 1 → 0 over 0–2, then holds 0.
        #expect(mix.volume(of: 3, at: 0) == 1)
        #expect(mix.volume(of: 3, at: 1) == 0.5)
        #expect(mix.volume(of: 3, at: t("1.5")) == 0.25)
        #expect(mix.volume(of: 3, at: 2) == 0)
        #expect(mix.volume(of: 3, at: 9) == 0)
        // C: 0 until 8, then 0 → 1 over 8–10.
        #expect(mix.volume(of: 7, at: 0) == 0)
        #expect(mix.volume(of: 7, at: t("7.999")) == 0)
        #expect(mix.volume(of: 7, at: 9) == 0.5)
        #expect(mix.volume(of: 7, at: 10) == 1)
        // Music: constant 1.
        for second: Int64 in 0...10 { #expect(mix.volume(of: 1, at: MediaTime(seconds: second)) == 1) }
    }

    @Test func fullDescriptionListsInstructionsAndRamps() throws {
        let article = try ArticleComposition()
        let text = TimelineDescription.text(composition: article.composition,
                                            videoComposition: article.videoComposition, audioMix: article.audioMix)
        let tail = text.split(separator: "\n").drop { !$0.hasPrefix("video composition") }
        #expect(tail.joined(separator: "\n") == """
        video composition renderSize 1920x1080 frameDuration 1/30 background #000000ff
          instruction [0.000,+6.000]
            layer trackID 2
            layer trackID 4
          instruction [6.000,+4.000]
            layer trackID 6
        audio mix
          trackID 1 volume 1.00 at 0.000
          trackID 3 volume ramp [0.000,+2.000] 1.00 -> 0.00
          trackID 5 volume ramp [0.000,+2.000] 1.00 -> 0.00
          trackID 7 volume 0.00 at 0.000, ramp [8.000,+2.000] 0.00 -> 1.00; scaled audio preserve-pitch
        """)
    }
}

@Suite struct ReadmeExampleTests {
    /// The library example in README.md, verbatim.
    @Test func readmeExamplePrintsWhatTheReadmeSays() throws {
        let clip = SourceTrack(asset: "clip.mov", trackID: 1, mediaType: .video, duration: 300)
        var composition = Composition()
        let video = composition.addTrack(.video)
        try composition.edit(track: video) { track in
            try track.insert(TimeRange(start: 69, duration: 8), of: clip, at: 0)
            try track.scale(TimeRange(start: 0, duration: 8), toDuration: 4)   // 2x speed
        }
        let lines = TimelineDescription.text(composition: composition).split(separator: "\n")
        #expect(lines.dropFirst() == [
            "track 1 video",
            "  0: timeRange [0.000,+4.000] from trackID 1 of asset clip.mov sourceTimeRange [69.000,+8.000] speed 2.00",
        ])
    }
}
