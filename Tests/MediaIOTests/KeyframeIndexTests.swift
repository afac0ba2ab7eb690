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

    @Test func aVariableRateOrADroppedFrameHasNone() {
        var dropped = Self.stamps(90)
        dropped.remove(at: 45)
        #expect(KeyframeIndex.frameDuration(dropped, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
        // A 30 fps clock against a 29.97 nominal rate: a minute drifts two frames off.
        let thirty: [Int64] = (0..<1800).map { (k: Int) -> Int64 in Int64(k * 20 + (k == 900 ? 1 : 0)) }
        #expect(KeyframeIndex.frameDuration(thirty, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
        // Slow then fast (a phone in low light).
        let variable: [Int64] = (0..<60).map { (k: Int) -> Int64 in k < 30 ? Int64(k * 20) : Int64(600 + (k - 30) * 30) }
        #expect(KeyframeIndex.frameDuration(variable, timeBase: Self.clock600, nominal: Self.ntsc) == nil)
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
}
