import DropcutMediaIO
import DropcutTimeline

/// A layer with pictures (an image, an image sequence, a text): premultiplied RGBA, one
/// per frame of a sequence, their rasters at scale 1, and a rescaled raster kept while the
/// scale holds still. Between placing and drawing a frame it also holds where it goes.
final class PreparedOverlay {
    /// How the layer is drawn in the frame being made.
    enum Placement {
        case hidden
        /// Square to the canvas: its top-left corner at the even canvas pixel (`x`, `y`).
        case blit(OverlayRaster, x: Int, y: Int)
        /// Turned, spun, or scaled by a keyframe animation: resampled through `transform`.
        case warp(OverlayRaster, transform: ProjectiveTransform)
    }

    let layer: OverlayLayer
    let pictures: [VideoFrame]
    let rasters: [OverlayRaster]
    var scaled: (index: Int, size: PixelSize, raster: OverlayRaster)?
    /// The frame being made: where, how opaque on its own (groups' opacities apart), and
    /// the canvas pixels it covers.
    var placement = Placement.hidden
    var opacity: Double = 0
    var box: PixelRect?

    init(layer: OverlayLayer, pictures: [VideoFrame], hlg: HLGConversionLUT?) {
        self.layer = layer
        self.pictures = pictures
        rasters = pictures.map { OverlayRaster.make(from: $0, hlg: hlg) }
    }
}
