import Foundation
import Testing
import TestSupport
import DropcutTimeline
@testable import DropcutMediaIO

/// `KeyframeIndex`'s frame duration: the one step between pictures, or the stream's nominal
/// rate when a clock rounds each picture's time to its ticks (a phone's 29.97 fps on 600 Hz:
/// 20 ticks apart, now and then 21), and none for a variable rate.
@Suite struct KeyframeIndexTests {
    static let ntsc = MediaTime(value: 1001, timescale: 30000)
    static let clock600 = MediaTime(value: 1, timescale: 600)

    /// Frame `k` of 29.97 fps as a 600 Hz clock stamps it.
    static func stamps(_ count: Int, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> [Int64] {
        (0..<count).map { ntsc.multiplied(by: Int64($0), dividedBy: 1).convertScale(600, rounding: rounding).value }
    }

    @Test func aRegularStepIsTheFrameDuration() {
        #expect(KeyframeIndex.frameDuration([0, 20, 40, 60], timeBase: Self.clock600, nominal: Self.ntsc)
                == MediaTime(value: 20, timescale: 600))
        #expect(KeyframeIndex.frameDuration([0], timeBase: Self.clock600, nominal: Self.ntsc) == nil)
    }

    @Test(arguments: [FloatingPointRoundingRule.down, .toNearestOrAwayFromZero, .up])
    func aClocksRoundingKeepsTheNominalRate(_ rounding: FloatingPointRoundingRule) {
        let stamps = Self.stamps(1800, rounding: rounding)
        #expect(Set(zip(stamps.dropFirst(), stamps).map { $0 - $1 }) == [20, 21])
        #expect(KeyframeIndex.frameDuration(stamps, timeBase: Self.clock600, nominal: Self.ntsc) == Self.ntsc)
        // Without a nominal rate, none.
        #expect(KeyframeIndex.frameDuration(stamps, timeBase: Self.clock600, nominal: nil) == nil)
    }

    @Test func aVariableRateOffTheGridHasNone() {
        // A 30 fps clock against a 29.97 nominal rate: a minute drifts two frames off.
        let thirty: [Int64] = (0..<1800).map { (k: Int) -> Int64 in Int64(k * 20 + (k == 900 ? 1 : 0)) }
        #expect(KeyframeIndex.frameDuration(thirty, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
        // Slow then fast (a phone in low light), a frame and a half apart.
        let variable: [Int64] = (0..<60).map { (k: Int) -> Int64 in k < 30 ? Int64(k * 20) : Int64(600 + (k - 30) * 30) }
        #expect(KeyframeIndex.frameDuration(variable, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
        // Two pictures on one frame.
        #expect(KeyframeIndex.layout([0, 20, 22, 40], timeBase: Self.clock600, nominal: Self.ntsc) == nil)
    }

    /// Frames a phone left out (one dropped; in low light every other one, as an iPhone's
    /// Live Photo goes from 30 to 15 fps) are places on the grid no picture is on.
    @Test func framesLeftOutAreMissingPlacesOnTheGrid() throws {
        var dropped = Self.stamps(90)
        dropped.remove(at: 45)
        let one = try #require(KeyframeIndex.layout(dropped, timeBase: Self.clock600, nominal: Self.ntsc))
        #expect(one.frameDuration == Self.ntsc && one.frames == 90 && one.missing == [45])
        // 30 frames, then every other frame of 30 more.
        let halved = Self.stamps(30) + Self.stamps(60).dropFirst(30).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let half = try #require(KeyframeIndex.layout(halved, timeBase: Self.clock600, nominal: Self.ntsc))
        #expect(half.frames == 59 && half.missing == Array(stride(from: 31, to: 59, by: 2)))
        // A picture every fourth frame is a rate of its own, not frames left out of this one.
        let sparse = Self.stamps(400).enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        #expect(KeyframeIndex.layout(sparse, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
        // A jump far ahead is no list of millions of missing frames.
        #expect(KeyframeIndex.layout([0, 20, 40, 20 * 10_000_000], timeBase: Self.clock600, nominal: Self.ntsc) == nil)
    }

    /// A real file made so: its pictures are indexed at 29.97 fps.
    @Test func aFileStampedByA600HzClockIsIndexedAtItsRate() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("phone.mp4")
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001:duration=3",
                                     "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-video_track_timescale", "600"],
                                    output: path)
        let index = try KeyframeIndex.scan(path: path, trackID: 1)
        #expect(index.frameDuration == Self.ntsc)
        #expect(index.frameCount == 90)
    }

    /// A real file with frames left out and reordered pictures (x264's B-frames): its
    /// missing frames are found, and its pictures are decoded as far ahead as the same
    /// clip's without the gap (ranked among the pictures, not by their places).
    @Test func aFileWithFramesLeftOutIsIndexedOnItsGrid() async throws {
        let dir = try TemporaryDirectory()
        let whole = dir.file("whole.mp4"), gapped = dir.file("gapped.mp4")
        let encode = ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "30", "-video_track_timescale", "600"]
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=3"] + encode, output: whole)
        try await Fixtures.generate(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30:duration=3",
                                     "-vf", "select='not(between(n,40,44))'", "-fps_mode", "passthrough"] + encode,
                                    output: gapped)
        let full = try KeyframeIndex.scan(path: whole, trackID: 1)
        let index = try KeyframeIndex.scan(path: gapped, trackID: 1)
        #expect(index.frameDuration == MediaTime(value: 1, timescale: 30), "\(String(describing: index.frameDuration))")
        #expect(index.frameCount == 90 && index.missingFrames == Array(40...44))
        #expect(full.reorderDepth > 0 && index.reorderDepth == full.reorderDepth)
    }
}
