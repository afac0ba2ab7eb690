import Logging
import DropcutMediaIO
import DropcutTimeline

/// Draws a composition's overlay layers over each composited frame (the job of
/// AVVideoCompositionCoreAnimationTool): every layer is rasterised once — images decoded,
/// premultiplied and scaled to their drawn size with a Lanczos filter, text laid out
/// (`TextLayouter`: shaped, bidi, fallback fonts) and drawn with its outline and shadow,
/// captions once per cue shown (`PreparedCaptions`) — and then, per frame, blended at its
/// place (anchor or motion), scale and opacity while its time range covers the frame. Layers
/// are drawn in order, later ones on top. Groups hold layers and groups, as CALayers hold
/// sublayers: each frame the tree is placed first (every map composed with its groups',
/// every group's box the union of its children's), then drawn — a translucent group whose
/// children overlap through an offscreen picture (see `draw(at:into:)`).
final class OverlayRenderer {
    /// The layer tree, prepared: groups hold their children, as CALayers hold sublayers.
    private let nodes: [OverlayNode]
    let renderSize: PixelSize
    /// For HLG outputs: the table that places the layers' SDR colours in HLG.
    private let hlg: HLGConversionLUT?
    /// The offscreen pictures of translucent groups, one per nesting level (a group's
    /// children are drawn into its level's picture while the levels above hold theirs),
    /// kept from frame to frame.
    private var offscreens: [OverlayRaster] = []
    /// The most the offscreen pictures may take together, in bytes.
    let offscreenBudget: Int

    /// The default `offscreenBudget`: 512 MiB. A level's picture covers its group's box
    /// in Float planes, 11 bytes a pixel (luma and alpha, three quarter-size chroma
    /// planes): 23 MB at 1080p, 91 MB at 4K, 738 MB at 8192x8192, so the eight levels a
    /// recipe may nest could ask for 6 GB. Past the budget a group is drawn as if it did
    /// not need flattening: its opacity multiplies each child's, and where its children
    /// overlap the lower one shows through (what Core Animation draws with
    /// `allowsGroupOpacity` off).
    static let defaultOffscreenBudget = 512 << 20


