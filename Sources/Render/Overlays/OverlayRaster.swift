import DropcutMediaIO

/// An overlay's pixels ready to blend over 4:2:0 video: premultiplied Y'CbCr (BT.709
/// video range) with alpha — luma and alpha at full resolution, chroma and the alpha of
/// each chroma site at half. Made once per layer; per frame only its rectangle is blended.
///
/// For HLG outputs the picture's colours (SDR, sRGB-ish) are placed in HLG by an
/// `HLGConversionLUT` first — white at HLG 75 %, HDR reference white, so a white logo is
/// as bright as the paper-white of the video, not its peak — and the raster holds 10-bit
/// BT.2020 codes for a 16-bit canvas.
///
/// Premultiplied, so that averaging four pixels into a chroma site weights each by its
/// alpha: a logo's edge keeps its own colour instead of taking on the colour of the
/// transparent pixels around it.
///
/// A group's offscreen picture is one too (`OverlayRaster+Offscreen`): its size changes
/// from frame to frame while its planes, grown to the largest size seen, are kept — so the
/// planes may hold more values than `width` × `height`, and only those are meaningful.
final class OverlayRaster {
    /// Pixels across; also the row stride of `luma` and `alpha`.
    var width: Int
    var height: Int
    var luma: [Float]
    var alpha: [Float]
    var cb: [Float], cr: [Float], chromaAlpha: [Float]
    /// True for 10-bit HLG codes (blended into 16-bit canvases).
    let isWide: Bool
    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { (height + 1) / 2 }

    /// From a premultiplied RGBA picture; for an HLG output with `hlg`, the table that
    /// places SDR colours in HLG.
    static func make(from picture: VideoFrame, hlg: HLGConversionLUT? = nil) -> OverlayRaster {
        picture.withPlane(0) { bytes, stride in
            OverlayRaster(premultipliedRGBA: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: stride,
                          width: picture.width, height: picture.height, hlg: hlg)
        }
    }

    /// An empty raster (0 × 0) to be used as a group's offscreen picture: 8-bit BT.709
    /// codes, or with `wide` 10-bit HLG codes, as the layers drawn into it.
    init(offscreenWide wide: Bool) {
        width = 0
        height = 0
        luma = []
        alpha = []
        cb = []
        cr = []
        chromaAlpha = []
        isWide = wide
    }

    /// From premultiplied RGBA bytes (`stride` bytes per row): BT.709 8-bit codes, or with
    /// `hlg` 10-bit BT.2020 HLG codes.
    init(premultipliedRGBA pixels: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, hlg: HLGConversionLUT? = nil) {
        self.width = width
        self.height = height
        isWide = hlg != nil
        var luma = [Float](repeating: 0, count: width * height), alpha = luma
        var blueDifference = luma, redDifference = luma
        for y in 0..<height {
            for x in 0..<width {
                let p = pixels + y * stride + x * 4
                let r = Float(p[0]) / 255, g = Float(p[1]) / 255, b = Float(p[2]) / 255, a = Float(p[3]) / 255
                let i = y * width + x
                alpha[i] = a
                if let hlg {
                    // The colour itself (not premultiplied) placed in HLG, then weighted
                    // by alpha again; BT.2020 matrix, 10-bit video range.
                    guard a > 0 else { continue }
                    let c = hlg.convert(red: r / a, green: g / a, blue: b / a) * a
                    let l = 0.2627 * c.x + 0.6780 * c.y + 0.0593 * c.z
                    luma[i] = 64 * a + 876 * l
                    blueDifference[i] = 896 * (c.z - l) / 1.8814
                    redDifference[i] = 896 * (c.x - l) / 1.4746
                    continue
                }
                // BT.709 on premultiplied values: every term is linear in alpha.
                let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
                luma[i] = 16 * a + 219 * l
                blueDifference[i] = 224 * (b - l) / 1.8556
                redDifference[i] = 224 * (r - l) / 1.5748
            }
        }
        let chromaZero: Float = hlg == nil ? 128 : 512
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var cb = [Float](repeating: 0, count: cw * ch), cr = cb, chromaAlpha = cb
        for cy in 0..<ch {
            for cx in 0..<cw {
                var sumA: Float = 0, sumB: Float = 0, sumR: Float = 0, n: Float = 0
                for y in (2 * cy)..<min(height, 2 * cy + 2) {
                    for x in (2 * cx)..<min(width, 2 * cx + 2) {
                        let i = y * width + x
                        sumA += alpha[i]; sumB += blueDifference[i]; sumR += redDifference[i]; n += 1
                    }
                }
                let a = sumA / n
                chromaAlpha[cy * cw + cx] = a
                cb[cy * cw + cx] = chromaZero * a + sumB / n
                cr[cy * cw + cx] = chromaZero * a + sumR / n
            }
        }
        self.luma = luma
        self.alpha = alpha
        self.cb = cb
        self.cr = cr
        self.chromaAlpha = chromaAlpha
    }

