import Foundation
@testable import DropcutMediaIO
import Testing
import TestSupport
import DropcutTimeline

/// A measured length is the one the packets' content supports (issue 28): a stray damaged
/// timestamp, or timestamps spread an hour apart, must not make a 2 s stream last hours —
/// zzuf-mutated phone clips made compositions of 65 000 frames that way — while real holds
/// and pauses keep their length.
@Suite struct PacketSpansTests {
    /// 1/15360, the time base ffmpeg's MP4 muxer gives 30 fps video: 512 ticks a frame.
    static let timeBase = MediaTime(value: 1, timescale: 15360)

    static func frames(_ count: Int, from first: Int64 = 0, into spans: inout PacketSpans) {
        for n in 0..<Int64(count) { spans.add(stream: 0, start: first + n * 512, duration: 512) }
    }

    @Test func oneFrameFarPastTheOthersCountsForNothing() {
        var spans = PacketSpans()
        Self.frames(59, into: &spans)
        spans.add(stream: 0, start: 33_566_720, duration: 512)   // i35: 2185 s, a damaged ctts entry
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(59 * 512))
        #expect(spans.endTicks(of: 0, timeBase: Self.timeBase) == Int64(59 * 512))
    }

    @Test func twoStrayFramesBeforeTheContentCountForNothing() {
        var spans = PacketSpans()
        spans.add(stream: 0, start: -90_000_000, duration: 512)
        spans.add(stream: 0, start: -80_000_000, duration: 512)
        Self.frames(60, into: &spans)
        #expect(spans.span(of: 0, timeBase: Self.timeBase)! == (0, 60 * 512))
    }

    /// Every frame an hour from the next (a damaged sample delta): no run is longer than
    /// one frame, and the earliest is taken.
    @Test func framesSpreadHoursApartLastOneFrame() {
        var spans = PacketSpans()
        for n in 0..<Int64(45) { spans.add(stream: 0, start: n * 67_108_352, duration: 512) }
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(512))
    }

    /// A still held for an hour, stated by its packet's duration (a podcast's cover
    /// picture as one sample): no gap, the whole hour.
    @Test func aHoldStatedByThePacketsDurationIsNoGap() {
        var spans = PacketSpans()
        spans.add(stream: 0, start: 0, duration: 3600 * 15360)
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(3600 * 15360))
        var frames = PacketSpans()
        Self.frames(30, into: &frames)
        frames.add(stream: 0, start: 30 * 512, duration: 60 * 15360)   // a minute on one slide
        Self.frames(30, from: 30 * 512 + 60 * 15360, into: &frames)
        #expect(frames.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(60 * 512 + 60 * 15360))
    }

    /// A recording without packet durations (a browser's WebM) that stalled for 5 s and
    /// resumed: both parts are content, and the pause between them counts.
    @Test func aPauseBetweenTwoPartsCounts() {
        var spans = PacketSpans()
        for n in 0..<Int64(50) { spans.add(stream: 0, start: n * 33, duration: 0) }
        for n in 0..<Int64(50) { spans.add(stream: 0, start: 6650 + n * 33, duration: 0) }
        let timeBase = MediaTime(value: 1, timescale: 1000)
        #expect(spans.durationTicks(of: 0, timeBase: timeBase) == Int64(6650 + 49 * 33))
    }

    /// A damaged sample delta shifting all frames after the fourth by 2184 s (i257): the
    /// "pause" is far longer than 10 s and than the content, so the stream is its
    /// largest part; the same with the last 5 frames shifted 546 s away (i310).
    @Test func aPartShiftedFarAwayIsNotPartOfTheStream() {
        var spans = PacketSpans()
        Self.frames(4, into: &spans)
        Self.frames(56, from: 2184 * 15360, into: &spans)
        let shifted: Int64 = 2184 * 15360
        #expect(spans.span(of: 0, timeBase: Self.timeBase)! == (shifted, shifted + 56 * 512))
        var tail = PacketSpans()
        Self.frames(55, into: &tail)
        Self.frames(5, from: 546 * 15360, into: &tail)
        #expect(tail.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(55 * 512))
    }

    /// A long recording may pause for longer than 10 s: up to as long as what it holds.
    @Test func aPauseNoLongerThanTheContentCounts() {
        var spans = PacketSpans()
        Self.frames(30 * 60, into: &spans)                                 // a minute
        Self.frames(30 * 60, from: 30 * 60 * 512 + 50 * 15360, into: &spans)  // 50 s later, another
        let expected: Int64 = 2 * 30 * 60 * 512 + 50 * 15360
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == expected)
    }

    /// One damaged sample delta in a variable-rate clip's `stts` (bit 26 of the frame
    /// that held 7 frame times): that frame lasts 4369 s and the 34 after it follow it,
    /// no gap between. Measured (header and packets disagree), no packet lasts longer than
    /// 10 times the median (at least 1 s): the stream is 2 s at most, not 4370.
    @Test func aHugeHoldDoesNotCountWhenDurationsAreNotTrusted() {
        var spans = PacketSpans()
        Self.frames(19, into: &spans)
        let hold: Int64 = 3584 | 1 << 26
        spans.add(stream: 0, start: 19 * 512, duration: hold)
        Self.frames(34, from: 19 * 512 + hold, into: &spans)
        let measured = spans.durationTicks(of: 0, timeBase: Self.timeBase, trustingDurations: false) ?? .max
        #expect(measured <= 2 * 15360, "\(measured) ticks")
        // Where the header agrees, a hold is what the file means: the tail check trusts it.
        let trusted: Int64 = 19 * 512 + hold + 34 * 512
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == trusted)
    }

    @Test func timestampsAtTheEdgesOfInt64DoNotOverflow() {
        var spans = PacketSpans()
        spans.add(stream: 0, start: .max, duration: .max)
        spans.add(stream: 0, start: .min, duration: 512)
        Self.frames(10, into: &spans)
        #expect(spans.durationTicks(of: 0, timeBase: Self.timeBase) == Int64(10 * 512))
        #expect(PacketSpans().durationTicks(of: 0, timeBase: Self.timeBase) == nil)
    }

    /// Audio in fixed blocks lasts no longer than its packets hold (issue 28: a damaged
    /// time base spread 2 s of AAC over 72 s), and never less than a real stream does:
    /// for a real 2 s AAC track and an MP3, the bound lies between the stream's length
    /// and a fifth more.
    @Test(arguments: ["clip.m4a", "clip.mp3"])
    func audioContentBoundsARealStreamFromAbove(name: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file(name)
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                          "-i", "sine=frequency=440:sample_rate=44100:duration=2", path])
        let demuxer = try Demuxer(path: path)
        let index = try #require(demuxer.streams.firstIndex { $0.kind == .audio })
        var spans = PacketSpans()
        try demuxer.readSpans(into: &spans)
        let content = try #require(demuxer.audioContent(ofStream: index, packets: spans.packetCount(of: index)))
        #expect(content.seconds >= 2 && content.seconds <= 2.4, "\(name): \(content.seconds) s for 2 s")
    }
}
