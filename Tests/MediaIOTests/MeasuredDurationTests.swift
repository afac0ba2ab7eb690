import Foundation
@testable import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

/// Durations are not taken from headers on trust (issue 17): where the container's is
/// missing or disagrees with the packets, the probe measures the packets (no decoding);
/// an ordinary file costs a look at its last second only. ffprobe is the oracle for what
/// the headers claim.
@Suite struct MeasuredDurationTests {
    /// The clips are 2 s; a measured length may miss AAC's last partial frame or a
    /// packet's duration.
    static let tolerance = 0.1

    static func claimedSeconds(_ path: String) throws -> Double? {
        try FFprobe.format(of: path).duration.flatMap(Double.init)
    }

    @Test func aFragmentedMP4WhoseIndexClaimsHoursLastsAsLongAsItsPackets() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeFragmentedMP4WithMisstatedDuration(in: dir.path)
        let claimed = try #require(try Self.claimedSeconds(clip))
        try #require(claimed > 100_000, "the fixture's header should claim hours, ffprobe says \(claimed) s")

        let start = Date()
        let media = try AssetProbe().probe(clip)
        let seconds = Date().timeIntervalSince(start)

        let video = try #require(media.video), audio = try #require(media.audio)
        print("fragmented MP4: header \(claimed) s, probed \(media.duration.seconds) s (video \(video.timeRange.duration.seconds), audio \(audio.timeRange.duration.seconds)) in \(String(format: "%.1f", seconds * 1000)) ms")
        #expect(abs(media.duration.seconds - 2) < Self.tolerance, "\(media.duration.seconds) s")
        #expect(abs(video.timeRange.duration.seconds - 2) < Self.tolerance, "\(video.timeRange.duration.seconds) s")
        #expect(abs(audio.timeRange.duration.seconds - 2) < Self.tolerance, "\(audio.timeRange.duration.seconds) s")
    }

    @Test func aWebMWithoutADurationLastsAsLongAsItsPackets() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeWebMWithoutDuration(in: dir.path)
        try #require(try Self.claimedSeconds(clip) == nil, "the fixture should state no duration")

        let media = try AssetProbe().probe(clip)

        let video = try #require(media.video), audio = try #require(media.audio)
        #expect(abs(media.duration.seconds - 2) < Self.tolerance, "\(media.duration.seconds) s")
        #expect(abs(video.timeRange.duration.seconds - 2) < Self.tolerance, "\(video.timeRange.duration.seconds) s")
        #expect(abs(audio.timeRange.duration.seconds - 2) < Self.tolerance, "\(audio.timeRange.duration.seconds) s")
    }

    /// A file cut short (a copy interrupted, an upload that stopped) keeps the header it
    /// had, and its sample index places media past the end of the file: it is refused as
    /// incomplete, not rendered as half a clip passed off as the whole.
    @Test func aTruncatedMP4IsRefusedAsIncomplete() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let whole = try Fixtures.makeClip(in: dir.path, name: "whole.mp4", seconds: 4, audio: false)
        let cut = dir.file("cut.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-i", whole, "-c", "copy", "-movflags", "+faststart", cut])
        let data = try Data(contentsOf: URL(fileURLWithPath: cut))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let claimed = try #require(try Self.claimedSeconds(cut))
        try #require(abs(claimed - 4) < Self.tolerance, "the cut file's header should still say 4 s, ffprobe says \(claimed) s")

        do {
            _ = try AssetProbe().probe(cut)
            Issue.record("a file cut in half was probed as if whole")
        } catch {
            #expect("\(error)".contains("\(cut): stream 0: the file is incomplete"), "\(error)")
            #expect("\(error)".contains("detail: the sample index: Invalid data found when processing input"), "\(error)")
        }
        // The whole file passes the same check.
        #expect(abs((try AssetProbe().probe(whole)).duration.seconds - 4) < Self.tolerance)
    }

    /// An ordinary MP4 is believed after a look at its tail: the header's durations,
    /// exactly, from a small part of its packets.
    @Test func anOrdinaryMP4IsCheckedWithoutReadingItWhole() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path, seconds: 20)
        let all = try Demuxer(path: clip)
        _ = try all.measuredDurations()

        let demuxer = try Demuxer(path: clip)
        let used = demuxer.streams.filter { $0.kind == .video || $0.kind == .audio }
        let start = Date()
        let durations = try DurationCheck.durations(of: demuxer, streams: used)
        let seconds = Date().timeIntervalSince(start)

        print("plain 20 s MP4: checked with \(demuxer.packetsRead) of \(all.packetsRead) packets in \(String(format: "%.1f", seconds * 1000)) ms")
        #expect(demuxer.packetsRead * 5 < all.packetsRead, "read \(demuxer.packetsRead) of \(all.packetsRead) packets")
        for stream in used {
            #expect(durations.streams[stream.index] == stream.duration, "stream \(stream.index)")
        }
        #expect(durations.container == demuxer.duration)
    }

    /// A track whose packets cannot be found lasts no longer than those that can: a header
    /// cannot make an empty track last hours.
    @Test func aTrackWithoutPacketsLastsNoLongerThanTheFile() {
        let video = StreamInfo(index: 0, kind: .video, codecName: "h264", timeBase: MediaTime(value: 1, timescale: 15360),
                               duration: MediaTime(seconds: 140_000), size: PixelSize(width: 320, height: 240))
        let audio = StreamInfo(index: 1, kind: .audio, codecName: "aac", timeBase: MediaTime(value: 1, timescale: 48000),
                               duration: MediaTime(seconds: 140_000), sampleRate: 48000, channels: 1)
        let believed = DurationCheck.believed(container: MediaTime(seconds: 140_000), measured: [0: MediaTime(seconds: 2)],
                                              used: [video, audio])
        #expect(believed == .init(container: MediaTime(seconds: 2), streams: [0: MediaTime(seconds: 2), 1: MediaTime(seconds: 2)]))
    }

    @Test(arguments: [
        (0.5, 0.58, false), (0.5, 0.65, true),      // under a second: 0.1 s
        (2.0, 2.15, false), (2.0, 2.25, true),      // 10 % of the shorter
        (5.0, 5.4, false), (5.0, 5.6, true),
        (60.0, 60.9, false), (60.0, 61.5, true),    // long ones: 1 s
        (2.0, 139_811.0, true),
    ])
    func durationsDifferBeyondTheTolerance(a: Double, b: Double, differ: Bool) {
        let x = MediaTime(seconds: a, preferredTimescale: 1000), y = MediaTime(seconds: b, preferredTimescale: 1000)
        #expect(DurationCheck.differ(x, y) == differ)
        #expect(DurationCheck.differ(y, x) == differ)
    }

    @Test func headerNumbersThatAreNotLengthsAreNotUsed() {
        #expect(DurationCheck.usable(.invalid) == nil)
        #expect(DurationCheck.usable(.positiveInfinity) == nil)
        #expect(DurationCheck.usable(MediaTime(value: -5, timescale: 1)) == nil)
        #expect(DurationCheck.usable(.zero) == nil)
        #expect(DurationCheck.usable(MediaTime(value: 3, timescale: 2)) == MediaTime(value: 3, timescale: 2))
    }
}
