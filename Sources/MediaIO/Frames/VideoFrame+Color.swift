internal import CDropcutFFmpeg
import DropcutTimeline

extension VideoFrame {
    /// How the frame's samples are to be read as colour: its own tags (decoders copy the
    /// stream's VUI into every frame) with the players' defaults for what they leave out,
    /// and the HDR peak its side data states.
    package var colorDescription: ColorDescription {
        let f = frame.pointee
        var description = ColorTags.description(primaries: f.color_primaries, transfer: f.color_trc, matrix: f.colorspace,
                                                range: f.color_range, pixelFormat: AVPixelFormat(f.format))
        if description.transfer == .pq {
            func side<T>(_ type: AVFrameSideDataType, _: T.Type) -> UnsafePointer<T>? {
                guard let data = av_frame_get_side_data(frame, type), data.pointee.size >= MemoryLayout<T>.size,
                      let bytes = data.pointee.data else { return nil }
                return UnsafeRawPointer(bytes).assumingMemoryBound(to: T.self)
            }
            description.peakLuminance = ColorTags.peakLuminance(
                contentLight: side(AV_FRAME_DATA_CONTENT_LIGHT_LEVEL, AVContentLightMetadata.self),
                mastering: side(AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, AVMasteringDisplayMetadata.self))
        }
        return description.resolved(width: width, height: height)
    }

    /// Tags the frame as holding `description` (primaries, transfer, matrix, range), as
    /// dropcut's HLG canvases are: swscale takes the matrix of a frame it writes from its
    /// tag, and the encoder is told the same.
    package func setColorTags(_ description: ColorDescription) {
        let tags = ColorTags.tags(of: description)
        frame.pointee.color_primaries = tags.primaries
        frame.pointee.color_trc = tags.transfer
        frame.pointee.colorspace = tags.matrix
        frame.pointee.color_range = tags.range
    }

    /// Gives the frame `other`'s primaries, transfer and matrix tags as they are (unset
    /// ones stay unset), keeping its own range: a picture repacked by swscale into this
    /// frame then keeps its matrix (swscale converts only between differing tags) while
    /// its range becomes this frame's.
    package func copyColorTags(from other: VideoFrame) {
        frame.pointee.color_primaries = other.frame.pointee.color_primaries
        frame.pointee.color_trc = other.frame.pointee.color_trc
        frame.pointee.colorspace = other.frame.pointee.colorspace
    }

    /// True when the frame is tagged with the BT.2020 non-constant-luminance matrix (the
    /// one dropcut's HLG outputs use).
    package var isTaggedBT2020: Bool { frame.pointee.colorspace == AVCOL_SPC_BT2020_NCL }
}

extension PixelFormat {
    /// 10-bit planar 4:2:0, little-endian: what HEVC Main 10 (phone HDR) decodes to.
    package static let yuv420p10 = PixelFormat(rawValue: AV_PIX_FMT_YUV420P10LE)

    /// Bits per sample of the first component (8 for yuv420p, 10 for yuv420p10le).
    package var bitDepth: Int { Int(av_pix_fmt_desc_get(rawValue)?.pointee.comp.0.depth ?? 8) }

    /// True for planar Y'CbCr 4:2:0 with one sample per byte (8-bit) or per
    /// little-endian 16-bit word (9–16 bits): the layouts dropcut's tone mapper reads.
    package var isPlanarYUV420: Bool {
        guard let descriptor = av_pix_fmt_desc_get(rawValue)?.pointee else { return false }
        let flags = descriptor.flags
        let excluded = UInt64(AV_PIX_FMT_FLAG_RGB) | UInt64(AV_PIX_FMT_FLAG_BE) | UInt64(AV_PIX_FMT_FLAG_BITSTREAM)
            | UInt64(AV_PIX_FMT_FLAG_PAL) | UInt64(AV_PIX_FMT_FLAG_FLOAT)
        guard flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, flags & excluded == 0, descriptor.nb_components >= 3,
              descriptor.log2_chroma_w == 1, descriptor.log2_chroma_h == 1 else { return false }
        let depth = Int(descriptor.comp.0.depth), step = Int(descriptor.comp.0.step)
        return (depth == 8 && step == 1) || (depth > 8 && depth <= 16 && step == 2)
    }
}

extension VideoFrame {
    /// True when the frame says its 4:2:0 chroma sits at the centre of each 2×2 block
    /// (JPEG, H.261); otherwise it sits left (MPEG-2 and H.264's default, also when unstated).
    /// Resampling that moves chroma by other than whole blocks (the general layer warp)
    /// needs to know where each sample is.
    package var chromaIsCentreSited: Bool { frame.pointee.chroma_location == AVCHROMA_LOC_CENTER }
}