    /// Blends the raster onto `canvas` (yuv420p, or yuv420p10 for a wide raster) with its
    /// top-left corner at (`x`, `y`) — even, so chroma sites line up — at `opacity`,
    /// clipped to the canvas.
    func blend(into canvas: VideoFrame, x: Int, y: Int, opacity: Float) {
        guard opacity > 0 else { return }
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(canvas.width, x + width), y1 = min(canvas.height, y + height)
        guard x1 > x0, y1 > y0 else { return }
        if isWide {
            blendWide(into: canvas, x: x, y: y, clip: (x0, y0, x1, y1), opacity: opacity)
            return
        }
        // Read once: the planes are variables (an offscreen raster is rewritten each
        // frame), and a read per pixel would be an access check per pixel.
        let luma = luma, alpha = alpha, width = width
        canvas.withPlane(0) { plane, stride in
            let base = plane.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for row in y0..<y1 {
                let out = base + row * stride
                let source = (row - y) * width - x
                for column in x0..<x1 {
                    let i = source + column
                    let value = luma[i] * opacity + Float(out[column]) * (1 - alpha[i] * opacity)
                    out[column] = UInt8(min(255, max(0, value + 0.5)))
                }
            }
        }
        let chroma = (x0: x0 / 2, y0: y0 / 2, x1: (x1 + 1) / 2, y1: (y1 + 1) / 2, originX: x / 2, originY: y / 2)
        blendChroma(cb, plane: 1, into: canvas, chroma, opacity: opacity)
        blendChroma(cr, plane: 2, into: canvas, chroma, opacity: opacity)
    }

    /// `blend` into a 16-bit canvas.
    private func blendWide(into canvas: VideoFrame, x: Int, y: Int, clip: (x0: Int, y0: Int, x1: Int, y1: Int), opacity: Float) {
        let luma = luma, alpha = alpha, width = width, chromaAlpha = chromaAlpha, chromaWidth = chromaWidth
        canvas.withPlane(0) { plane, stride in
            guard let bytes = plane.baseAddress else { return }
            let base = bytes.assumingMemoryBound(to: UInt16.self), rowStride = stride / 2
            for row in clip.y0..<clip.y1 {
                let out = base + row * rowStride
                let source = (row - y) * width - x
                for column in clip.x0..<clip.x1 {
                    let i = source + column
                    let value = luma[i] * opacity + Float(out[column]) * (1 - alpha[i] * opacity)
                    out[column] = UInt16(min(1023, max(0, value + 0.5)))
                }
            }
        }
        let chroma = (x0: clip.x0 / 2, y0: clip.y0 / 2, x1: (clip.x1 + 1) / 2, y1: (clip.y1 + 1) / 2, originX: x / 2, originY: y / 2)
        func blendChroma(_ values: [Float], plane: Int) {
            canvas.withPlane(plane) { buffer, stride in
                guard let bytes = buffer.baseAddress else { return }
                let base = bytes.assumingMemoryBound(to: UInt16.self), rowStride = stride / 2
                for row in chroma.y0..<chroma.y1 {
                    let out = base + row * rowStride
                    let source = (row - chroma.originY) * chromaWidth - chroma.originX
                    for column in chroma.x0..<chroma.x1 {
                        let i = source + column
                        let value = values[i] * opacity + Float(out[column]) * (1 - chromaAlpha[i] * opacity)
                        out[column] = UInt16(min(1023, max(0, value + 0.5)))
                    }
                }
            }
        }
        blendChroma(cb, plane: 1)
        blendChroma(cr, plane: 2)
    }

    private func blendChroma(_ values: [Float], plane: Int, into canvas: VideoFrame,
                             _ r: (x0: Int, y0: Int, x1: Int, y1: Int, originX: Int, originY: Int), opacity: Float) {
        let chromaAlpha = chromaAlpha, chromaWidth = chromaWidth
        canvas.withPlane(plane) { buffer, stride in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for row in r.y0..<r.y1 {
                let out = base + row * stride
                let source = (row - r.originY) * chromaWidth - r.originX
                for column in r.x0..<r.x1 {
                    let i = source + column
                    let value = values[i] * opacity + Float(out[column]) * (1 - chromaAlpha[i] * opacity)
                    out[column] = UInt8(min(255, max(0, value + 0.5)))
                }
            }
        }
    }
}
