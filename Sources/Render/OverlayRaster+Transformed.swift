import MediaIO
import Timeline

/// Drawing a raster turned or seen in perspective: each canvas pixel inside the layer's
/// bounding box is mapped back into the raster by the inverse of the layer's projective
/// transform (so perspective is sampled correctly per pixel, not per triangle) and the
/// premultiplied planes are sampled bilinearly there, transparent outside the raster —
/// which is what anti-aliases the edges: a pixel half over the edge gets half the alpha.
/// Chroma sites are mapped the same way from their own centres, into the half-resolution
/// chroma planes.
extension OverlayRaster {
    /// Blends the raster onto `canvas` where `transform` (raster pixels to canvas pixels,
    /// continuous coordinates with pixel centres at +0.5) puts it, at `opacity`.
    func blend(into canvas: VideoFrame, transform: ProjectiveTransform, opacity: Float) {
        guard opacity > 0, let inverse = transform.inverse else { return }
        // The bounding box of the corners, a pixel wider for the bilinear fringe; a corner
        // behind the eye (perspective past 90° from too close) leaves the layer undrawn.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for k in 0..<4 {
            let corner = Point(x: k & 1 == 0 ? 0 : Double(width), y: k < 2 ? 0 : Double(height))
            let (p, w) = transform.applyHomogeneous(corner)
            guard w > 0, p.x.isFinite, p.y.isFinite else { return }
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        let x0 = max(0, Int(minX.rounded(.down)) - 1), y0 = max(0, Int(minY.rounded(.down)) - 1)
        let x1 = min(canvas.width, Int(maxX.rounded(.up)) + 1), y1 = min(canvas.height, Int(maxY.rounded(.up)) + 1)
        guard x1 > x0, y1 > y0 else { return }
        if isWide {
            blendTransformed(UInt16.self, maximum: 1023, into: canvas, inverse: inverse, clip: (x0, y0, x1, y1), opacity: opacity)
        } else {
            blendTransformed(UInt8.self, maximum: 255, into: canvas, inverse: inverse, clip: (x0, y0, x1, y1), opacity: opacity)
        }
    }

    private func blendTransformed<Sample: FixedWidthInteger & UnsignedInteger>(
        _: Sample.Type, maximum: Float, into canvas: VideoFrame, inverse: ProjectiveTransform,
        clip: (x0: Int, y0: Int, x1: Int, y1: Int), opacity: Float
    ) {
        let size = MemoryLayout<Sample>.size
        canvas.withPlane(0) { plane, stride in
            guard let bytes = plane.baseAddress else { return }
            let base = bytes.assumingMemoryBound(to: Sample.self), rowStride = stride / size
            for row in clip.y0..<clip.y1 {
                let out = base + row * rowStride
                for column in clip.x0..<clip.x1 {
                    let q = inverse.applyHomogeneous(Point(x: Double(column) + 0.5, y: Double(row) + 0.5))
                    guard q.weight > 0 else { continue }
                    let (l, a) = sample(x: q.point.x - 0.5, y: q.point.y - 0.5)
                    guard a > 0 else { continue }
                    let value = l * opacity + Float(out[column]) * (1 - a * opacity)
                    out[column] = Sample(min(maximum, max(0, value + 0.5)))
                }
            }
        }
        for plane in 1...2 {
            canvas.withPlane(plane) { buffer, stride in
                guard let bytes = buffer.baseAddress else { return }
                let base = bytes.assumingMemoryBound(to: Sample.self), rowStride = stride / size
                for row in (clip.y0 / 2)..<((clip.y1 + 1) / 2) {
                    let out = base + row * rowStride
                    for column in (clip.x0 / 2)..<((clip.x1 + 1) / 2) {
                        // A chroma site's centre in luma pixels, mapped back, in chroma pixels.
                        let q = inverse.applyHomogeneous(Point(x: Double(2 * column + 1), y: Double(2 * row + 1)))
                        guard q.weight > 0 else { continue }
                        let (c, a) = sampleChroma(plane: plane, x: q.point.x / 2 - 0.5, y: q.point.y / 2 - 0.5)
                        guard a > 0 else { continue }
                        let value = c * opacity + Float(out[column]) * (1 - a * opacity)
                        out[column] = Sample(min(maximum, max(0, value + 0.5)))
                    }
                }
            }
        }
    }

    /// A premultiplied luma value and its alpha at (`x`, `y`) in pixel indices, bilinear,
    /// transparent beyond the raster.
    @inline(__always)
    private func sample(x: Double, y: Double) -> (Float, Float) {
        luma.withUnsafeBufferPointer { l in
            alpha.withUnsafeBufferPointer { a in
                Self.bilinear(l, a, width: width, height: height, x: x, y: y)
            }
        }
    }

    /// A premultiplied chroma value (`plane` 1: Cb, 2: Cr) and its site's alpha.
    @inline(__always)
    private func sampleChroma(plane: Int, x: Double, y: Double) -> (Float, Float) {
        (plane == 1 ? cb : cr).withUnsafeBufferPointer { c in
            chromaAlpha.withUnsafeBufferPointer { a in
                Self.bilinear(c, a, width: chromaWidth, height: chromaHeight, x: x, y: y)
            }
        }
    }

    @inline(__always)
    private static func bilinear(_ values: UnsafeBufferPointer<Float>, _ alphas: UnsafeBufferPointer<Float>,
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
