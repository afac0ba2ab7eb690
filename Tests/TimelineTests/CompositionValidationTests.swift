import Testing
@testable import DropcutTimeline

@Suite struct CompositionValidationTests {
    static let clip = SourceTrack(asset: "clip.mov", trackID: 1, mediaType: .video, duration: 6)

    static func segment(_ target: TimeRange, source: TimeRange? = nil) -> TrackSegment {
        guard let source else { return TrackSegment(emptyTarget: target) }
        return TrackSegment(track: clip, sourceRange: source, target: target)
    }

    @Test func firstSegmentMustStartAtZero() {
        let problems = CompositionTrack.validateSegments([Self.segment(range("1", "2"))], trackID: 3)
        #expect(problems == [.doesNotStartAtZero(track: 3, start: 1)])
    }

    @Test func aGapIsReportedWithItsTimes() throws {
        let problems = CompositionTrack.validateSegments(
            [Self.segment(range("0", "2"), source: range("0", "2")), Self.segment(range("3", "1"), source: range("2", "1"))], trackID: 1)
        #expect(problems == [.notContiguous(track: 1, segment: 1, previousEnd: 2, start: 3)])
        #expect(problems.first?.isGap == true)
        #expect(problems.first?.description.contains("gap at segment 1: previous ends at 2.000, next starts at 3.000") == true)
    }

    @Test func anOverlapIsReportedWithItsTimes() {
        let problems = CompositionTrack.validateSegments(
            [Self.segment(range("0", "2")), Self.segment(range("1.5", "1"))], trackID: 1)
        #expect(problems == [.notContiguous(track: 1, segment: 1, previousEnd: 2, start: t("1.5"))])
        #expect(problems.first?.isGap == false)
    }

    @Test func nonPositiveTargetDurations() {
        let zero = CompositionTrack.validateSegments([Self.segment(range("0", "0"), source: range("0", "1"))], trackID: 2)
        #expect(zero == [.nonPositiveDuration(track: 2, segment: 0, target: range("0", "0"))])
        let negative = CompositionTrack.validateSegments(
            [Self.segment(range("0", "1")), Self.segment(TimeRange(start: 1, duration: -1))], trackID: 2)
        #expect(negative == [.nonPositiveDuration(track: 2, segment: 1, target: TimeRange(start: 1, duration: -1))])
    }

    @Test func sourceOutsideTheAsset() {
        let problems = CompositionTrack.validateSegments([Self.segment(range("0", "3"), source: range("4", "3"))], trackID: 1)
        #expect(problems == [.sourceOutsideAsset(track: 1, segment: 0, source: range("4", "3"), available: range("0", "6"))])
    }

    @Test func aZeroSourceDurationHoldsAFrameAndIsValid() {
        let problems = CompositionTrack.validateSegments(
            [Self.segment(range("0", "6"), source: range("0", "6")), Self.segment(range("6", "2"), source: range("6", "0"))], trackID: 1)
        #expect(problems.isEmpty)
    }

    @Test func invalidTimesAreReported() {
        let problems = CompositionTrack.validateSegments(
            [Self.segment(TimeRange(start: .zero, duration: .indefinite))], trackID: 1)
        #expect(problems == [.invalidTimeRange(track: 1, segment: 0, range: TimeRange(start: .zero, duration: .indefinite))])
    }

