import MediaIO
import Timeline

/// Draws a composition's overlay layers over each composited frame (the job of
/// AVVideoCompositionCoreAnimationTool): every layer is rasterised once — images decoded,
/// premultiplied and scaled to their drawn size with a Lanczos filter, text set with
/// FreeType with its outline and shadow — and then, per frame, blended at its place
/// (anchor or motion), scale and opacity while its time range covers the frame. Layers
/// are drawn in order, later ones on top.
final class OverlayRenderer {
    /// One layer's pictures (premultiplied RGBA, one per frame of an image sequence) and
    /// their rasters at scale 1; a rescaled raster is kept while the scale holds still.
    private final class Prepared {
        let layer: OverlayLayer
        let pictures: [VideoFrame]
        let rasters: [OverlayRaster]
        var scaled: (index: Int, size: PixelSize, raster: OverlayRaster)?

        init(layer: OverlayLayer, pictures: [VideoFrame], hlg: HLGConversionLUT?) {
            self.layer = layer
            self.pictures = pictures
            rasters = pictures.map { OverlayRaster.make(from: $0, hlg: hlg) }
        }
    }

    private let layers: [Prepared]
    let renderSize: PixelSize
    /// For HLG outputs: the table that places the layers' SDR colours in HLG.
    private let hlg: HLGConversionLUT?

    /// Why an overlay could not be prepared: its file named, and the cause.
    struct PreparationError: Error, Sendable, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "overlay \(path): \(reason)" }
    }

    /// Prepares `layers` for a canvas of `renderSize` in `dynamicRange`'s format.
    init(layers: [OverlayLayer], renderSize: PixelSize, dynamicRange: OutputDynamicRange = .sdr) throws {
        self.renderSize = renderSize
        let hlg = dynamicRange == .hlg && !layers.isEmpty ? HLGConversionLUT.bt709 : nil
        self.hlg = hlg
        self.layers = try layers.map { layer in Prepared(layer: layer, pictures: try Self.pictures(for: layer), hlg: hlg) }
    }

    /// Blends every layer showing at `time` onto `canvas`.
    func draw(at time: MediaTime, into canvas: VideoFrame) throws {
        for prepared in layers where prepared.layer.timeRange.contains(time) {
            let layer = prepared.layer
            let opacity = layer.opacity(at: time)
            guard opacity > 0 else { continue }
            let index = Self.sequenceIndex(layer, at: time, count: prepared.rasters.count)
            let raster = try self.raster(prepared, index: index, scale: layer.scale(at: time))
            guard let raster else { continue }
            let size = Size(width: Double(raster.width), height: Double(raster.height))
            guard layer.isUpright(at: time) else {
                // Turned or spun: resampled through the inverse map, perspective-correct per
                // pixel (the axis-aligned blit below stays the exact path for upright layers).
                raster.blend(into: canvas, transform: layer.transform(contentSize: size, renderSize: renderSize, at: time),
                             opacity: Float(opacity))
                continue
            }
            let frame = layer.frame(contentSize: size, renderSize: renderSize, at: time)
            raster.blend(into: canvas, x: Self.even(frame.x, extent: raster.width, limit: renderSize.width),
                         y: Self.even(frame.y, extent: raster.height, limit: renderSize.height), opacity: Float(opacity))
        }
    }

    /// Which picture of an image sequence shows at `time` (looping from the layer's start).
    static func sequenceIndex(_ layer: OverlayLayer, at time: MediaTime, count: Int) -> Int {
        guard count > 1, case let .imageSequence(_, frameDuration) = layer.content,
              let ratio = (time - layer.timeRange.start).ratio(to: frameDuration), ratio.denominator > 0 else { return 0 }
        let step = Int(ratio.numerator / ratio.denominator)
        return ((step % count) + count) % count
    }

    /// The raster at `scale`: the prepared one at 1, else rescaled from the picture (and
    /// kept until the scale or picture changes). Nil when it scales to nothing.
    private func raster(_ prepared: Prepared, index: Int, scale: Double) throws -> OverlayRaster? {
        if scale == 1 { return prepared.rasters[index] }
        let picture = prepared.pictures[index]
        let size = PixelSize(width: Int((Double(picture.width) * scale).rounded()), height: Int((Double(picture.height) * scale).rounded()))
        guard size.width > 0, size.height > 0 else { return nil }
        if let cached = prepared.scaled, cached.index == index, cached.size == size { return cached.raster }
        let raster = OverlayRaster.make(from: try Self.resize(picture, to: size), hlg: hlg)
        prepared.scaled = (index, size, raster)
        return raster
    }

    /// The nearest even pixel (4:2:0 chroma sites cover two pixels each way) — or the
    /// even pixel on the inside, when the nearest would push a layer that fits within
    /// `0..<limit` over the edge (an odd-sized logo flush with the right or bottom).
    static func even(_ value: Double, extent: Int, limit: Int) -> Int {
        let nearest = ChromaGrid.round(value)
        if nearest + extent > limit, value + Double(extent) <= Double(limit), nearest >= 2 { return nearest - 2 }
        return nearest
    }

    // MARK: Preparing pictures

    private static func pictures(for layer: OverlayLayer) throws -> [VideoFrame] {
        switch layer.content {
        case let .image(path):
            return [try imagePicture(path: path, width: layer.width)]
        case let .imageSequence(paths, _):
            return try paths.map { try imagePicture(path: $0, width: layer.width) }
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
            return [try TextPicture.render(mask, color: color, effects: layer.textEffects)]
        }
    }

    /// Decodes, premultiplies and scales once to `width` (height by aspect ratio).
    private static func imagePicture(path: String, width: Double?) throws -> VideoFrame {
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
        guard let width, Int(width.rounded()) != decoded.width else { return premultiplied }
        let targetWidth = max(1, Int(width.rounded()))
        let targetHeight = max(1, Int((Double(decoded.height) * Double(targetWidth) / Double(decoded.width)).rounded()))
        return try resize(premultiplied, to: PixelSize(width: targetWidth, height: targetHeight))
    }

    /// A premultiplied RGBA picture resampled with Lanczos (premultiplied, so edges do not
    /// pick up the colour of transparent pixels).
    private static func resize(_ picture: VideoFrame, to size: PixelSize) throws -> VideoFrame {
        let scaled = try VideoFrame(width: size.width, height: size.height, pixelFormat: .rgba)
        try Scaler(filter: .lanczos).scale(picture, region: PixelRect(size: picture.size), into: scaled, region: PixelRect(size: size))
        return scaled
    }
}
