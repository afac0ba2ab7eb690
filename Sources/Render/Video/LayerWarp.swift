import DropcutMediaIO
import DropcutTimeline

/// How a layer whose transform is not a pixel move (a rotation by other than a quarter
/// turn, a shear) lands on the canvas: the part of the frame sampled, the map from canvas
/// positions back into it, and the canvas box it may touch.
///
/// Coordinates are continuous, pixel `k` spanning `[k, k+1)`, so a pixel's centre is
/// `k + 0.5`. `inverse` maps canvas luma positions to positions in the sampled picture —
/// the crop, after `sampledSize` pre-scaling — and `edges` is the visible area there:
/// the exact crop, whose border the warp anti-aliases.
package struct LayerWarp: Sendable, Hashable {
    /// The part of the source frame read, in stored pixels (origin even, as swscale and
    /// chroma need).
    package var crop: PixelRect
    /// The quarter turn or mirror the crop is first moved by (exactly, as pixels), so that
    /// what is left to warp is within an eighth of a turn of upright: a portrait phone
    /// clip's display matrix is taken out before a Ken Burns turn. The warp then reads its
    /// source along rows, where a block of canvas samples finds its taps in a few adjacent
    /// source rows instead of one row per sample.
    package var orientation: Orientation
    /// The size the oriented crop is brought to with swscale before warping: its own size,
    /// or smaller when the transform shrinks it by more than half (bicubic taps then
    /// would skip source pixels and alias).
    package var sampledSize: PixelSize
    /// Canvas luma position → sampled-picture position.
    package var inverse: AffineTransform
    /// The visible area in sampled-picture coordinates.
    package var edges: Rect
    /// The canvas pixels the layer can touch (its transformed edges' bounding box, rounded
    /// out); may reach outside the canvas.
    package var destination: PixelRect

    /// The crop's size after `orientation`.
    package var orientedSize: PixelSize {
        orientation.swapsAxes ? PixelSize(width: crop.height, height: crop.width) : PixelSize(width: crop.width, height: crop.height)
    }

    /// True when swscale pre-scales the oriented crop.
    package var prescales: Bool { sampledSize != orientedSize }

    /// Shrinks beyond this per axis are taken by swscale first, leaving the warp at most
    /// this much to do.
    static let largestWarpShrink = 0.5

    /// The same warp reading the oriented crop brought to `size` instead of `sampledSize`
    /// (a still's copy made for an earlier frame, `StillCopies`).
    func sampled(at size: PixelSize) -> LayerWarp {
        guard size != sampledSize else { return self }
        let fx = Double(size.width) / Double(sampledSize.width), fy = Double(size.height) / Double(sampledSize.height)
        var warp = self
        warp.sampledSize = size
        warp.inverse = inverse.concatenating(AffineTransform(scaleX: fx, y: fy))
        warp.edges = Rect(x: edges.x * fx, y: edges.y * fy, width: edges.width * fx, height: edges.height * fy)
        return warp
    }

    /// The warp of a `frameSize` frame (stored pixels) shown at `displaySize` (square
    /// pixels; nil: the frame size), cropped to `crop` (display pixels) and transformed by
    /// `transform` (display pixels → canvas). Nil when nothing is left: an empty crop, a
    /// singular or non-finite transform.
    package static func make(frameSize: PixelSize, displaySize: PixelSize? = nil, crop: Rect,
                            transform: AffineTransform) -> LayerWarp? {
        let shown = displaySize ?? frameSize
        guard shown.width > 0, shown.height > 0, frameSize.width > 0, frameSize.height > 0 else { return nil }
        // (Checked one by one, not through an array: this runs every frame, allocation-free.)
        func usable(_ t: AffineTransform) -> Bool {
            func ok(_ v: Double) -> Bool { v.isFinite && abs(v) < ChromaGrid.limit }
            return ok(t.a) && ok(t.b) && ok(t.c) && ok(t.d) && ok(t.tx) && ok(t.ty)
        }
        guard usable(transform) else { return nil }
        // Display → stored pixels.
        let sx = Double(frameSize.width) / Double(shown.width), sy = Double(frameSize.height) / Double(shown.height)
        let shownRect = Rect(x: 0, y: 0, width: Double(shown.width), height: Double(shown.height))
        let visible: Rect
        if crop.isInfinite {
            visible = shownRect
        } else {
            let x0 = max(crop.x, 0), y0 = max(crop.y, 0), x1 = min(crop.maxX, shownRect.width), y1 = min(crop.maxY, shownRect.height)
            guard x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite, x1 > x0, y1 > y0 else { return nil }
            visible = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
        let stored = Rect(x: visible.x * sx, y: visible.y * sy, width: visible.width * sx, height: visible.height * sy)
        let x0 = ChromaGrid.floor(stored.x), y0 = ChromaGrid.floor(stored.y)
        let x1 = min(frameSize.width, Int(stored.maxX.rounded(.up))), y1 = min(frameSize.height, Int(stored.maxY.rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        let cropRect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)

        // Crop-local stored pixels → canvas.
        let cropToCanvas = AffineTransform(translationX: Double(x0), y: Double(y0))
            .concatenating(AffineTransform(scaleX: 1 / sx, y: 1 / sy))
            .concatenating(transform)
        // The orientation that leaves the most upright remainder (the largest a + d; all
        // eight remainders have the same size, so this is the nearest quarter turn or
        // mirror). Ties keep the earlier case, so an eighth of a turn stays unoriented.
        let cropSize = PixelSize(width: cropRect.width, height: cropRect.height)
        var orientation = Orientation.identity, toCanvas = cropToCanvas
        for candidate in Orientation.allCases where candidate != .identity {
            guard let back = candidate.placement(of: cropSize).inverted else { continue }
            let remainder = back.concatenating(cropToCanvas)
            if remainder.a + remainder.d > toCanvas.a + toCanvas.d + 1e-9 {
                (orientation, toCanvas) = (candidate, remainder)
            }
        }
        let oriented = orientation.swapsAxes ? PixelSize(width: cropSize.height, height: cropSize.width) : cropSize
        // How much each source axis shrinks: beyond `largestWarpShrink`, swscale takes the
        // crop most of the way (never enlarging it).
        let stretchX = (toCanvas.a * toCanvas.a + toCanvas.b * toCanvas.b).squareRoot()
        let stretchY = (toCanvas.c * toCanvas.c + toCanvas.d * toCanvas.d).squareRoot()
        func sampled(_ length: Int, _ stretch: Double) -> Int {
            guard stretch < largestWarpShrink else { return length }
            return min(length, max(2, Int((Double(length) * stretch).rounded(.up))))
        }
        let size = PixelSize(width: sampled(oriented.width, stretchX), height: sampled(oriented.height, stretchY))
        let kx = Double(size.width) / Double(oriented.width), ky = Double(size.height) / Double(oriented.height)
        let forward = AffineTransform(scaleX: 1 / kx, y: 1 / ky).concatenating(toCanvas)
        guard let inverse = forward.inverted, usable(inverse) else { return nil }
        // The visible area, crop-local, moved by the orientation (a rectangle still).
        let place = orientation.placement(of: cropSize)
        let c0 = place.apply(to: Point(x: stored.x - Double(x0), y: stored.y - Double(y0)))
        let c1 = place.apply(to: Point(x: stored.maxX - Double(x0), y: stored.maxY - Double(y0)))
        let edges = Rect(x: min(c0.x, c1.x) * kx, y: min(c0.y, c1.y) * ky,
                         width: abs(c1.x - c0.x) * kx, height: abs(c1.y - c0.y) * ky)
        // The box of the four corners, one pixel wider each way for the anti-aliased rim.
        let p0 = forward.apply(to: Point(x: edges.x, y: edges.y)), p1 = forward.apply(to: Point(x: edges.maxX, y: edges.y))
        let p2 = forward.apply(to: Point(x: edges.x, y: edges.maxY)), p3 = forward.apply(to: Point(x: edges.maxX, y: edges.maxY))
        let minX = min(p0.x, p1.x, p2.x, p3.x), maxX = max(p0.x, p1.x, p2.x, p3.x)
        let minY = min(p0.y, p1.y, p2.y, p3.y), maxY = max(p0.y, p1.y, p2.y, p3.y)
        let bx0 = ChromaGrid.floor(minX - 1), by0 = ChromaGrid.floor(minY - 1)
        let bx1 = Int(min(maxX + 1, ChromaGrid.limit).rounded(.up)), by1 = Int(min(maxY + 1, ChromaGrid.limit).rounded(.up))
        guard bx1 > bx0, by1 > by0 else { return nil }
        return LayerWarp(crop: cropRect, orientation: orientation, sampledSize: size, inverse: inverse, edges: edges,
                         destination: PixelRect(x: bx0, y: by0, width: bx1 - bx0, height: by1 - by0))
    }
}

extension Orientation {
    /// Where this orientation moves the positions of a `size` picture, as a transform of
    /// continuous coordinates (pixel `k` spanning `[k, k+1)`): pixel `(x, y)`'s square
    /// lands on the square of the pixel the case's formula names.
    func placement(of size: PixelSize) -> AffineTransform {
        let w = Double(size.width), h = Double(size.height)
        switch self {
        case .identity: return AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        case .mirrorX: return AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case .mirrorY: return AffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        case .rotate180: return AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .transpose: return AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case .rotate90: return AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case .rotate270: return AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        case .antiTranspose: return AffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        }
    }
}
