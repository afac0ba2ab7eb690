import Foundation
@testable import DropcutMediaIO
import TestSupport
import Testing
import DropcutTimeline

@Suite struct VideoTrackReaderTests {
    /// A 64x64 clip at `fps` whose frame n carries its number — luma 4·(n mod 60), blue
    /// chroma 64 + 32·⌊n/60⌋ — encoded losslessly with B-frames, so decode order differs
    /// from display order and every frame up to 240 is unique.
    static func numberedClip(fps: Int = 30, seconds: Int = 2, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("numbered-\(fps).mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                          "-i", "color=black:s=64x64:r=\(fps):d=\(seconds),format=yuv420p,geq=lum='4*mod(N,60)':cb='64+32*floor(N/60)':cr=128",
                                          "-c:v", "libx264", "-qp", "0", "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p", path])
        return path
    }

    /// The frame number a decoded frame carries.
    static func number(_ frame: VideoFrame) -> Int {
        func mean(_ plane: Int) -> Double {
            frame.withPlane(plane) { bytes, stride in
                var sum = 0
                for y in 0..<frame.planeHeight(plane) { for x in 0..<frame.planeWidth(plane) { sum += Int(bytes[y * stride + x]) } }
                return Double(sum) / Double(frame.planeWidth(plane) * frame.planeHeight(plane))
            }
        }
        return Int((mean(0) / 4).rounded()) + 60 * Int(((mean(1) - 64) / 32).rounded())
    }

    /// 29.97 fps stamped by a 600 Hz clock (20 ticks apart, now and then 21; about half
    /// the frames a fraction of a tick after their place on the grid): asked at each place,
    /// the reader gives that place's frame — none shown twice, none left out — and a time
    /// a little more than an eighth of a frame before a frame's stamp is still the frame before.
    @Test func aPhoneClocksLateStampsAreTheFramesOfTheirPlaces() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let path = dir.file("stamped.mp4")
        try Command.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi",
                                          "-i", "color=black:s=64x64:r=30000/1001:d=4,format=yuv420p,geq=lum='4*mod(N,60)':cb='64+32*floor(N/60)':cr=128",
                                          "-c:v", "libx264", "-qp", "0", "-bf", "2", "-g", "12", "-pix_fmt", "yuv420p",
                                          "-video_track_timescale", "600", path])
        let ntsc = MediaTime(value: 1001, timescale: 30000)
        let reader = try VideoTrackReader(path: path, trackID: 1)
        var late = 0
        for n in 0..<119 {
            let place = ntsc.multiplied(by: Int64(n), dividedBy: 1)
            if place.convertScale(600, rounding: .toNearestOrAwayFromZero) > place { late += 1 }
            let frame = try #require(try reader.frame(at: place))
            #expect(Self.number(frame) == n, "place \(n)")
        }
        #expect(late > 30, "the fixture stamps frames after their places: \(late)")
        // Frame 1 is stamped at 20/600 s: a sixth of a frame before that, frame 0 shows.
        let early = MediaTime(value: 20, timescale: 600) - ntsc.multiplied(by: 1, dividedBy: 6)
        let before = try #require(try reader.frame(at: early))
        #expect(Self.number(before) == 0)
    }

    @Test func sequentialRequestsReturnEachFrameInOrder() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let reader = try VideoTrackReader(path: try Self.numberedClip(in: dir), trackID: 1)
        for n in 0..<60 {
            let frame = try #require(try reader.frame(at: MediaTime(value: Int64(n), timescale: 30)))
            #expect(Self.number(frame) == n, "frame \(n)")
            #expect(frame.size == PixelSize(width: 64, height: 64))
        }
    }

    @Test func timesBetweenFramesGiveTheFrameWhoseIntervalCoversThem() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let reader = try VideoTrackReader(path: try Self.numberedClip(in: dir), trackID: 1)
        // 10.99/30 s is still frame 10; 11/30 s exactly is frame 11.
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(value: 1099, timescale: 3000)))) == 10)
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(value: 11, timescale: 30)))) == 11)
        // Slow motion at 1/4: each frame is asked for four times and decoded once.
        let slow = try (0..<16).map { i in Self.number(try #require(try reader.frame(at: MediaTime(value: Int64(48 + i), timescale: 120)))) }
        #expect(slow == [12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15])
    }

    @Test func jumpsBackAndFarAheadSeek() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let reader = try VideoTrackReader(path: try Self.numberedClip(fps: 30, seconds: 6, in: dir), trackID: 1)
        reader.seekAhead = MediaTime(seconds: 1)
        for n in [100, 5, 170, 171, 3, 60, 59] {
            let frame = try #require(try reader.frame(at: MediaTime(value: Int64(n), timescale: 30)))
            #expect(Self.number(frame) == n, "frame \(n)")
        }
    }

    @Test func beforeTheFirstAndAfterTheLastFrame() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let reader = try VideoTrackReader(path: try Self.numberedClip(in: dir), trackID: 1)
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(value: -1, timescale: 10)))) == 0)
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(seconds: 50)))) == 59)
    }

    /// A composition longer than its video holds the last frame: once the stream has
    /// ended, holding it reads nothing more (it used to seek and decode the last GOP again
    /// for every frame held — forever, for a header that claimed hours).
    @Test func holdingTheLastFrameReadsNothingMore() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let reader = try VideoTrackReader(path: try Self.numberedClip(in: dir), trackID: 1)
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(seconds: 10)))) == 59)
        let read = reader.packetsRead
        for n in 0..<300 {
            let frame = try #require(try reader.frame(at: MediaTime(seconds: 10) + MediaTime(value: Int64(n), timescale: 30)))
            #expect(Self.number(frame) == 59)
        }
        #expect(reader.packetsRead == read)
        // Going back still works.
        #expect(Self.number(try #require(try reader.frame(at: MediaTime(value: 7, timescale: 30)))) == 7)
    }

    @Test func aTrackThatIsNotVideoIsAnErrorNamingTheFile() throws {
        let dir = try TemporaryDirectory()
        defer { withExtendedLifetime(dir) {} }
        let clip = try Fixtures.makeClip(in: dir.path)
        #expect(throws: FFmpegError.self) { try VideoTrackReader(path: clip, trackID: 2) }
        do { _ = try VideoTrackReader(path: clip, trackID: 2) } catch {
            #expect(error.path == clip && error.streamIndex == 1)
        }
    }
}
