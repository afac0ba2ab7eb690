import DropcutMediaIO
import DropcutTimeline

/// One node of a renderer's prepared layer tree, as a CALayer tree is made of layers with
/// contents and layers with sublayers: a drawn layer, a group of nodes, or captions (set
/// anew only when the cues showing change).
enum OverlayNode {
    case layer(PreparedOverlay)
    case group(PreparedOverlayGroup)
    case captions(PreparedCaptions)

    /// The canvas pixels the node draws on at the time last placed; nil: none.
    var box: PixelRect? {
        switch self {
        case let .layer(layer): layer.box
        case let .group(group): group.box
        case let .captions(captions): captions.box
        }
    }
}
