import Testing
@testable import DropcutTimeline

/// The iPhone slow-motion track from the article (seed 000): 14 segments, built here with
/// `insert` + `scale` as a slow-motion editor would, and described back as the article
/// prints it.
@Suite struct SlowMotionTrackTests {
    /// The article's listing (AVCompositionTrackSegment descriptions), verbatim.
    static let article = [
        "timeRange [0.000,+2.475] from trackID 1 of asset ссылка sourceTimeRange [0.000,+2.475]",
        "timeRange [2.475,+0.015] from trackID 1 of asset ссылка sourceTimeRange [2.475,+0.013]",
        "timeRange [2.490,+0.045] from trackID 1 of asset ссылка sourceTimeRange [2.488,+0.033]",
        "timeRange [2.535,+0.083] from trackID 1 of asset ссылка sourceTimeRange [2.522,+0.048]",
        "timeRange [2.618,+0.130] from trackID 1 of asset ссылка sourceTimeRange [2.570,+0.055]",
        "timeRange [2.748,+0.182] from trackID 1 of asset ссылка sourceTimeRange [2.625,+0.050]",
        "timeRange [2.930,+84.748] from trackID 1 of asset ссылка sourceTimeRange [2.675,+10.593]",
        "timeRange [87.678,+0.107] from trackID 1 of asset ссылка sourceTimeRange [13.268,+0.028]",
        "timeRange [87.785,+0.075] from trackID 1 of asset ссылка sourceTimeRange [13.297,+0.032]",
        "timeRange [87.860,+0.048] from trackID 1 of asset ссылка sourceTimeRange [13.328,+0.028]",
        "timeRange [87.908,+0.027] from trackID 1 of asset ссылка sourceTimeRange [13.357,+0.020]",
        "timeRange [87.935,+0.008] from trackID 1 of asset ссылка sourceTimeRange [13.377,+0.008]",
        "timeRange [87.943,+0.078] from trackID 1 of asset ссылка sourceTimeRange [13.385,+0.080]",
        "timeRange [88.022,+2.375] from trackID 1 of asset ссылка sourceTimeRange [13.465,+2.375]",
    ]

    /// Exact durations that print back as the article's millisecond figures. The article
    /// rounds each number on its own (87.943 + 0.078 prints as 88.022), so the true values
    /// carry a fourth or fifth decimal; every segment still starts where the previous ends.
    static let targetDurations = ["2.475", "0.015", "0.045", "0.083", "0.130", "0.182", "84.748",
                                  "0.10725", "0.07455", "0.0482", "0.027", "0.0084", "0.0784", "2.375"]
    static let sourceDurations = ["2.475", "0.0134", "0.0332", "0.0484", "0.055", "0.050", "10.5934",
                                  "0.0283", "0.0317", "0.0283", "0.0200", "0.0083", "0.080", "2.375"]

    static func buildTrack() throws -> CompositionTrack {
        let movie = SourceTrack(asset: "ссылка", trackID: 1, mediaType: .video, duration: t("15.84"))
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insert(movie.timeRange, of: movie, at: .zero)
        // Scale each source piece in turn: piece i still plays at 1x, starting where the
        // already-scaled pieces end.
        var targetStart = MediaTime.zero
        for (target, source) in zip(targetDurations.map(t), sourceDurations.map(t)) {
            if target != source {
                try track.scale(TimeRange(start: targetStart, duration: source), toDuration: target)
            }
            targetStart += target
        }
        return track
    }

    @Test func describesBackAsTheArticlePrintsIt() throws {
        let track = try Self.buildTrack()
        let lines = track.segments.map { segment in
            // Our description adds " speed X.XX"; the article's stops at the source range.
            String(segment.description.split(separator: " speed ").first!)
        }
        #expect(lines == Self.article)
        #expect(track.segments.count == 14)
    }

    @Test func isContiguousAndEndsAt90_397() throws {
        let track = try Self.buildTrack()
        #expect(track.validate().isEmpty)
        #expect(track.end == t("90.3968"))
        #expect(track.end.description == "90.397")
        // No rounding anywhere: every time is exact.
        for segment in track.segments {
            #expect(!segment.target.start.hasBeenRounded && !segment.target.duration.hasBeenRounded)
            #expect(segment.source.map { !$0.timeRange.start.hasBeenRounded } ?? true)
        }
    }

    @Test func segmentEightPlaysAtAbout43Percent() throws {
        let segment = try Self.buildTrack().segments[8]
        #expect(segment.target.description == "[87.785,+0.075]")
        #expect(segment.source?.timeRange.description == "[13.297,+0.032]")
        #expect(abs(segment.speed - 0.43) < 0.005)
        #expect(segment.description.hasSuffix("speed 0.43"))
        // The 8x slow-motion body: 240 fps shown at 30 fps.
        #expect(abs(try Self.buildTrack().segments[6].speed - 0.125) < 0.0001)
    }

    @Test func sourceStaysContiguousAcrossSegments() throws {
        let segments = try Self.buildTrack().segments
        for (previous, next) in zip(segments, segments.dropFirst()) {
            #expect(previous.source!.timeRange.end == next.source!.timeRange.start)
        }
        #expect(segments.last!.source!.timeRange.end == t("15.84"))
    }
}
