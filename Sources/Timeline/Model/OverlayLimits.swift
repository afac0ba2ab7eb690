/// How large an overlay's picture may be against the output it is drawn on: twice the
/// output's width and height. Twice lets a banner slide across the whole frame; more
/// cannot be seen at scale 1, and the picture is rasterised whole (`size: 32768px` on a
/// 320x240 output asked for 24 GB). So the work and memory of a layer are bounded by the
/// output: the recipe's lengths are checked against it (`OverlaySizeCheck`), and the
/// renderer checks what only the font or the picture tells (a long line of text, an
/// image's height) before it allocates.
package enum OverlayLimits {
    /// How many times the output's side an overlay may span.
    package static let factor = 2

    /// The largest picture an overlay may be drawn as on an output of `output`.
    package static func largestPicture(on output: PixelSize) -> PixelSize {
        PixelSize(width: output.width * factor, height: output.height * factor)
    }
}
