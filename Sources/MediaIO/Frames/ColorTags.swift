internal import CDropcutFFmpeg
import DropcutTimeline

/// Reads FFmpeg's colour tags (`AVColorPrimaries`, `AVColorTransferCharacteristic`,
/// `AVColorSpace`, `AVColorRange`) and HDR side data as a `ColorDescription`, the one
/// form the rest of dropcut knows. The tags are left unresolved (`.unknown` where the
/// stream says nothing); `ColorDescription.resolved` applies the players' defaults.
enum ColorTags {
    static func description(primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic, matrix: AVColorSpace,
                            range: AVColorRange, pixelFormat: AVPixelFormat) -> ColorDescription {
        let fullRange = range == AVCOL_RANGE_JPEG || PixelFormat(rawValue: pixelFormat).isFullRangeYUV
        return ColorDescription(primaries: self.primaries(primaries), transfer: self.transfer(transfer),
                                matrix: self.matrix(matrix), fullRange: fullRange)
    }

    static func primaries(_ value: AVColorPrimaries) -> ColorDescription.Primaries {
        switch value {
        case AVCOL_PRI_BT709: return .bt709
        case AVCOL_PRI_BT470BG, AVCOL_PRI_SMPTE170M, AVCOL_PRI_SMPTE240M: return .bt601
        case AVCOL_PRI_BT2020: return .bt2020
        case AVCOL_PRI_SMPTE432: return .p3
        default: return .unknown
        }
    }

    static func transfer(_ value: AVColorTransferCharacteristic) -> ColorDescription.Transfer {
        switch value {
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        case AVCOL_TRC_SMPTE2084: return .pq
        case AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M, AVCOL_TRC_BT2020_10, AVCOL_TRC_BT2020_12, AVCOL_TRC_IEC61966_2_1,
             AVCOL_TRC_GAMMA22, AVCOL_TRC_GAMMA28, AVCOL_TRC_SMPTE240M:
            return .sdr
        default: return .unknown
        }
    }

    static func matrix(_ value: AVColorSpace) -> ColorDescription.Matrix {
        switch value {
        case AVCOL_SPC_BT709: return .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC, AVCOL_SPC_SMPTE240M: return .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return .bt2020
        case AVCOL_SPC_RGB: return .rgb
        default: return .unknown
        }
    }

    /// FFmpeg's tags for a description dropcut writes (the encoder's VUI and the MP4
    /// `colr` box, which the muxer takes from the codec parameters). `.unknown` parts stay
    /// unspecified.
    static func tags(of description: ColorDescription) -> (primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic,
                                                          matrix: AVColorSpace, range: AVColorRange) {
        let primaries: AVColorPrimaries
        switch description.primaries {
        case .bt709: primaries = AVCOL_PRI_BT709
        case .bt601: primaries = AVCOL_PRI_SMPTE170M
        case .bt2020: primaries = AVCOL_PRI_BT2020
        case .p3: primaries = AVCOL_PRI_SMPTE432
        case .unknown: primaries = AVCOL_PRI_UNSPECIFIED
        }
        let transfer: AVColorTransferCharacteristic
        switch description.transfer {
        case .sdr: transfer = AVCOL_TRC_BT709
        case .hlg: transfer = AVCOL_TRC_ARIB_STD_B67
        case .pq: transfer = AVCOL_TRC_SMPTE2084
        case .unknown: transfer = AVCOL_TRC_UNSPECIFIED
        }
        let matrix: AVColorSpace
        switch description.matrix {
        case .bt709: matrix = AVCOL_SPC_BT709
        case .bt601: matrix = AVCOL_SPC_SMPTE170M
        case .bt2020: matrix = AVCOL_SPC_BT2020_NCL
        case .rgb: matrix = AVCOL_SPC_RGB
        case .unknown: matrix = AVCOL_SPC_UNSPECIFIED
        }
        return (primaries, transfer, matrix, description.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG)
    }

    /// The peak luminance HDR metadata states, in cd/m²: the content light level's MaxCLL
    /// when present (what the content reaches), else the mastering display's maximum.
    static func peakLuminance(contentLight: UnsafePointer<AVContentLightMetadata>?,
                              mastering: UnsafePointer<AVMasteringDisplayMetadata>?) -> Double? {
        if let light = contentLight, light.pointee.MaxCLL > 0 { return Double(light.pointee.MaxCLL) }
        if let display = mastering, display.pointee.has_luminance != 0, display.pointee.max_luminance.den > 0 {
            let nits = av_q2d(display.pointee.max_luminance)
            if nits.isFinite, nits > 0 { return nits }
        }
        return nil
    }

    /// The stream's colour: its codec parameters' tags, HDR metadata and Dolby Vision
    /// configuration from its side data.
    static func description(of stream: UnsafeMutablePointer<AVStream>) -> ColorDescription {
        let parameters = stream.pointee.codecpar.pointee
        var description = self.description(primaries: parameters.color_primaries, transfer: parameters.color_trc,
                                           matrix: parameters.color_space, range: parameters.color_range,
                                           pixelFormat: AVPixelFormat(parameters.format))
        description.peakLuminance = peakLuminance(
            contentLight: sideData(of: stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self),
            mastering: sideData(of: stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self))
        if let record = sideData(of: stream, AV_PKT_DATA_DOVI_CONF, as: AVDOVIDecoderConfigurationRecord.self)?.pointee {
            description.dolbyVisionProfile = Int(record.dv_profile)
            description.dolbyVisionCompatibility = Int(record.dv_bl_signal_compatibility_id)
        }
        return description
    }

    /// The stream's side data of `type` as a `T`, when it is there and big enough to be one
    /// (the file's bytes are untrusted).
    private static func sideData<T>(of stream: UnsafeMutablePointer<AVStream>, _ type: AVPacketSideDataType,
                                    as: T.Type) -> UnsafePointer<T>? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, type, &size), size >= MemoryLayout<T>.size else { return nil }
        return UnsafeRawPointer(data).assumingMemoryBound(to: T.self)
    }
}
