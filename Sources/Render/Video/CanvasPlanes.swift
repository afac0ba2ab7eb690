import DropcutMediaIO
import DropcutTimeline

/// The plane-by-plane work of compositing on a 4:2:0 canvas — orienting a picture into
/// place, blending it at an opacity, filling the background — in 8-bit samples, or in
/// 16-bit ones for the 10-bit canvases of HLG outputs (`wide`). `VideoCompositor` decides
/// what goes where; this moves the samples (`PlaneOperations`' loops).
struct CanvasPlanes {
    /// 16-bit samples (HLG outputs) rather than bytes.
    let wide: Bool
    /// The background colour last filled on a 16-bit canvas, with its codes.
    private var wideBackground: (color: Color, codes: (y: UInt16, cb: UInt16, cr: UInt16))?

    init(wide: Bool) {
        self.wide = wide
    }

    /// Moves `region` of `source` by `orientation` into `destination` at `target` (whose
    /// size is the oriented size), plane by plane.
    func orient(_ source: VideoFrame, region: PixelRect, _ orientation: Orientation,
                        into destination: VideoFrame, at target: PixelRect) {
        if wide {
            orientWide(source, region: region, orientation, into: destination, at: target)
            return
        }
        for plane in 0..<3 {
            let from = Self.planeRegion(region, plane: plane)
            let to = Self.planeRegion(target, plane: plane)
            source.withPlane(plane) { src, srcStride in
                destination.withPlane(plane) { dst, dstStride in
                    PlaneOperations.orient(orientation, source: Self.origin(of: from, in: src, stride: srcStride),
                                           sourceStride: srcStride, width: from.width, height: from.height,
                                           destination: Self.origin(of: to, in: dst, stride: dstStride), destinationStride: dstStride)
                }
            }
        }
    }

    /// Blends `region` of `source` onto `canvas` (the output or a scratch frame) at `target`
    /// (same size), clipped to it.
    func blend(_ source: VideoFrame, region: PixelRect, into canvas: VideoFrame, at target: PixelRect, opacity: Double) {
        guard let visible = target.intersection(PixelRect(size: canvas.size)) else { return }
        let sourceVisible = PixelRect(x: region.x + visible.x - target.x, y: region.y + visible.y - target.y,
                                      width: visible.width, height: visible.height)
        if wide {
            blendWide(source, region: sourceVisible, into: canvas, at: visible, opacity: opacity)
            return
        }
        for plane in 0..<3 {
            let from = Self.planeRegion(sourceVisible, plane: plane), to = Self.planeRegion(visible, plane: plane)
            let width = min(from.width, to.width), height = min(from.height, to.height)
            source.withPlane(plane) { src, srcStride in
                canvas.withPlane(plane) { dst, dstStride in
                    PlaneOperations.blend(source: Self.origin(of: from, in: src, stride: srcStride), sourceStride: srcStride,
                                          destination: Self.origin(of: to, in: dst, stride: dstStride),
                                          destinationStride: dstStride, width: width, height: height, opacity: opacity)
                }
            }
        }
    }

    mutating func fillBackground(_ canvas: VideoFrame, color: Color) {
        if wide {
            fillBackgroundWide(canvas, color: color)
            return
        }
        let (y, u, v) = Self.videoRangeYUV(color)
        func fill(_ plane: Int, _ value: UInt8) {
            canvas.withPlane(plane) { buffer, stride in
                PlaneOperations.fill(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: stride,
                                     width: canvas.planeWidth(plane), height: canvas.planeHeight(plane), value: value)
            }
        }
        fill(0, y)
        fill(1, u)
        fill(2, v)
    }

    // MARK: 16-bit canvases (HLG outputs)

    private func orientWide(_ source: VideoFrame, region: PixelRect, _ orientation: Orientation,
                            into destination: VideoFrame, at target: PixelRect) {
        for plane in 0..<3 {
            let from = Self.planeRegion(region, plane: plane)
            let to = Self.planeRegion(target, plane: plane)
            source.withPlane(plane) { src, srcStride in
                destination.withPlane(plane) { dst, dstStride in
                    PlaneOperations.orient(orientation, source: Self.wideOrigin(of: from, in: src, stride: srcStride),
                                           sourceStride: srcStride / 2, width: from.width, height: from.height,
                                           destination: Self.wideOrigin(of: to, in: dst, stride: dstStride),
                                           destinationStride: dstStride / 2)
                }
            }
        }
    }

