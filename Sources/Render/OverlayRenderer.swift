import MediaIO
import Timeline

/// Draws a composition's overlay layers over each composited frame (the job of
/// AVVideoCompositionCoreAnimationTool): every layer is rasterised once — images decoded,
/// premultiplied and scaled to their drawn size with a Lanczos filter, text set with
/// FreeType — and then, per frame, blended at its place and opacity while its time
/// range covers the frame. Layers are drawn in order, later ones on top.
final class OverlayRenderer {
    private struct Prepared {
        var layer: OverlayLayer
        var raster: OverlayRaster
    }

    private let layers: [Prepared]
    let renderSize: PixelSize

    /// Why an overlay could not be prepared: its file named, and the cause.
    struct PreparationError: Error, Sendable, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "overlay \(path): \(reason)" }
    }

    init(layers: [OverlayLayer], renderSize: PixelSize) throws {
        self.renderSize = renderSize
        self.layers = try layers.map { layer in Prepared(layer: layer, raster: try Self.rasterize(layer)) }
    }

    var isEmpty: Bool { layers.isEmpty }

    /// Blends every layer showing at `time` onto `canvas`.
    func draw(at time: MediaTime, into canvas: VideoFrame) {
        for prepared in layers where prepared.layer.timeRange.contains(time) {
            let opacity = min(1, max(0, prepared.layer.opacity.value(at: time)))
            guard opacity > 0 else { continue }
            let raster = prepared.raster
            let frame = prepared.layer.frame(contentSize: Size(width: Double(raster.width), height: Double(raster.height)),
                                             renderSize: renderSize)
            raster.blend(into: canvas, x: Self.even(frame.x), y: Self.even(frame.y), opacity: Float(opacity))
        }
    }

    /// The nearest even pixel: 4:2:0 chroma sites cover two pixels each way.
    static func even(_ value: Double) -> Int { Int((value / 2).rounded()) * 2 }

    private static func rasterize(_ layer: OverlayLayer) throws -> OverlayRaster {
        switch layer.content {
        case let .image(path):
            return try imageRaster(path: path, width: layer.width)
        case let .text(text, fontPath, pixelSize, color):
            let font: FontFace
            do { font = try FontFace(path: fontPath) } catch {
                throw PreparationError(path: fontPath, reason: "cannot open the font (FreeType error \(error.code))")
            }
            let alignment: TextRasterizer.Alignment
            switch layer.anchor.unitPoint.x {
            case 0: alignment = .left
            case 1: alignment = .right
            default: alignment = .center
            }
            let mask = try TextRasterizer.rasterize(text, font: font, pixelSize: pixelSize, alignment: alignment)
            return textRaster(mask, color: color)
        }
    }

    /// Decodes, premultiplies, scales once to `width` (height by aspect ratio) and converts.
    private static func imageRaster(path: String, width: Double?) throws -> OverlayRaster {
        let decoded: VideoFrame
        do { decoded = try StillImage.decode(path) } catch {
            throw PreparationError(path: path, reason: "\(error.function): \(error.message)")
        }
        let premultiplied = try VideoFrame(width: decoded.width, height: decoded.height, pixelFormat: .rgba)
        decoded.withPlane(0) { source, sourceStride in
            premultiplied.withPlane(0) { target, targetStride in
                for y in 0..<decoded.height {
                    for x in 0..<decoded.width {
                        let s = y * sourceStride + x * 4, t = y * targetStride + x * 4
                        let a = UInt16(source[s + 3])
                        for c in 0..<3 { target[t + c] = UInt8((UInt16(source[s + c]) * a + 127) / 255) }
                        target[t + 3] = source[s + 3]
                    }
                }
            }
        }
        var picture = premultiplied
        if let width, Int(width.rounded()) != decoded.width {
            let targetWidth = max(1, Int(width.rounded()))
            let targetHeight = max(1, Int((Double(decoded.height) * Double(targetWidth) / Double(decoded.width)).rounded()))
            let scaled = try VideoFrame(width: targetWidth, height: targetHeight, pixelFormat: .rgba)
            try Scaler(filter: .lanczos).scale(premultiplied, region: PixelRect(x: 0, y: 0, width: decoded.width, height: decoded.height),
                                               into: scaled, region: PixelRect(x: 0, y: 0, width: targetWidth, height: targetHeight))
            picture = scaled
        }
        return picture.withPlane(0) { pixels, stride in
            OverlayRaster(premultipliedRGBA: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: stride,
                          width: picture.width, height: picture.height)
        }
    }

    /// Coverage times the colour (with its alpha), premultiplied.
    private static func textRaster(_ mask: TextRasterizer.Mask, color: Color) -> OverlayRaster {
        var rgba = [UInt8](repeating: 0, count: mask.width * mask.height * 4)
        let channels = [color.red, color.green, color.blue].map { min(1, max(0, $0)) }
        for i in 0..<(mask.width * mask.height) {
            let a = Double(mask.coverage[i]) / 255 * min(1, max(0, color.alpha))
            for c in 0..<3 { rgba[i * 4 + c] = UInt8((channels[c] * a * 255).rounded()) }
            rgba[i * 4 + 3] = UInt8((a * 255).rounded())
        }
        return rgba.withUnsafeBufferPointer {
            OverlayRaster(premultipliedRGBA: $0.baseAddress!, stride: mask.width * 4, width: mask.width, height: mask.height)
        }
    }
}
