internal import CDropcutFFmpeg
import DropcutTimeline

/// Scales and converts pictures with libswscale, owning one `SwsContext` (freed in
/// `deinit`). The context is rebuilt only when sizes, formats or ranges change
/// (`sws_getCachedContext`), so a steady stream of same-shaped frames reuses it.
///
/// Regions let the caller crop the source and place the result anywhere in the
/// destination without copying: plane pointers are offset, not pictures moved. For 4:2:0
/// formats region origins should be even, or chroma lands half a pixel off.
package final class Scaler {
    private struct Key: Equatable {
        var source: PixelSize, sourceFormat: AVPixelFormat, sourceFullRange: Bool, sourceMatrix: Int32
        var destination: PixelSize, destinationFormat: AVPixelFormat, destinationMatrix: Int32
    }

    private var context: OpaquePointer?
    private var key: Key?
    private let flags: Int32

    /// The resampling filter.
    package enum Filter: Sendable {
        /// Bicubic: the ffmpeg CLI's scale default; for video frames every frame.
        case bicubic
        /// Lanczos: sharper, slower; for pictures scaled once (overlay logos).
        case lanczos
        /// Bilinear: for pictures only analysed, never shown (fast bilinear aliases
        /// enough to lose faces the cascade finds in these).
        case bilinear
    }

    package init(filter: Filter = .bicubic) {
        switch filter {
        case .bicubic: flags = Int32(SWS_BICUBIC)
        case .lanczos: flags = Int32(SWS_LANCZOS) | Int32(SWS_ACCURATE_RND)
        case .bilinear: flags = Int32(SWS_BILINEAR)
        }
    }

    deinit {
        sws_freeContext(context)
    }

    /// Scales `region` of `source` into `destinationRegion` of `destination`, converting
    /// pixel format and range (full-range JPEG-style YUV becomes video range when the
    /// destination is a video-range format).
    package func scale(_ source: VideoFrame, region: PixelRect, into destination: VideoFrame,
                      region destinationRegion: PixelRect) throws(FFmpegError) {
        let sourceFormat = source.pixelFormat.rawValue, destinationFormat = destination.pixelFormat.rawValue
        let fullRange = source.isFullRange
        let key = Key(source: PixelSize(width: region.width, height: region.height), sourceFormat: sourceFormat,
                      sourceFullRange: fullRange, sourceMatrix: source.swscaleMatrix,
                      destination: PixelSize(width: destinationRegion.width, height: destinationRegion.height),
                      destinationFormat: destinationFormat, destinationMatrix: destination.outputSwscaleMatrix)
        if key != self.key {
            context = sws_getCachedContext(context, Int32(region.width), Int32(region.height), sourceFormat,
                                           Int32(destinationRegion.width), Int32(destinationRegion.height), destinationFormat,
                                           flags, nil, nil, nil)
            guard context != nil else {
                self.key = nil
                throw FFmpegError(code: cff_averror(EINVAL), function: "sws_getCachedContext", path: nil)
            }
            // Ranges and matrices live in the frame (color_range, colorspace), which
            // sws_scale does not read: yuvj formats say full range themselves, JPEG and SD
            // video use BT.601, HD BT.709. Output is in the destination's tagged matrix:
            // BT.709 (what dropcut's SDR frames are tagged), BT.2020 for its HLG frames.
            // swscale converts between differing YUV matrices (through RGB), so a BT.2020
            // picture scaled into a BT.2020 frame is only scaled.
            // RGB has no matrix of its own: a side that is RGB takes the other side's, so
            // paths through swscale's internal YUV (rgba64 -> rgba) come back unchanged.
            let sourceRGB = source.isRGB, destinationRGB = destination.isRGB
            let destinationMatrix = destinationRGB ? (sourceRGB ? SWS_CS_DEFAULT : key.sourceMatrix) : key.destinationMatrix
            let sourceMatrix = sourceRGB ? destinationMatrix : key.sourceMatrix
            sws_setColorspaceDetails(context, sws_getCoefficients(sourceMatrix), fullRange ? 1 : 0,
                                     sws_getCoefficients(destinationMatrix), destination.isFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
            self.key = key
        }
        var sourcePlanes = source.planePointers(at: region)
        var sourceStrides = source.strides
        var destinationPlanes = destination.planePointers(at: destinationRegion)
        var destinationStrides = destination.strides
        let result = withCArray(&sourcePlanes) { sp in
            withCArray(&sourceStrides) { ss in
                withCArray(&destinationPlanes) { dp in
                    withCArray(&destinationStrides) { ds in
                        // sws_scale reads the source planes through `const uint8_t *const[]`.
                        sws_scale(context, UnsafeRawPointer(sp).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), ss,
                                  0, Int32(region.height), dp, ds)
                    }
                }
            }
        }
        try check(result, "sws_scale", path: nil)
    }
}

