import DropcutMediaIO
import DropcutTimeline

/// A group (a CALayer with sublayers): its box, the box (or canvas) it is placed in, its
/// children; and for the frame being made, its own opacity, the canvas pixels its children
/// cover, and whether two of them overlap.
final class PreparedOverlayGroup {
    let layer: OverlayLayer
    /// The group's box, as the layer says (its transform's frame of reference) …
    let size: Size
    /// … and in whole pixels, where its children are laid out.
    let pixelSize: PixelSize
    let children: [OverlayNode]
    /// 0 while the group is not shown.
    var opacity: Double = 0
    var box: PixelRect?
    var childrenOverlap = false

    init(layer: OverlayLayer, size: Size, children: [OverlayNode]) {
        self.layer = layer
        self.size = size
        pixelSize = PixelSize(width: max(1, Int(min(size.width, ChromaGrid.limit).rounded())),
                              height: max(1, Int(min(size.height, ChromaGrid.limit).rounded())))
        self.children = children
    }
}
