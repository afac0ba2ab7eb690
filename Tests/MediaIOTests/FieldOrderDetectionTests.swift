import Foundation
@testable import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

/// Issue 18: a video stream that does not say whether it is interlaced is asked through
/// its first frame — FFV1 and DV, whose streams FFmpeg leaves `unknown` while their frames
/// are flagged interlaced — and a stream that states its order (progressive included) is
/// believed. Each fixture is first checked with ffprobe, the oracle: stream order unknown
/// (absent from its JSON), frames flagged as the test expects.
@Suite struct FieldOrderDetectionTests {
    /// Fails unless ffprobe finds `path`'s video stream without a field order and its first
    /// frames flagged `interlaced` (all in `topFirst` order when interlaced).
    static func requireUnstated(_ path: String, interlaced: Bool, topFirst: Bool = false) throws {
        let stream = try #require(try FFprobe.stream("video", of: path))
        try #require(stream.fieldOrder == nil || stream.fieldOrder == "unknown", "the stream states \(stream.fieldOrder ?? "")")
        let frames = try FFprobe.frameFields(of: path)
        try #require(frames.count == 4)
        try #require(frames.allSatisfy { $0.interlaced == interlaced && (!interlaced || $0.topFieldFirst == topFirst) },
                     "frames: \(frames)")
    }

    @Test(arguments: [true, false])
    func interlacedFramesGiveTheOrderTheStreamLeavesUnknown(topFirst: Bool) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try UnstatedFieldOrderFixture.interlaced(topFirst: topFirst, width: 320, height: 240, in: dir.path)
        try Self.requireUnstated(clip, interlaced: true, topFirst: topFirst)

        // What the stream itself says: nothing.
        let stream = try #require(try Demuxer(path: clip).streams.first)
        #expect(!stream.statesFieldOrder && stream.fieldOrder == nil)
        // What the probe makes of it: its frames' order, so the builder's field rate is 50.
        let video = try #require(try AssetProbe().probe(clip).video)
        #expect(video.fieldOrder == (topFirst ? .topFirst : .bottomFirst))
        #expect(video.isInterlaced)
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 25))
        #expect(video.fieldDuration == MediaTime(value: 1, timescale: 50))
    }

    @Test func progressiveFramesStayProgressive() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try UnstatedFieldOrderFixture.progressive(width: 320, height: 240, in: dir.path)
        try Self.requireUnstated(clip, interlaced: false)

        let demuxer = try Demuxer(path: clip)
        #expect(!demuxer.streams[0].statesFieldOrder)
        let video = try #require(try AssetProbe().probe(clip).video)
        #expect(video.fieldOrder == nil && !video.isInterlaced)
        #expect(video.frameDuration == MediaTime(value: 1, timescale: 25))
    }

    /// A stream that states its order is not asked: the same interlaced frames behind a
    /// stream taken as stating progressive stay progressive. (Asking never moves the
    /// demuxer it is given: the frames are read by one of their own.)
    @Test func aStatedOrderIsBelieved() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try UnstatedFieldOrderFixture.interlaced(topFirst: true, width: 320, height: 240, in: dir.path)
        let demuxer = try Demuxer(path: clip)
        var stated = demuxer.streams[0]
        #expect(try FieldOrderDetection.resolved(stated, of: demuxer).fieldOrder == .topFirst)
        stated.statesFieldOrder = true
        #expect(try FieldOrderDetection.resolved(stated, of: demuxer).fieldOrder == nil)
        #expect(demuxer.packetsRead == 0)

        // A real stated order: interlaced H.264, whose parser states it.
        let h264 = dir.file("h264-bff.mp4")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", clip,
                                          "-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ilme+ildct",
                                          "-x264-params", "bff=1", h264])
        let h264Stream = try #require(try Demuxer(path: h264).streams.first)
        #expect(h264Stream.statesFieldOrder && h264Stream.fieldOrder == .bottomFirst)
    }

    /// The look is cheap: one packet of an intra-coded stream gives the first frame.
    @Test func theFirstFrameDecidesAfterOnePacket() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try UnstatedFieldOrderFixture.interlaced(topFirst: false, width: 320, height: 240, in: dir.path)
        let demuxer = try Demuxer(path: clip)
        #expect(try FieldOrderDetection.firstFrameFieldOrder(ofStream: 0, in: demuxer) == .bottomFirst)
        #expect(demuxer.packetsRead == 1)
    }

    /// PAL DV, what camcorders recorded for a decade: FFmpeg states no order for it in any
    /// container, and its frames are bottom field first.
    @Test(arguments: ["dv.dv", "dv.avi", "dv.mov"])
    func dvIsBottomFieldFirst(name: String) throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try UnstatedFieldOrderFixture.dv(name: name, in: dir.path)
        try Self.requireUnstated(clip, interlaced: true, topFirst: false)
        let video = try #require(try AssetProbe().probe(clip).video)
        #expect(video.fieldOrder == .bottomFirst)
        #expect(video.fieldDuration == MediaTime(value: 1, timescale: 50))
    }

    /// Field-coded HEVC is not asked: FFmpeg 5.1 decodes it one field per picture, each
    /// flagged interlaced, so the flag says nothing of woven frames. (FFmpeg states an
    /// order for every HEVC stream whose frame `avformat_find_stream_info` decoded, so the
    /// unknown one — a stream whose first frames could not be decoded there — is made on
    /// the stream's description.)
    @Test func fieldCodedHEVCIsNotTakenForWovenFrames() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = dir.file("fields.mkv")
        try Command.runChecked("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=50:duration=1",
                                          "-vf", "tinterlace=interleave_top,format=yuv420p",
                                          "-c:v", "libx265", "-x265-params", "interlace=tff:log-level=error", clip])
        // One picture per field: each flagged interlaced, the top ones and the bottom ones.
        let fields = try FFprobe.frameFields(of: clip, count: 6)
        try #require(fields.count >= 4 && fields.allSatisfy(\.interlaced), "\(fields)")
        try #require(fields.first?.topFieldFirst == true && fields.contains { !$0.topFieldFirst }, "\(fields)")

        let demuxer = try Demuxer(path: clip)
        var unstated = demuxer.streams[0]
        try #require(unstated.codecName == "hevc")
        unstated.statesFieldOrder = false
        unstated.fieldOrder = nil
        #expect(try FieldOrderDetection.resolved(unstated, of: demuxer).fieldOrder == nil)
        // What its first picture's flags alone would have said.
        #expect(try FieldOrderDetection.firstFrameFieldOrder(ofStream: 0, in: demuxer.reopened()) == .topFirst)
    }
}
