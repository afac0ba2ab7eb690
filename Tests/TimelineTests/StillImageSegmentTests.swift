import Testing
@testable import DropcutTimeline

/// A still picture on a composition track: one held segment of a source with no time of
/// its own, valid, described and drawn as a still image.
@Suite struct StillImageSegmentTests {
    static let picture = SourceTrack(asset: "photo.png", trackID: 1, mediaType: .video,
                                     timeRange: TimeRange(start: .zero, duration: .zero), isStillImage: true)
    static let movie = SourceTrack(asset: "clip.mov", trackID: 1, mediaType: .video, duration: t("3"))

    static func composition() throws -> Composition {
        var composition = Composition()
        let video = composition.addTrack(.video)
        try composition.edit(track: video) { track in
            try track.insertHold(at: .zero, of: picture, at: .zero, duration: t("2.5"))
            try track.insert(TimeRange(start: .zero, duration: t("3")), of: movie, at: t("2.5"))
        }
        return composition
    }

    @Test func aPictureHeldThenAMovieIsValidAndTheirDurationsAdd() throws {
        let composition = try Self.composition()
        #expect(composition.duration == t("5.5"))
        #expect(composition.validate().isEmpty)
        let segments = try #require(composition.tracks.first).segments
        #expect(segments[0].isStill && segments[0].sourceTime(forTargetTime: t("2")) == .zero)
        #expect(segments.map(\.description) == [
            "timeRange [0.000,+2.500] from trackID 1 of asset photo.png still image",
            "timeRange [2.500,+3.000] from trackID 1 of asset clip.mov sourceTimeRange [0.000,+3.000] speed 1.00",
        ])
    }

    @Test func theTimelineDrawsTheStillLabelledAndInItsOwnColour() throws {
        let svg = TimelineSVG.render(composition: try Self.composition())
        #expect(svg.contains(">photo.png still image</text>"))
        #expect(svg.contains(#"fill="rgb(232,196,143)""#) && svg.contains(#"fill="rgb(143,179,232)""#))
    }
}
