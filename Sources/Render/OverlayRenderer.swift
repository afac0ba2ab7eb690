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
        /// The groups holding the layer, outermost first.
        let ancestors: [Ancestor]
        let pictures: [VideoFrame]
        let rasters: [OverlayRaster]
        var scaled: (index: Int, size: PixelSize, raster: OverlayRaster)?

        init(layer: OverlayLayer, ancestors: [Ancestor], pictures: [VideoFrame], hlg: HLGConversionLUT?) {
            self.layer = layer
            self.ancestors = ancestors
            self.pictures = pictures
            rasters = pictures.map { OverlayRaster.make(from: $0, hlg: hlg) }
        }
    }

    /// A group around a layer: its box, and the box (or canvas) it is placed in.
    private struct Ancestor {
        let layer: OverlayLayer
        let size: Size
        let box: PixelSize
        let container: PixelSize
    }

    /// The drawn layers in order, groups flattened into their children.
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
        self.layers = try Self.flatten(layers, ancestors: [], container: renderSize, hlg: hlg)
    }

    private static func flatten(_ layers: [OverlayLayer], ancestors: [Ancestor], container: PixelSize,
                                hlg: HLGConversionLUT?) throws -> [Prepared] {
        var prepared: [Prepared] = []
        for layer in layers {
            if case let .group(children, size) = layer.content {
                let box = PixelSize(width: max(1, Int(size.width.rounded())), height: max(1, Int(size.height.rounded())))
                let group = Ancestor(layer: layer, size: size, box: box, container: container)
                prepared += try flatten(children, ancestors: ancestors + [group], container: box, hlg: hlg)
            } else {
                prepared.append(Prepared(layer: layer, ancestors: ancestors, pictures: try pictures(for: layer), hlg: hlg))
            }
        }
        return prepared
    }

    /// Blends every layer showing at `time` onto `canvas`.
    ///
    /// A group's opacity multiplies each child's rather than fading the children composited
    /// together (CALayer's group opacity): the same pixels wherever children do not overlap
    /// — a watermark's logo beside its text — and no offscreen picture per group and frame.
    /// Where children overlap, the one below shows through the faded one on top a little more.
    func draw(at time: MediaTime, into canvas: VideoFrame) throws {
        for prepared in layers where prepared.layer.timeRange.contains(time)
            && prepared.ancestors.allSatisfy({ $0.layer.timeRange.contains(time) }) {
            let layer = prepared.layer
            var opacity = layer.opacity(at: time)
            var outer = ProjectiveTransform.identity, upright = true
            for group in prepared.ancestors {
                opacity *= group.layer.opacity(at: time)
                outer = outer * group.layer.groupTransform(size: group.size, renderSize: group.container, at: time)
                upright = upright && group.layer.isUpright(at: time) && group.layer.scale(at: time) == 1
            }
            guard opacity > 0 else { continue }
            let container = prepared.ancestors.last?.box ?? renderSize
            let index = Self.sequenceIndex(layer, at: time, count: prepared.rasters.count)
            if layer.animation.scale != nil {
                // A keyframed scale changes every frame (a bounce, an eased zoom): the raster
                // at scale 1 is resampled through the map instead of being rescaled (and
                // reallocated) per frame.
                let raster = prepared.rasters[index]
                let size = Size(width: Double(raster.width), height: Double(raster.height))
                guard layer.scale(at: time) > 0 else { continue }
                raster.blend(into: canvas, transform: outer * layer.groupTransform(size: size, renderSize: container, at: time),
                             opacity: Float(opacity))
                continue
            }
            let raster = try self.raster(prepared, index: index, scale: layer.scale(at: time))
            guard let raster else { continue }
            let size = Size(width: Double(raster.width), height: Double(raster.height))
            guard upright, layer.isUpright(at: time) else {
                // Turned or spun: resampled through the inverse map, perspective-correct per
                // pixel (the axis-aligned blit below stays the exact path for upright layers).
                raster.blend(into: canvas, transform: outer * layer.transform(contentSize: size, renderSize: container, at: time),
                             opacity: Float(opacity))
                continue
            }
            let frame = layer.frame(contentSize: size, renderSize: container, at: time)
            let origin = outer.apply(Point(x: frame.x, y: frame.y))   // a translation when upright
            raster.blend(into: canvas, x: Self.even(origin.x, extent: raster.width, limit: renderSize.width),
                         y: Self.even(origin.y, extent: raster.height, limit: renderSize.height), opacity: Float(opacity))
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
        case .group:
            return []   // flattened into its children before this
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