    /// Why an overlay could not be prepared: its file named, and the cause.
    struct PreparationError: Error, Sendable, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "overlay \(path): \(reason)" }
    }

    /// Prepares `layers` for a canvas of `renderSize` in `dynamicRange`'s format; groups are
    /// flattened in at most `offscreenBudget` bytes of offscreen pictures. What a layer has
    /// to say while frames are drawn (a caption set smaller than its style) goes to
    /// `logger`, the export's job log.
    init(layers: [OverlayLayer], renderSize: PixelSize, dynamicRange: OutputDynamicRange = .sdr,
         offscreenBudget: Int = OverlayRenderer.defaultOffscreenBudget, logger: Logger? = nil) throws {
        self.renderSize = renderSize
        self.offscreenBudget = offscreenBudget
        let hlg = dynamicRange == .hlg && !layers.isEmpty ? HLGConversionLUT.bt709 : nil
        self.hlg = hlg
        nodes = try Self.prepare(layers, hlg: hlg, limit: OverlayLimits.largestPicture(on: renderSize), renderSize: renderSize,
                                 logger: logger)
    }

    /// Prepares the layers; no picture larger than `limit` (`OverlayLimits`) is made.
    private static func prepare(_ layers: [OverlayLayer], hlg: HLGConversionLUT?, limit: PixelSize, renderSize: PixelSize,
                                logger: Logger?) throws -> [OverlayNode] {
        try layers.map { layer in
            if case let .group(children, size) = layer.content {
                guard size.width <= Double(limit.width), size.height <= Double(limit.height) else {
                    throw PreparationError(path: "group", reason: "its box (\(Int(size.width))x\(Int(size.height))) is larger than an overlay may be (\(limit), \(OverlayLimits.factor) times the output)")
                }
                return .group(PreparedOverlayGroup(layer: layer, size: size, children: try prepare(children, hlg: hlg, limit: limit, renderSize: renderSize, logger: logger)))
            }
            if case let .captions(track) = layer.content {
                return .captions(try PreparedCaptions(layer: layer, track: track, renderSize: renderSize, hlg: hlg, limit: limit,
                                                      logger: logger))
            }
            return .layer(PreparedOverlay(layer: layer, pictures: try pictures(for: layer, limit: limit), hlg: hlg))
        }
    }

    /// How many offscreen pictures the renderer holds (one per nesting level that needed
    /// one so far), and the values their planes can hold: for tests of their reuse.
    var offscreenCapacities: [Int] { offscreens.map(\.luma.count) }

    /// Blends every layer showing at `time` onto `canvas`.
    ///
    /// A group's opacity applies to its children flattened, as Core Animation's group
    /// opacity (`allowsGroupOpacity`): when a group is translucent (its own opacity times
    /// that of the groups around it that were not flattened) and two of its children
    /// overlap, they are drawn into an offscreen picture first, blended onto the canvas
    /// below at that opacity — so where they overlap, the lower one does not show through
    /// the upper one. Otherwise the opacity multiplies each child's, which gives the same
    /// pixels (each pixel then has at most one child over it) without the extra picture.
    func draw(at time: MediaTime, into canvas: VideoFrame) throws {
        for node in nodes {
            try place(node, at: time, outer: .identity, upright: true, container: renderSize)
        }
        render(nodes, into: .canvas(canvas), opacity: 1, depth: 0)
    }

    /// Works out where `node` goes at `time` (and, for a group, everything in it): `outer`
    /// maps the container's coordinates (the canvas, or the box of the group holding the
    /// node) to the canvas; `upright` when it is a translation.
    private func place(_ node: OverlayNode, at time: MediaTime, outer: ProjectiveTransform, upright: Bool, container: PixelSize) throws {
        switch node {
        case let .layer(prepared):
            try place(prepared, at: time, outer: outer, upright: upright, container: container)
        case let .captions(captions):
            // Placed in the output's safe area, whatever group holds them.
            try captions.place(at: time)
        case let .group(group):
            let layer = group.layer
            group.box = nil
            group.childrenOverlap = false
            group.opacity = layer.timeRange.contains(time) ? layer.opacity(at: time) : 0
            guard group.opacity > 0 else { return }
            let transform = outer * layer.groupTransform(size: group.size, renderSize: container, at: time)
            let childrenUpright = upright && layer.isUpright(at: time) && layer.scale(at: time) == 1
            for (index, child) in group.children.enumerated() {
                try place(child, at: time, outer: transform, upright: childrenUpright, container: group.pixelSize)
                guard let box = child.box else { continue }
                group.box = group.box.map { Self.union($0, box) } ?? box
                // Overlap is judged on 2×2 chroma sites: two children in one site blend there.
                if !group.childrenOverlap {
                    let site = Self.evenOut(box)
                    group.childrenOverlap = group.children[..<index].contains { other in
                        other.box.map { Self.evenOut($0).intersection(site) != nil } ?? false
                    }
                }
            }
        }
    }

    private func place(_ prepared: PreparedOverlay, at time: MediaTime, outer: ProjectiveTransform, upright: Bool, container: PixelSize) throws {
        let layer = prepared.layer
        prepared.placement = .hidden
        prepared.box = nil
        prepared.opacity = layer.timeRange.contains(time) ? layer.opacity(at: time) : 0
        guard prepared.opacity > 0 else { return }
        let index = Self.sequenceIndex(layer, at: time, count: prepared.rasters.count)
        if layer.animation.scale != nil {
            // A keyframed scale changes every frame (a bounce, an eased zoom): the raster
            // at scale 1 is resampled through the map instead of being rescaled (and
            // reallocated) per frame.
            let raster = prepared.rasters[index]
            let size = Size(width: Double(raster.width), height: Double(raster.height))
            guard layer.scale(at: time) > 0 else { return }
            let transform = outer * layer.groupTransform(size: size, renderSize: container, at: time)
            prepared.placement = .warp(raster, transform: transform)
            prepared.box = raster.coveredBox(transform: transform)
            return
        }
        guard let raster = try self.raster(prepared, index: index, scale: layer.scale(at: time)) else { return }
        let size = Size(width: Double(raster.width), height: Double(raster.height))
        guard upright, layer.isUpright(at: time) else {
            // Turned or spun: resampled through the inverse map, perspective-correct per
            // pixel (the axis-aligned blit below stays the exact path for upright layers).
            let transform = outer * layer.transform(contentSize: size, renderSize: container, at: time)
            prepared.placement = .warp(raster, transform: transform)
            prepared.box = raster.coveredBox(transform: transform)
            return
        }
        let frame = layer.frame(contentSize: size, renderSize: container, at: time)
        let origin = outer.apply(Point(x: frame.x, y: frame.y))   // a translation when upright
        let x = Self.even(origin.x, extent: raster.width, limit: renderSize.width)
        let y = Self.even(origin.y, extent: raster.height, limit: renderSize.height)
        prepared.placement = .blit(raster, x: x, y: y)
        prepared.box = PixelRect(x: x, y: y, width: raster.width, height: raster.height)
    }

    /// Draws placed `nodes` onto `target`, each at its own opacity times `opacity` (that
    /// of the groups around them not drawn offscreen); `depth` is the offscreen level
    /// `target` is drawn at.
    private func render(_ nodes: [OverlayNode], into target: OverlayTarget, opacity: Double, depth: Int) {
        for node in nodes {
            switch node {
            case let .layer(prepared):
                let alpha = Float(prepared.opacity * opacity)
                switch prepared.placement {
                case .hidden: break
                case let .blit(raster, x, y): target.blend(raster, x: x, y: y, opacity: alpha)
                case let .warp(raster, transform): target.blend(raster, transform: transform, opacity: alpha)
                }
            case let .captions(captions):
                captions.render(into: target, opacity: opacity)
            case let .group(group):
                guard group.opacity > 0, let box = group.box else { continue }
                let faded = opacity * group.opacity
                guard faded < 1, group.childrenOverlap else {
                    render(group.children, into: target, opacity: faded, depth: depth)
                    continue
                }
                // Flattened first: the children over a transparent picture covering what
                // they draw on (within the target), then that picture at the group's opacity.
                guard let region = Self.evenOut(box).intersection(target.extent) else { continue }
                // What every level's planes keep (they keep their largest size), this
                // level's grown to the region if it must grow.
                let others = offscreens.indices.reduce(0) { $0 + ($1 == depth ? 0 : offscreens[$1].retainedBytes) }
                let mine = max(depth < offscreens.count ? offscreens[depth].retainedBytes : 0,
                               OverlayRaster.offscreenBytes(width: region.width, height: region.height))
                guard others + mine <= offscreenBudget else {
                    render(group.children, into: target, opacity: faded, depth: depth)
                    continue
                }
                if offscreens.count <= depth { offscreens.append(OverlayRaster(offscreenWide: hlg != nil)) }
                let offscreen = offscreens[depth]
                offscreen.clear(width: region.width, height: region.height)
                render(group.children, into: .offscreen(offscreen, x: region.x, y: region.y), opacity: 1, depth: depth + 1)
                target.blend(offscreen, x: region.x, y: region.y, opacity: Float(faded))
            }
        }
    }

    /// The smallest box holding both.
    static func union(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return PixelRect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }

    /// `box` grown to whole 2×2 chroma sites (even corners).
    static func evenOut(_ box: PixelRect) -> PixelRect {
        let x0 = box.x - (box.x & 1), y0 = box.y - (box.y & 1)
        let x1 = box.maxX + (box.maxX & 1), y1 = box.maxY + (box.maxY & 1)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
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
    private func raster(_ prepared: PreparedOverlay, index: Int, scale: Double) throws -> OverlayRaster? {
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

    private static func pictures(for layer: OverlayLayer, limit: PixelSize) throws -> [VideoFrame] {
        switch layer.content {
        case let .image(path):
            return [try imagePicture(path: path, width: layer.width, limit: limit)]
        case let .imageSequence(paths, _):
            return try paths.map { try imagePicture(path: $0, width: layer.width, limit: limit) }
        case let .text(text, fontPath, pixelSize, color):
            let fonts: FontSet
            do { fonts = try FontSet(paths: [fontPath]) } catch {
                throw PreparationError(path: fontPath, reason: "cannot open the font (FreeType error \(error.code))")
            }
            let alignment: TextLayout.Alignment
            switch layer.anchor.unitPoint.x {
            case 0: alignment = .left
            case 1: alignment = .right
            default: alignment = .center
            }
            // Shaped, bidi-ordered, with fallback fonts; only newlines break lines.
            let layout: TextLayout
            do {
                layout = try TextLayouter.layout(text, fonts: fonts, pixelSize: pixelSize, alignment: alignment)
            } catch let .font(error) {
                throw PreparationError(path: error.path, reason: "cannot set the text at \(Int(pixelSize)) px (FreeType error \(error.code))")
            } catch .outOfMemory {
                throw PreparationError(path: "text \"\(text.prefix(40))\"", reason: "HarfBuzz could not allocate a buffer")
            }
            let mask: TextRasterizer.Mask
            do {
                mask = try TextRasterizer.rasterize(layout, fonts: fonts, limit: limit)
            } catch let .font(error) {
                throw PreparationError(path: error.path, reason: "cannot set the text at \(Int(pixelSize)) px (FreeType error \(error.code))")
            } catch let .tooLarge(size) {
                throw PreparationError(path: "text \"\(text.prefix(40))\"",
                                       reason: "it would be \(size) pixels, larger than an overlay may be (\(limit), \(OverlayLimits.factor) times the output)")
            }
            return [try TextPicture.render(mask, color: color, effects: layer.textEffects)]
        case .group:
            return []   // a group has no pictures of its own: its children have
        case .captions:
            return []   // no pictures of their own: set per cue by PreparedCaptions
        }
    }

    /// Decodes, premultiplies and scales once to `width` (height by aspect ratio).
    private static func imagePicture(path: String, width: Double?, limit: PixelSize) throws -> VideoFrame {
        let decoded: VideoFrame
        do { decoded = try StillImage.decode(path) } catch {
            throw PreparationError(path: path, reason: "\(error.function): \(error.message)")
        }
        // The size it is drawn at, checked before anything that size is made.
        let drawn = Self.drawnSize(of: decoded.size, width: width)
        guard drawn.width <= limit.width, drawn.height <= limit.height else {
            throw PreparationError(path: path, reason: "drawn at \(drawn) it is larger than an overlay may be (\(limit), \(OverlayLimits.factor) times the output): give it a smaller width")
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
        guard drawn != decoded.size else { return premultiplied }
        return try resize(premultiplied, to: drawn)
    }

    /// A picture of `size` drawn `width` wide (its own width when nil), height by aspect
    /// ratio. The width is a recipe length (at most 32768 px), so the sizes fit an Int.
    private static func drawnSize(of size: PixelSize, width: Double?) -> PixelSize {
        guard let width else { return size }
        let targetWidth = max(1, Int(width.rounded()))
        return PixelSize(width: targetWidth,
                         height: max(1, Int((Double(size.height) * Double(targetWidth) / Double(size.width)).rounded())))
    }

    /// A premultiplied RGBA picture resampled with Lanczos (premultiplied, so edges do not
    /// pick up the colour of transparent pixels).
    private static func resize(_ picture: VideoFrame, to size: PixelSize) throws -> VideoFrame {
        let scaled = try VideoFrame(width: size.width, height: size.height, pixelFormat: .rgba)
        try Scaler(filter: .lanczos).scale(picture, region: PixelRect(size: picture.size), into: scaled, region: PixelRect(size: size))
        return scaled
    }
}