    /// `blend` on 16-bit planes; `region` and `target` are already clipped to the canvas.
    private func blendWide(_ source: VideoFrame, region: PixelRect, into canvas: VideoFrame, at target: PixelRect, opacity: Double) {
        for plane in 0..<3 {
            let from = Self.planeRegion(region, plane: plane), to = Self.planeRegion(target, plane: plane)
            let width = min(from.width, to.width), height = min(from.height, to.height)
            source.withPlane(plane) { src, srcStride in
                canvas.withPlane(plane) { dst, dstStride in
                    PlaneOperations.blend(source: Self.wideOrigin(of: from, in: src, stride: srcStride), sourceStride: srcStride / 2,
                                          destination: Self.wideOrigin(of: to, in: dst, stride: dstStride),
                                          destinationStride: dstStride / 2, width: width, height: height, opacity: opacity)
                }
            }
        }
    }

    /// The background as an SDR colour placed in HLG (white at HLG 75 %, as overlays are).
    private mutating func fillBackgroundWide(_ canvas: VideoFrame, color: Color) {
        let codes: (y: UInt16, cb: UInt16, cr: UInt16)
        if let kept = wideBackground, kept.color == color {
            codes = kept.codes
        } else {
            codes = Self.hlgCodes(color)
            wideBackground = (color, codes)
        }
        func fill(_ plane: Int, _ value: UInt16) {
            canvas.withPlane(plane) { buffer, stride in
                guard let base = buffer.baseAddress else { return }
                PlaneOperations.fill(base.assumingMemoryBound(to: UInt16.self), stride: stride / 2,
                                     width: canvas.planeWidth(plane), height: canvas.planeHeight(plane), value: value)
            }
        }
        fill(0, codes.y)
        fill(1, codes.cb)
        fill(2, codes.cr)
    }

    /// An SDR colour as 10-bit video-range BT.2020 HLG Y'CbCr codes: placed by
    /// `HLGConversion`, so white is HDR reference white (HLG 75 %, code 721).
    static func hlgCodes(_ color: Color) -> (y: UInt16, cb: UInt16, cr: UInt16) {
        HLGConversionLUT.codes(HLGConversionLUT.bt709.convert(red: Float(color.red), green: Float(color.green),
                                                               blue: Float(color.blue)))
    }

    /// The first sample of `rect` (in plane pixels) in a 16-bit plane's buffer (`stride`
    /// in bytes).
    static func wideOrigin(of rect: PixelRect, in plane: UnsafeMutableRawBufferPointer, stride: Int) -> UnsafeMutablePointer<UInt16> {
        (plane.baseAddress! + rect.y * stride).assumingMemoryBound(to: UInt16.self) + rect.x
    }

    /// A colour as BT.709 video-range Y'CbCr bytes (what the encoder is told the stream is).
    static func videoRangeYUV(_ color: Color) -> (UInt8, UInt8, UInt8) {
        let r = min(max(color.red, 0), 1), g = min(max(color.green, 0), 1), b = min(max(color.blue, 0), 1)
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
        func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
        return (byte(16 + 219 * luma), byte(128 + 224 * (b - luma) / 1.8556), byte(128 + 224 * (r - luma) / 1.5748))
    }

    /// The first byte of `rect` (in plane pixels) in a plane's buffer.
    static func origin(of rect: PixelRect, in plane: UnsafeMutableRawBufferPointer, stride: Int) -> UnsafeMutablePointer<UInt8> {
        plane.baseAddress!.assumingMemoryBound(to: UInt8.self) + rect.y * stride + rect.x
    }

    /// A luma-pixel rectangle in plane `plane` of a 4:2:0 picture (chroma halves it,
    /// rounding the far edge up).
    static func planeRegion(_ rect: PixelRect, plane: Int) -> PixelRect {
        guard plane == 1 || plane == 2 else { return rect }
        let x0 = rect.x >> 1, y0 = rect.y >> 1
        return PixelRect(x: x0, y: y0, width: (rect.maxX + 1) / 2 - x0, height: (rect.maxY + 1) / 2 - y0)
    }
}
