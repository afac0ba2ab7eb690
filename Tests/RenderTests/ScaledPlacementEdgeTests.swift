import Testing
import DropcutMediaIO
import DropcutTimeline
@testable import DropcutRender

/// A scaled layer that does not cover the canvas writes nothing outside its own box:
/// swscale writes whole vector blocks, and scaled straight into the canvas a width that
/// is not a multiple of one spilled past the layer's right edge (a 20:9 phone clip fitted
/// into 16:9 showed a grey stripe in the black bar beside it).
@Suite struct ScaledPlacementEdgeTests {
    @Test(arguments: [(108, 240), (110, 240), (100, 226), (96, 240)])
    func aFittedLayerLeavesTheBarsBesideItBackground(width: Int, height: Int) throws {
        let canvasSize = PixelSize(width: 320, height: 180)
        let frame = try VideoFrame(width: width, height: height)
        frame.setColorTags(ColorDescription.bt709)
        for plane in 0..<3 {
            frame.withPlane(plane) { buffer, stride in
                for y in 0..<frame.planeHeight(plane) {
                    for x in 0..<frame.planeWidth(plane) { buffer[y * stride + x] = plane == 0 ? 235 : 200 }
                }
            }
        }
        let scale = Double(canvasSize.height) / Double(height)
        let shownWidth = Double(width) * scale
        let transform = AffineTransform(scaleX: scale, y: scale)
            .concatenating(AffineTransform(translationX: (Double(canvasSize.width) - shownWidth) / 2, y: 0))
        let placement = try #require(try LayerPlacement.place(frameSize: frame.size, displaySize: frame.size, crop: .infinite, transform: transform))
        try #require(placement.needsScaling && placement.destination.maxX < canvasSize.width, "\(placement)")
        let compositor = VideoCompositor(renderSize: canvasSize)
        let canvas = try VideoFrame(width: canvasSize.width, height: canvasSize.height)
        let source = SourceTrack(asset: "tall", trackID: 1, mediaType: .video, duration: MediaTime(value: 1, timescale: 1))
        let layer = FramePlan.Layer(trackID: 1, source: source, sourceTime: .zero, opacity: 1, transform: transform,
                                    crop: .infinite, frameSampling: .repeat)
        try compositor.composite(FramePlan(index: 0, time: .zero, background: .black, layers: [layer]), frames: [LayerPicture(frame)], into: canvas)
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let box = placement.destination
            let (x0, x1) = (box.x >> shift, (box.maxX + shift) >> shift)
            var outside = 0, inside = 0
            canvas.withPlane(plane) { buffer, stride in
                for y in 0..<canvas.planeHeight(plane) {
                    for x in 0..<canvas.planeWidth(plane) {
                        let value = buffer[y * stride + x]
                        if x < x0 || x >= x1 {
                            if value != (plane == 0 ? 16 : 128) { outside += 1 }
                        } else if value < (plane == 0 ? 200 : 160) {
                            inside += 1
                        }
                    }
                }
            }
            #expect(outside == 0, "\(width)x\(height) at \(box), plane \(plane): \(outside) background samples overwritten")
            #expect(inside == 0, "\(width)x\(height) at \(box), plane \(plane): \(inside) picture samples not drawn")
        }
    }
}
