import Testing
@testable import DropcutTimeline

/// `FrameGrid`: a time means the first frame starting at it or after it, exactly, on
/// 1001-based and integer rates, with an origin off zero, for every frame of a minute.
@Suite struct FrameGridTests {
    static let ntsc = MediaTime(value: 1001, timescale: 30000)

    @Test func aTimeMeansTheFirstFrameStartingAtItOrAfter() throws {
        let grid = try #require(FrameGrid(origin: .zero, frameDuration: Self.ntsc))
        #expect(grid.frame(atOrAfter: MediaTime(value: 25, timescale: 10)) == 75, "2.5 s: frame 74 starts at 2.4691, 75 at 2.5025")
        #expect(grid.snapped(MediaTime(value: 25, timescale: 10)) == MediaTime(value: 75 * 1001, timescale: 30000))
        #expect(grid.snapped(MediaTime(value: 4004, timescale: 1000)) == MediaTime(value: 4004, timescale: 1000), "on a frame: itself")
        #expect(grid.frame(atOrAfter: .zero) == 0)
        #expect(grid.frame(atOrAfter: MediaTime(value: -1, timescale: 1000)) == 0)
        #expect(grid.frame(atOrAfter: MediaTime(value: -34, timescale: 1000)) == -1)
    }

    /// Every frame of a minute, and the times just before, at and just after its start.
    @Test(arguments: [MediaTime(value: 1001, timescale: 30000), MediaTime(value: 1001, timescale: 24000),
                      MediaTime(value: 1, timescale: 25), MediaTime(value: 1, timescale: 30), MediaTime(value: 1001, timescale: 60000)])
    func everyFrameOfAMinute(frameDuration: MediaTime) throws {
        let origin = MediaTime(value: 1, timescale: 600)   // an edit list's start, off the grid's zero
        let grid = try #require(FrameGrid(origin: origin, frameDuration: frameDuration))
        let tick = MediaTime(value: 1, timescale: 1_000_000)
        let frames = Int64((60 / frameDuration.seconds).rounded())
        for k in Int64(0)..<frames {
            let start = grid.start(ofFrame: k)
            #expect(grid.frame(atOrAfter: start) == k)
            #expect(grid.frame(atOrAfter: start - tick) == k)
            #expect(grid.frame(atOrAfter: start + tick) == k + 1)
            #expect(grid.snapped(start + tick) == grid.start(ofFrame: k + 1))
        }
    }

    /// A phone's clock: each frame of a minute stamped as a 600 Hz, 90 kHz or 1 kHz clock
    /// rounds its time (down, to nearest, up) is still that frame; a stamp more than an
    /// eighth of a frame from every frame's start is none, and exactly an eighth is the frame.
    @Test(arguments: [(MediaTime(value: 1001, timescale: 30000), 600), (MediaTime(value: 1001, timescale: 30000), 90000),
                      (MediaTime(value: 1001, timescale: 24000), 1000), (MediaTime(value: 1001, timescale: 60000), 600),
                      (MediaTime(value: 1, timescale: 25), 1000)])
    func aStampRoundedByAClockIsItsFrame(frameDuration: MediaTime, clock: Int) throws {
        let origin = MediaTime(value: 7, timescale: 600)
        let grid = try #require(FrameGrid(origin: origin, frameDuration: frameDuration))
        let frames = Int64((60 / frameDuration.seconds).rounded())
        for k in Int64(-2)..<frames {
            let start = grid.start(ofFrame: k)
            for rounding in [FloatingPointRoundingRule.down, .toNearestOrAwayFromZero, .up] {
                #expect(grid.frame(stampedAt: start.convertScale(Int32(clock), rounding: rounding)) == k)
            }
            let eighth = frameDuration.multiplied(by: 1, dividedBy: 8)
            let past = MediaTime(value: 1, timescale: 1_000_000)
            #expect(grid.frame(stampedAt: start + eighth + past) == nil)
            #expect(grid.frame(stampedAt: start - eighth - past) == nil)
        }
        // An eighth of a frame exactly, either side, is still the frame.
        let exact = try #require(FrameGrid(origin: .zero, frameDuration: MediaTime(value: 8, timescale: 100)))
        #expect(exact.frame(stampedAt: MediaTime(value: 9, timescale: 100)) == 1)
        #expect(exact.frame(stampedAt: MediaTime(value: 7, timescale: 100)) == 1)
        #expect(exact.frame(stampedAt: MediaTime(value: 10, timescale: 100)) == nil)
        #expect(exact.frame(stampedAt: MediaTime(value: -1, timescale: 100)) == 0)
        #expect(exact.frame(stampedAt: MediaTime(value: -2, timescale: 100)) == nil)
    }

    @Test func aRangeHoldsTheFramesStartingInIt() throws {
        let grid = try #require(FrameGrid(origin: .zero, frameDuration: MediaTime(value: 1, timescale: 25)))
        let range = TimeRange(start: MediaTime(value: 11, timescale: 10), end: MediaTime(value: 23, timescale: 10))
        #expect(grid.snapped(range) == TimeRange(start: MediaTime(value: 28, timescale: 25), end: MediaTime(value: 58, timescale: 25)))
        // Shorter than a frame and between two starts: no frame starts in it.
        #expect(grid.snapped(TimeRange(start: MediaTime(value: 101, timescale: 1000), end: MediaTime(value: 110, timescale: 1000))) == nil)
        #expect(FrameGrid(origin: .zero, frameDuration: .zero) == nil)
        #expect(FrameGrid(origin: .invalid, frameDuration: Self.ntsc) == nil)
        #expect(grid.frame(atOrAfter: .invalid) == nil)
    }
}
