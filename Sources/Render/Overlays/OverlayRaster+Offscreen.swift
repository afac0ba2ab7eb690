import DropcutMediaIO
import DropcutTimeline

/// A raster as a group's offscreen picture: the group's layers are drawn into it with
/// Porter–Duff "over" on premultiplied values — colour and alpha both — and the result is
/// then blended onto what lies below at the group's opacity, as Core Animation flattens a
/// layer tree before applying its opacity. "Over" is linear in premultiplied values, and
/// the raster's Y'CbCr codes are an affine map of premultiplied RGB (the offsets carried by
/// alpha), so compositing the codes is compositing the colours.
///
/// The planes keep their largest size between frames: a group's picture changes size as
/// it moves or turns, and a frame allocates nothing once the largest has been seen.
extension OverlayRaster {
    /// Makes the raster `width` × `height` (even, at most the canvas's) and transparent.
    func clear(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        let count = self.width * self.height, chromaCount = chromaWidth * chromaHeight
        func reset(_ plane: inout [Float], _ count: Int) {
            if plane.count < count {
                plane = [Float](repeating: 0, count: count)
                return
            }
            plane.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[..<count]).update(repeating: 0) }
        }
        reset(&luma, count)
        reset(&alpha, count)
        reset(&cb, chromaCount)
        reset(&cr, chromaCount)
        reset(&chromaAlpha, chromaCount)
    }

    /// The bytes the planes keep allocated (their largest size so far).
    var retainedBytes: Int {
        (luma.count + alpha.count + cb.count + cr.count + chromaAlpha.count) * MemoryLayout<Float>.size
    }

    /// The bytes `clear(width:height:)` needs for a `width` × `height` picture: luma and
    /// alpha whole, three chroma planes a quarter each.
    static func offscreenBytes(width: Int, height: Int) -> Int {
        (width * height * 2 + ((width + 1) / 2) * ((height + 1) / 2) * 3) * MemoryLayout<Float>.size
    }

    /// The planes for writing, fetched once per composite.
    private struct MutablePlanes {
        let luma: UnsafeMutableBufferPointer<Float>, alpha: UnsafeMutableBufferPointer<Float>
        let cb: UnsafeMutableBufferPointer<Float>, cr: UnsafeMutableBufferPointer<Float>, chromaAlpha: UnsafeMutableBufferPointer<Float>
    }

    private func withMutablePlanes(_ body: (MutablePlanes) -> Void) {
        luma.withUnsafeMutableBufferPointer { l in
            alpha.withUnsafeMutableBufferPointer { a in
                cb.withUnsafeMutableBufferPointer { b in
                    cr.withUnsafeMutableBufferPointer { r in
                        chromaAlpha.withUnsafeMutableBufferPointer { ca in
                            body(MutablePlanes(luma: l, alpha: a, cb: b, cr: r, chromaAlpha: ca))
                        }
                    }
                }
            }
        }
    }

    /// Draws `source` over this raster with its top-left corner at (`x`, `y`) — even, so
    /// chroma sites line up — at `opacity`, clipped to this raster.
    func composite(_ source: OverlayRaster, x: Int, y: Int, opacity: Float) {
        guard opacity > 0, source.isWide == isWide else { return }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + source.width), y1 = min(height, y + source.height)
        guard x1 > x0, y1 > y0 else { return }
        let width = width, chromaWidth = chromaWidth
        source.withPlanes { from in
            withMutablePlanes { to in
                for row in y0..<y1 {
                    let target = row * width, origin = (row - y) * from.width - x
                    for column in x0..<x1 {
                        let i = origin + column, t = target + column
                        let a = from.alpha[i] * opacity
                        to.luma[t] = from.luma[i] * opacity + to.luma[t] * (1 - a)
                        to.alpha[t] = a + to.alpha[t] * (1 - a)
                    }
                }
                for row in (y0 / 2)..<((y1 + 1) / 2) {
                    let target = row * chromaWidth, origin = (row - y / 2) * from.chromaWidth - x / 2
                    for column in (x0 / 2)..<((x1 + 1) / 2) {
                        let i = origin + column, t = target + column
                        let a = from.chromaAlpha[i] * opacity
                        to.cb[t] = from.cb[i] * opacity + to.cb[t] * (1 - a)
                        to.cr[t] = from.cr[i] * opacity + to.cr[t] * (1 - a)
                        to.chromaAlpha[t] = a + to.chromaAlpha[t] * (1 - a)
                    }
                }
            }
        }
    }

    /// Draws `source` over this raster where `transform` (source pixels to this raster's,
    /// pixel centres at +0.5) puts it, at `opacity`: sampled as
    /// `blend(into:transform:opacity:)` samples for a canvas.
    func composite(_ source: OverlayRaster, transform: ProjectiveTransform, opacity: Float) {
        guard opacity > 0, source.isWide == isWide, let inverse = transform.inverse,
              let box = source.coveredBox(transform: transform),
              let clip = box.intersection(PixelRect(x: 0, y: 0, width: width, height: height)) else { return }
        let width = width, chromaWidth = chromaWidth
        source.withPlanes { from in
            withMutablePlanes { to in
                for row in clip.y..<clip.maxY {
                    for column in clip.x..<clip.maxX {
                        let q = inverse.applyHomogeneous(Point(x: Double(column) + 0.5, y: Double(row) + 0.5))
                        guard q.weight > 0 else { continue }
                        let (l, sampled) = Self.bilinear(from.luma, from.alpha, width: from.width, height: from.height,
                                                         x: q.point.x - 0.5, y: q.point.y - 0.5)
                        guard sampled > 0 else { continue }
                        let t = row * width + column, a = sampled * opacity
                        to.luma[t] = l * opacity + to.luma[t] * (1 - a)
                        to.alpha[t] = a + to.alpha[t] * (1 - a)
                    }
                }
                for row in (clip.y / 2)..<((clip.maxY + 1) / 2) {
                    for column in (clip.x / 2)..<((clip.maxX + 1) / 2) {
                        let q = inverse.applyHomogeneous(Point(x: Double(2 * column + 1), y: Double(2 * row + 1)))
                        guard q.weight > 0 else { continue }
                        let sx = q.point.x / 2 - 0.5, sy = q.point.y / 2 - 0.5
                        let (b, sampled) = Self.bilinear(from.cb, from.chromaAlpha, width: from.chromaWidth, height: from.chromaHeight, x: sx, y: sy)
                        guard sampled > 0 else { continue }
                        let (r, _) = Self.bilinear(from.cr, from.chromaAlpha, width: from.chromaWidth, height: from.chromaHeight, x: sx, y: sy)
                        let t = row * chromaWidth + column, a = sampled * opacity
                        to.cb[t] = b * opacity + to.cb[t] * (1 - a)
                        to.cr[t] = r * opacity + to.cr[t] * (1 - a)
                        to.chromaAlpha[t] = a + to.chromaAlpha[t] * (1 - a)
                    }
                }
            }
        }
    }
}
