/// How large a still picture (a PNG or JPEG clip source) may be. Larger than a movie
/// frame may (`RecipeLimits.maximumSourceSide`, 8192): a phone's panorama is 12000 to
/// 16000 pixels wide, and a Ken Burns pan across one is what such a picture is for. The
/// pixel count bounds memory: a picture is held decoded and converted (12 bits a pixel
/// each) for its span, about 300 MB at the most.
public enum PictureLimits {
    /// The longest side, in pixels.
    public static let maximumSide = 16_384
    /// The most pixels in all.
    public static let maximumPixels = 100_000_000

    /// True when a picture of `size` may be decoded.
    public static func allow(_ size: PixelSize) -> Bool {
        (1...maximumSide).contains(size.width) && (1...maximumSide).contains(size.height)
            && size.width * size.height <= maximumPixels
    }

    /// What the limits are, for messages: "at most 16384 pixels a side and 100 megapixels".
    public static let description = "at most \(maximumSide) pixels a side and \(maximumPixels / 1_000_000) megapixels"
}