    @Test func everyErrorIsReportedInOnePass() {
        let problems = CompositionTrack.validateSegments(
            [Self.segment(range("0.5", "1"), source: range("0", "1")),   // not at zero
             Self.segment(range("2", "1"), source: range("5", "2")),     // gap, source past the end
             Self.segment(range("3", "0"))], trackID: 9)                // zero duration
        #expect(problems == [
            .doesNotStartAtZero(track: 9, start: t("0.5")),
            .notContiguous(track: 9, segment: 1, previousEnd: t("1.5"), start: 2),
            .sourceOutsideAsset(track: 9, segment: 1, source: range("5", "2"), available: range("0", "6")),
            .nonPositiveDuration(track: 9, segment: 2, target: range("3", "0")),
        ])
    }

    @Test func setSegmentsRefusesInvalidSegmentsAndKeepsTheTrack() throws {
        var track = CompositionTrack(trackID: 4, mediaType: .video)
        try track.insert(range("0", "2"), of: Self.clip, at: 0)
        let before = track
        #expect(throws: CompositionEditError.invalidSegments([.doesNotStartAtZero(track: 4, start: 1)])) {
            try track.setSegments([Self.segment(range("1", "1"))])
        }
        #expect(track == before)
        // The article's other way to build a held frame: segments set directly.
        try track.setSegments([Self.segment(range("0", "5"), source: range("0", "5")), Self.segment(range("5", "1"), source: range("5", "0"))])
        #expect(track.validate().isEmpty)
        #expect(track.end == 6)
    }

    @Test func editsRefuseBadArgumentsAndLeaveTheTrackAlone() throws {
        var track = CompositionTrack(trackID: 1, mediaType: .video)
        try track.insert(range("0", "2"), of: Self.clip, at: 0)
        let before = track
        #expect(throws: CompositionEditError.sourceOutsideAsset(source: range("5", "2"), available: range("0", "6"), asset: "clip.mov")) {
            try track.insert(range("5", "2"), of: Self.clip, at: 0)
        }
        let audio = SourceTrack(asset: "clip.mov", trackID: 2, mediaType: .audio, duration: 6)
        #expect(throws: CompositionEditError.mediaTypeMismatch(track: .video, source: .audio)) {
            try track.insert(range("0", "1"), of: audio, at: 0)
        }
        #expect(throws: CompositionEditError.invalidTime(-1)) { try track.insert(range("0", "1"), of: Self.clip, at: -1) }
        #expect(throws: CompositionEditError.invalidTimeRange(range("0", "0"))) { try track.insert(range("0", "0"), of: Self.clip, at: 0) }
        #expect(throws: CompositionEditError.invalidTime(0)) { try track.scale(range("0", "1"), toDuration: 0) }
        #expect(throws: CompositionEditError.invalidTimeRange(range("0", "0"))) { try track.insertEmpty(range("0", "0")) }
        #expect(track == before)
    }

    @Test func compositionReportsEveryTrack() throws {
        var composition = Composition()
        let v = composition.addTrack(.video), a = composition.addTrack(.audio, preferredTrackID: 10)
        #expect(v == 1 && a == 10)
        #expect(composition.addTrack(.audio, preferredTrackID: 10) == 11)   // taken: next free id
        #expect(throws: CompositionEditError.unknownTrack(99)) { try composition.edit(track: 99) { _ in } }
        try composition.edit(track: v) { try $0.insert(range("0", "2"), of: Self.clip, at: 0) }
        #expect(composition.validate().isEmpty)
        #expect(composition.duration == 2)
    }
}

@Suite struct VideoCompositionValidationTests {
    /// A 10 s composition with video tracks 1 and 2 and audio track 3.
    static func composition() throws -> Composition {
        let clip = SourceTrack(asset: "clip.mov", trackID: 1, mediaType: .video, duration: 10)
        let sound = SourceTrack(asset: "clip.mov", trackID: 2, mediaType: .audio, duration: 10)
        var composition = Composition()
        let v1 = composition.addTrack(.video), v2 = composition.addTrack(.video), a = composition.addTrack(.audio)
        try composition.edit(track: v1) { try $0.insert(range("0", "6"), of: clip, at: 0) }
        try composition.edit(track: v2) { try $0.insert(range("0", "10"), of: clip, at: 0) }
        try composition.edit(track: a) { try $0.insert(range("0", "10"), of: sound, at: 0) }
        return composition
    }

