import DropcutMediaIO
import DropcutTimeline

/// Drawing a raster turned or seen in perspective: each canvas pixel inside the layer's
/// bounding box is mapped back into the raster by the inverse of the layer's projective
/// transform (so perspective is sampled correctly per pixel, not per triangle) and the
/// premultiplied planes are sampled bilinearly there, transparent outside the raster —
/// which is what anti-aliases the edges: a pixel half over the edge gets half the alpha.
/// Chroma sites are mapped the same way from their own centres, into the half-resolution
/// chroma planes.
extension OverlayRaster {
    /// The pixels `transform` can draw on: the bounding box of the raster's corners, a
    /// pixel wider for the bilinear fringe. Nil when nothing is drawn: a transform without
    /// an inverse, or a corner behind the eye (perspective past 90° from too close).
    /// Clamped far outside any canvas, so a huge scale (groups nested, each scaled up)
    /// cannot overflow `Int`.
    func coveredBox(transform: ProjectiveTransform) -> PixelRect? {
        guard transform.inverse != nil else { return nil }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in 0..<4 {
            let corner = Point(x: k & 1 == 0 ? 0 : Double(width), y: k < 2 ? 0 : Double(height))
            let (p, w) = transform.applyHomogeneous(corner)
            guard w > 0, p.x.isFinite, p.y.isFinite else { return nil }
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        let limit = ChromaGrid.limit
        func clamped(_ value: Double) -> Int { Int(min(max(value, -limit), limit)) }
        let x0 = clamped(minX.rounded(.down)) - 1, y0 = clamped(minY.rounded(.down)) - 1
        let x1 = clamped(maxX.rounded(.up)) + 1, y1 = clamped(maxY.rounded(.up)) + 1
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Blends the raster onto `canvas` where `transform` (raster pixels to canvas pixels,
    /// continuous coordinates with pixel centres at +0.5) puts it, at `opacity`.
    func blend(into canvas: VideoFrame, transform: ProjectiveTransform, opacity: Float) {
        guard opacity > 0, let inverse = transform.inverse, let box = coveredBox(transform: transform),
              let clip = box.intersection(PixelRect(size: canvas.size)) else { return }
        let bounds = (clip.x, clip.y, clip.maxX, clip.maxY)
        if isWide {
            blendTransformed(UInt16.self, maximum: 1023, into: canvas, inverse: inverse, clip: bounds, opacity: opacity)
        } else {
            blendTransformed(UInt8.self, maximum: 255, into: canvas, inverse: inverse, clip: bounds, opacity: opacity)
        }
    }

    private func blendTransformed<Sample: FixedWidthInteger & UnsignedInteger>(
        _: Sample.Type, maximum: Float, into canvas: VideoFrame, inverse: ProjectiveTransform,
        clip: (x0: Int, y0: Int, x1: Int, y1: Int), opacity: Float
    ) {
        let size = MemoryLayout<Sample>.size
        withPlanes { planes in
            canvas.withPlane(0) { plane, stride in
                guard let bytes = plane.baseAddress else { return }
                let base = bytes.assumingMemoryBound(to: Sample.self), rowStride = stride / size
                for row in clip.y0..<clip.y1 {
                    let out = base + row * rowStride
                    for column in clip.x0..<clip.x1 {
                        let q = inverse.applyHomogeneous(Point(x: Double(column) + 0.5, y: Double(row) + 0.5))
                        guard q.weight > 0 else { continue }
                        let (l, a) = Self.bilinear(planes.luma, planes.alpha, width: planes.width, height: planes.height,
                                                   x: q.point.x - 0.5, y: q.point.y - 0.5)
                        guard a > 0 else { continue }
                        let value = l * opacity + Float(out[column]) * (1 - a * opacity)
                        out[column] = Sample(min(maximum, max(0, value + 0.5)))
                    }
                }
            }
            for plane in 1...2 {
                let values = plane == 1 ? planes.cb : planes.cr
                canvas.withPlane(plane) { buffer, stride in
                    guard let bytes = buffer.baseAddress else { return }
                    let base = bytes.assumingMemoryBound(to: Sample.self), rowStride = stride / size
                    for row in (clip.y0 / 2)..<((clip.y1 + 1) / 2) {
                        let out = base + row * rowStride
                        for column in (clip.x0 / 2)..<((clip.x1 + 1) / 2) {
                            // A chroma site's centre in luma pixels, mapped back, in chroma pixels.
                            let q = inverse.applyHomogeneous(Point(x: Double(2 * column + 1), y: Double(2 * row + 1)))
                            guard q.weight > 0 else { continue }
                            let (c, a) = Self.bilinear(values, planes.chromaAlpha, width: planes.chromaWidth, height: planes.chromaHeight,
                                                       x: q.point.x / 2 - 0.5, y: q.point.y / 2 - 0.5)
                            guard a > 0 else { continue }
                            let value = c * opacity + Float(out[column]) * (1 - a * opacity)
                            out[column] = Sample(min(maximum, max(0, value + 0.5)))
                        }
                    }
                }
            }
        }
    }

    /// The raster's planes for reading, fetched once for a whole blend (the planes are
    /// variables, and an access per sample would be checked per sample).
    struct Planes {
        let luma: UnsafeBufferPointer<Float>, alpha: UnsafeBufferPointer<Float>
        let cb: UnsafeBufferPointer<Float>, cr: UnsafeBufferPointer<Float>, chromaAlpha: UnsafeBufferPointer<Float>
        let width: Int, height: Int, chromaWidth: Int, chromaHeight: Int
    }

    func withPlanes<R>(_ body: (Planes) -> R) -> R {
        luma.withUnsafeBufferPointer { l in
            alpha.withUnsafeBufferPointer { a in
                cb.withUnsafeBufferPointer { b in
                    cr.withUnsafeBufferPointer { r in
                        chromaAlpha.withUnsafeBufferPointer { ca in
                            body(Planes(luma: l, alpha: a, cb: b, cr: r, chromaAlpha: ca, width: width, height: height,
                                        chromaWidth: chromaWidth, chromaHeight: chromaHeight))
                        }
                    }
                }
            }
        }
    }

    /// A premultiplied value and its alpha at (`x`, `y`) in pixel indices of a `width` ×
    /// `height` plane, bilinear, transparent beyond it.
    @inline(__always)
    static func bilinear(_ values: UnsafeBufferPointer<Float>, _ alphas: UnsafeBufferPointer<Float>,
                         width: Int, height: Int, x: Double, y: Double) -> (Float, Float) {
        guard x > -1, y > -1, x < Double(width), y < Double(height) else { return (0, 0) }
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        let tx = Float(x - fx), ty = Float(y - fy)
        // Four taps, written out: no array literal in the per-pixel path.
        var value: Float = 0, alpha: Float = 0
        @inline(__always) func tap(_ xx: Int, _ yy: Int, _ w: Float) {
            guard w > 0, xx >= 0, xx < width, yy >= 0, yy < height else { return }
            let i = yy * width + xx
            value += values[i] * w
            alpha += alphas[i] * w
        }
        tap(ix, iy, (1 - tx) * (1 - ty))
        tap(ix + 1, iy, tx * (1 - ty))
        tap(ix, iy + 1, (1 - tx) * ty)
        tap(ix + 1, iy + 1, tx * ty)
        return (value, alpha)
    }
}
