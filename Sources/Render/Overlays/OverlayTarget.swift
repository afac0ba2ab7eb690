import DropcutMediaIO
import DropcutTimeline

/// Where overlay layers are drawn: the frame itself, or the offscreen picture of a
/// translucent group (in canvas coordinates, its top-left corner at the even pixel `x`,
/// `y`), later blended onto the target below it at the group's opacity.
enum OverlayTarget {
    case canvas(VideoFrame)
    case offscreen(OverlayRaster, x: Int, y: Int)

    /// The canvas pixels the target covers.
    var extent: PixelRect {
        switch self {
        case let .canvas(frame): PixelRect(size: frame.size)
        case let .offscreen(raster, x, y): PixelRect(x: x, y: y, width: raster.width, height: raster.height)
        }
    }

    /// Blends `raster` with its top-left corner at canvas pixel (`x`, `y`), even.
    func blend(_ raster: OverlayRaster, x: Int, y: Int, opacity: Float) {
        switch self {
        case let .canvas(frame): raster.blend(into: frame, x: x, y: y, opacity: opacity)
        case let .offscreen(target, originX, originY): target.composite(raster, x: x - originX, y: y - originY, opacity: opacity)
        }
    }

    /// Blends `raster` where `transform` (raster pixels to canvas pixels) puts it.
    func blend(_ raster: OverlayRaster, transform: ProjectiveTransform, opacity: Float) {
        switch self {
        case let .canvas(frame): raster.blend(into: frame, transform: transform, opacity: opacity)
        case let .offscreen(target, originX, originY):
            target.composite(raster, transform: .translation(x: Double(-originX), y: Double(-originY)) * transform, opacity: opacity)
        }
    }
}
