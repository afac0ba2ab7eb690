import DropcutMediaIO
import Testing
import DropcutTimeline
@testable import DropcutRender

/// The deinterlacer on pictures made here: fields timed and ordered, still parts woven
/// exactly, moving parts rebuilt from their own field (no comb), 8-bit and 10-bit.
@Suite struct DeinterlacerTests {
    static let width = 64, height = 32

    /// A luma value for the scene at time `t` (in fields): a bright bar 8 px wide moving
    /// right 4 px per field over a still gradient.
    static func scene(x: Int, y: Int, t: Int) -> Int {
        let bar = 8 + 4 * t
        return (bar..<(bar + 8)).contains(x) ? 235 : 16 + x + y
    }

    /// An interlaced frame: its top field (even lines) recorded at field `2n`, the bottom
    /// at `2n + 1` (top field first), or the reverse when `topFirst` is false.
    /// With `still`, both fields show the scene at time 0.
    static func frame(_ n: Int, pts: Int64, topFirst: Bool = true, format: PixelFormat = .yuv420p,
                      scale: Int = 1, still: Bool = false) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, pixelFormat: format)
        frame.pts = pts
        for plane in 0..<3 {
            let rows = frame.planeHeight(plane), columns = frame.planeWidth(plane)
            frame.withPlane(plane) { buffer, stride in
                for y in 0..<rows {
                    let field = (y % 2 == 0) == topFirst ? 0 : 1
                    for x in 0..<columns {
                        let value = plane == 0 ? scene(x: x, y: y, t: still ? 0 : 2 * n + field) : 128
                        if scale == 1 {
                            buffer[y * stride + x] = UInt8(value)
                        } else {
                            buffer.storeBytes(of: UInt16(value * scale), toByteOffset: y * stride + 2 * x, as: UInt16.self)
                        }
                    }
                }
            }
        }
        return frame
    }

    static func luma(_ frame: VideoFrame, x: Int, y: Int, scale: Int = 1) -> Int {
        frame.withPlane(0) { buffer, stride in
            scale == 1 ? Int(buffer[y * stride + x])
                : Int(buffer.load(fromByteOffset: y * stride + 2 * x, as: UInt16.self)) / scale
        }
    }

    /// Every field of `count` frames, in order.
    static func fields(_ deinterlacer: Deinterlacer, frames: [VideoFrame]) throws -> [VideoFrame] {
        var shown: [VideoFrame] = []
        func drain() throws {
            while true {
                let output = try VideoFrame()
                guard try deinterlacer.pull(into: output) else { return }
                shown.append(output)
            }
        }
        for frame in frames {
            try deinterlacer.push(frame)
            try drain()
        }
        try deinterlacer.push(nil)
        try drain()
        return shown
    }

    @Test(arguments: [FieldOrder.topFirst, .bottomFirst])
    func eachFieldBecomesAFrameAtItsOwnTime(order: FieldOrder) throws {
        let deinterlacer = try Deinterlacer(fieldOrder: order)
        let frames = try (0..<4).map { try Self.frame($0, pts: Int64(512 * $0), topFirst: order == .topFirst) }
        let shown = try Self.fields(deinterlacer, frames: frames)
        #expect(shown.map(\.pts) == [0, 512, 1024, 1536, 2048, 2560, 3072, 3584])
        #expect(deinterlacer.timestampMultiplier == 2)
        // Each shown frame is the scene at its field's instant: the bar where it was then,
        // on every line (the lines kept exactly, the rebuilt ones close), never combed.
        for (index, picture) in shown.enumerated() {
            var worst = 0, wovenWorst = 0
            for y in 0..<Self.height {
                for x in 0..<Self.width {
                    let truth = Self.scene(x: x, y: y, t: index)
                    worst = max(worst, abs(Self.luma(picture, x: x, y: y) - truth))
                    let woven = Self.scene(x: x, y: y, t: 2 * (index / 2) + ((y % 2 == 0) == (order == .topFirst) ? 0 : 1))
                    wovenWorst = max(wovenWorst, abs(woven - truth))
                }
            }
            // The bar's edges are interpolated from lines 2 apart: the gradient's slope at
            // most, never the bar's full contrast (a comb).
            #expect(worst <= 4, "field \(index): worst error \(worst) (weaving would be \(wovenWorst))")
            #expect(wovenWorst > 100)
        }
    }

    @Test func stillPicturesAreWovenExactly() throws {
        let deinterlacer = try Deinterlacer(fieldOrder: .topFirst)
        // The same picture three times: nothing moves, so no line is interpolated.
        let frames = try (0..<3).map { try Self.frame(0, pts: Int64($0), still: true) }
        let reference = try Self.frame(0, pts: 0, still: true)
        let shown = try Self.fields(deinterlacer, frames: frames)
        #expect(shown.count == 6)
        // (The first and last lines, rebuilt with no line beyond them, may be a step of the
        // gradient off.)
        for picture in shown {
            var worst = 0, worstInside = 0
            for y in 0..<Self.height {
                for x in 0..<Self.width {
                    let error = abs(Self.luma(picture, x: x, y: y) - Self.luma(reference, x: x, y: y))
                    worst = max(worst, error)
                    if y > 0, y < Self.height - 1 { worstInside = max(worstInside, error) }
                }
            }
            #expect(worstInside == 0 && worst <= 1, "worst error \(worstInside) inside, \(worst) on the edge")
        }
    }

    @Test func tenBitPicturesAreDeinterlacedToo() throws {
        let format = try #require(Self.tenBit)
        #expect(format.planarYUVSampleBytes == 2 && format.bitDepth == 10)
        let deinterlacer = try Deinterlacer(fieldOrder: .topFirst)
        let frames = try (0..<3).map { try Self.frame($0, pts: Int64($0), format: format, scale: 4) }
        let shown = try Self.fields(deinterlacer, frames: frames)
        #expect(shown.count == 6)
        for (index, picture) in shown.enumerated() {
            var worst = 0
            for y in 0..<Self.height {
                for x in 0..<Self.width {
                    worst = max(worst, abs(Self.luma(picture, x: x, y: y, scale: 4) - Self.scene(x: x, y: y, t: index)))
                }
            }
            #expect(worst <= 4, "field \(index): worst error \(worst)")
        }
    }

    @Test func resetForgetsTheFramesHeld() throws {
        let deinterlacer = try Deinterlacer(fieldOrder: .topFirst)
        try deinterlacer.push(try Self.frame(0, pts: 0))
        try deinterlacer.push(try Self.frame(1, pts: 10))
        deinterlacer.reset()
        let output = try VideoFrame()
        #expect(try !deinterlacer.pull(into: output))
        let shown = try Self.fields(deinterlacer, frames: [try Self.frame(5, pts: 100), try Self.frame(6, pts: 110)])
        #expect(shown.map(\.pts) == [200, 210, 220, 230])
    }

    /// A stream that changes size mid-way: the frames of the other size are not read as
    /// neighbours (their rows do not line up, and may be shorter).
    @Test func neighboursOfAnotherSizeAreNotRead() throws {
        let deinterlacer = try Deinterlacer(fieldOrder: .topFirst)
        let small = try VideoFrame(width: 16, height: 8)
        small.pts = 1
        let frames = [try Self.frame(0, pts: 0), small, try Self.frame(2, pts: 2)]
        let shown = try Self.fields(deinterlacer, frames: frames)
        #expect(shown.map(\.size) == [PixelSize(width: 64, height: 32), PixelSize(width: 64, height: 32),
                                      PixelSize(width: 16, height: 8), PixelSize(width: 16, height: 8),
                                      PixelSize(width: 64, height: 32), PixelSize(width: 64, height: 32)])
    }

    /// yuv420p10le, read from a frame the encoder side can make.
    static var tenBit: PixelFormat? { PixelFormat.named("yuv420p10le") }
}
