/// How large a still picture (a PNG or JPEG clip source) may be. Larger than a movie
/// frame may (`RecipeLimits.maximumSourceSide`, 8192): a phone's panorama is 12000 to
/// 16000 pixels wide, and a Ken Burns pan across one is what such a picture is for. The
/// pixel count bounds memory: a picture is held decoded and converted (12 bits a pixel
/// each) for its span, about 300 MB at the most.
///
/// Pixels alone do not bound the decoding: a 16-bit RGBA PNG takes 8 bytes a pixel, and
/// one of 16384x6103 — inside 100 megapixels, 777 KB of file — decoded into 800 MB and
/// took 1.77 GB and 21 s to probe. So the decoded bytes are bounded too, from the header
/// (`PictureHeader`), before anything is decoded.
package enum PictureLimits {
    /// The longest side, in pixels.
    package static let maximumSide = 16_384
    /// The most pixels in all.
    package static let maximumPixels = 100_000_000
    /// The most bytes the decoder's picture may take: 100 megapixels of 8-bit RGBA (so no
    /// 8-bit picture inside the pixel limit is refused for it), 50 of 16-bit RGBA.
    package static let maximumDecodedBytes = 400_000_000

    /// True when a picture of `size` may be decoded.
    package static func allow(_ size: PixelSize) -> Bool {
        problem(size) == nil
    }

    /// Which limit a picture of `size`, decoded at `bytesPerPixel`, breaks, in words ("it
    /// is 65000 pixels wide, more than 16384"); nil when it breaks none. Overflow-free for
    /// any size a header can state.
    package static func problem(_ size: PixelSize, bytesPerPixel: Int = 1) -> String? {
        if size.width <= 0 { return "its width is \(size.width == 0 ? "zero" : "\(size.width)")" }
        if size.height <= 0 { return "its height is \(size.height == 0 ? "zero" : "\(size.height)")" }
        if size.width > maximumSide { return "it is \(size.width) pixels wide, more than \(maximumSide)" }
        if size.height > maximumSide { return "it is \(size.height) pixels tall, more than \(maximumSide)" }
        // Both sides are at most 16384 here: the products fit.
        let pixels = size.width * size.height
        if pixels > maximumPixels {
            return "it is \(megapixels(pixels)) megapixels, more than \(maximumPixels / 1_000_000)"
        }
        let bytes = pixels * max(1, bytesPerPixel)
        if bytes > maximumDecodedBytes {
            return "it takes \(bytes / 1_000_000) MB decoded (\(max(1, bytesPerPixel)) bytes a pixel), more than \(maximumDecodedBytes / 1_000_000) MB"
        }
        return nil
    }

    /// `pixels` in megapixels with one decimal ("100.1").
    private static func megapixels(_ pixels: Int) -> String {
        let tenths = (pixels + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// What the limits are, for messages.
    package static let description = "at most \(maximumSide) pixels a side, \(maximumPixels / 1_000_000) megapixels and \(maximumDecodedBytes / 1_000_000) MB decoded"
}