    static func video(_ ranges: [TimeRange], layers: [TrackID] = [1]) -> VideoComposition {
        VideoComposition(renderSize: PixelSize(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 30),
                         instructions: ranges.map { r in
                             VideoCompositionInstruction(timeRange: r, layerInstructions: layers.map { LayerInstruction(trackID: $0) })
                         })
    }

    @Test func validWhenInstructionsTileTheComposition() throws {
        #expect(Self.video([range("0", "6"), range("6", "4")]).validate(for: try Self.composition()).isEmpty)
    }

    @Test func emptyTimeRangeForAGapAndForAnUncoveredTail() throws {
        let composition = try Self.composition()
        #expect(Self.video([range("0", "4"), range("5", "5")]).validate(for: composition) == [.emptyTimeRange(range("4", "1"))])
        #expect(Self.video([range("0", "8")]).validate(for: composition) == [.emptyTimeRange(range("8", "2"))])
        #expect(Self.video([range("1", "9")]).validate(for: composition) == [.emptyTimeRange(range("0", "1"))])
        #expect(Self.video([]).validate(for: composition) == [.emptyTimeRange(range("0", "10"))])
    }

    @Test func invalidTimeRangeForOverlapOrderEmptinessAndOverrun() throws {
        let composition = try Self.composition()
        #expect(Self.video([range("0", "6"), range("5", "5")]).validate(for: composition)
            == [.invalidTimeRange(instruction: 1, range: range("5", "5"))])
        #expect(Self.video([range("6", "4"), range("0", "6")]).validate(for: composition)
            == [.emptyTimeRange(range("0", "6")), .invalidTimeRange(instruction: 1, range: range("0", "6"))])
        #expect(Self.video([range("0", "10"), range("10", "0")]).validate(for: composition)
            == [.invalidTimeRange(instruction: 1, range: range("10", "0"))])
        #expect(Self.video([range("0", "12")]).validate(for: composition) == [.invalidTimeRange(instruction: 0, range: range("0", "12"))])
        #expect(Self.video([TimeRange(start: .zero, duration: .invalid), range("0", "10")]).validate(for: composition)
            == [.invalidTimeRange(instruction: 0, range: TimeRange(start: .zero, duration: .invalid))])
    }

    @Test func invalidValueForRenderSizeFrameDurationAndOpacity() throws {
        let composition = try Self.composition()
        var video = Self.video([range("0", "10")])
        video.renderSize = PixelSize(width: 0, height: 240)
        video.frameDuration = .zero
        #expect(video.validate(for: composition) == [.invalidValue(key: "renderSize"), .invalidValue(key: "frameDuration")])
        video = Self.video([range("0", "10")])
        try video.instructions[0].layerInstructions[0].setOpacityRamp(from: 0, to: 1.5, range: range("0", "1"))
        #expect(video.validate(for: composition) == [.invalidValue(key: "opacity")])
    }

    @Test func invalidTrackIDForMissingOrAudioTracks() throws {
        let composition = try Self.composition()
        #expect(Self.video([range("0", "10")], layers: [2, 3, 99]).validate(for: composition) == [
            .invalidTrackID(instruction: 0, layer: 1, trackID: 3),
            .invalidTrackID(instruction: 0, layer: 2, trackID: 99),
        ])
    }

    @Test func instructionLookupFindsTheCoveringInstruction() {
        let video = Self.video([range("0", "6"), range("6", "4")])
        #expect(video.instruction(at: t("5.999"))?.timeRange == range("0", "6"))
        #expect(video.instruction(at: 6)?.timeRange == range("6", "4"))
        #expect(video.instruction(at: 10) == nil)
    }

    @Test func audioMixFlagsParametersForNonAudioTracks() throws {
        var mix = AudioMix()
        try mix.edit(track: 3) { try $0.setVolume(0.5, at: 0) }
        try mix.edit(track: 1) { try $0.setVolume(0.5, at: 0) }
        #expect(mix.invalidTrackIDs(for: try Self.composition()) == [1])
    }
}
