import DropcutMediaIO
import DropcutTimeline

/// What an encoded piece of a spliced stream stores of each composited canvas (upright,
/// video-range BT.709, as every output is composited): the picture turned back into the
/// source's stored orientation, so the display matrix the copied pictures keep shows it
/// upright too, and converted into the source's colour (matrix and range: swscale, through
/// RGB for another matrix), so it means what the copied pictures beside it mean.
///
/// Its frames are made once per stream: nothing is allocated per picture.
final class SplicedPictureFormat {
    /// The size the encoder is given: the source's stored size.
    let storedSize: PixelSize
    /// The format the encoder is given: `yuvj420p` for a full-range source.
    let pixelFormat: PixelFormat
    private let orientation: Orientation
    private let turned: VideoFrame?
    private let converted: VideoFrame?
    private let scaler = Scaler()
    private let planes = CanvasPlanes(wide: false)

    /// For canvases of `canvas` size shown through `matrix` (identity: stored upright) and a
    /// source stating `colour`.
    init(canvas: PixelSize, matrix: AffineTransform, colour: ColorDescription) throws {
        guard let (turn, _, _) = Orientation.of(a: matrix.a, b: matrix.b, c: matrix.c, d: matrix.d) else {
            throw ExportError.invalidComposition(["a spliced source's display matrix is not a quarter turn or a mirror"])
        }
        orientation = turn.inverse
        storedSize = orientation.swapsAxes ? PixelSize(width: canvas.height, height: canvas.width) : canvas
        if orientation != .identity {
            let frame = try VideoFrame(width: storedSize.width, height: storedSize.height, pixelFormat: .yuv420p)
            frame.setColorTags(.bt709)
            turned = frame
        } else {
            turned = nil
        }
        // Full range in the format that says so: between two yuv420p frames of one size
        // swscale copies the planes as they are, whatever their range tags.
        pixelFormat = colour.fullRange ? .yuvj420p : .yuv420p
        if colour.matrix != .bt709 || colour.fullRange {
            let frame = try VideoFrame(width: storedSize.width, height: storedSize.height, pixelFormat: pixelFormat)
            frame.setColorTags(colour)
            converted = frame
        } else {
            converted = nil
        }
    }

    /// `canvas` as the encoder is to store it: the canvas itself, or one of this format's
    /// frames (valid until the next call), with the canvas's time.
    func stored(_ canvas: VideoFrame) throws -> VideoFrame {
        var picture = canvas
        // The canvas holds BT.709 whatever its size (untagged, an SD one would be read as
        // BT.601).
        canvas.setColorTags(.bt709)
        if let turned {
            planes.orient(canvas, region: PixelRect(size: canvas.size), orientation, into: turned, at: PixelRect(size: storedSize))
            picture = turned
        }
        if let converted {
            try scaler.scale(picture, region: PixelRect(size: storedSize), into: converted, region: PixelRect(size: storedSize))
            picture = converted
        }
        picture.pts = canvas.pts
        return picture
    }
}