/// `body` with a 4-tuple (how Swift imports FFmpeg's per-plane arrays) seen as the C
/// array it is.
private func withCArray<T, R>(_ tuple: inout (T, T, T, T), _ body: (UnsafeMutablePointer<T>) -> R) -> R {
    withUnsafeMutablePointer(to: &tuple) { $0.withMemoryRebound(to: T.self, capacity: 4, body) }
}

extension VideoFrame {
    /// True for full-range (JPEG-style, 0...255) pictures: RGB, yuvj formats, or a frame
    /// whose colour range says so.
    package var isFullRange: Bool {
        isRGB || pixelFormat.isFullRangeYUV || frame.pointee.color_range == AVCOL_RANGE_JPEG
    }

    /// True for RGB(A) formats, packed or planar.
    var isRGB: Bool {
        guard let descriptor = av_pix_fmt_desc_get(pixelFormat.rawValue) else { return false }
        return descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
    }

    /// The frame's YUV matrix as swscale names it; untagged frames by their size, as
    /// players guess (BT.709 for HD, BT.601 below).
    var swscaleMatrix: Int32 {
        switch frame.pointee.colorspace {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        case AVCOL_SPC_UNSPECIFIED: return isHighDefinition ? SWS_CS_ITU709 : SWS_CS_DEFAULT
        default: return SWS_CS_DEFAULT
        }
    }

    /// The matrix swscale writes into this frame as a destination: its tagged one, BT.709
    /// when untagged (what dropcut's outputs are).
    var outputSwscaleMatrix: Int32 {
        frame.pointee.colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_ITU709 : swscaleMatrix
    }

    /// True when the pixels use the BT.709 matrix dropcut's output is tagged with: by the
    /// frame's tag, or — untagged — by its size, as players assume (HD is BT.709, SD BT.601).
    package var usesBT709: Bool { swscaleMatrix == SWS_CS_ITU709 }

    private var isHighDefinition: Bool { width >= 1280 || height >= 720 }

    /// Row strides of the four planes.
    var strides: (Int32, Int32, Int32, Int32) {
        (frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, frame.pointee.linesize.3)
    }

    /// Pointers to the first byte of `region` in each plane (nil for absent planes).
    func planePointers(at region: PixelRect) -> (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?,
                                                  UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) {
        guard let descriptor = av_pix_fmt_desc_get(pixelFormat.rawValue) else { return (nil, nil, nil, nil) }
        var steps: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        withUnsafeMutablePointer(to: &steps) {
            $0.withMemoryRebound(to: Int32.self, capacity: 4) { av_image_fill_max_pixsteps($0, nil, descriptor) }
        }
        let chromaX = Int(descriptor.pointee.log2_chroma_w), chromaY = Int(descriptor.pointee.log2_chroma_h)
        let data = frame.pointee.data, linesize = frame.pointee.linesize
        func offset(_ base: UnsafeMutablePointer<UInt8>?, _ plane: Int, _ stride: Int32, _ step: Int32) -> UnsafeMutablePointer<UInt8>? {
            guard let base else { return nil }
            let isChroma = plane == 1 || plane == 2
            let x = isChroma ? region.x >> chromaX : region.x, y = isChroma ? region.y >> chromaY : region.y
            return base + y * Int(stride) + x * Int(step)
        }
        return (offset(data.0, 0, linesize.0, steps.0), offset(data.1, 1, linesize.1, steps.1),
                offset(data.2, 2, linesize.2, steps.2), offset(data.3, 3, linesize.3, steps.3))
    }
}
