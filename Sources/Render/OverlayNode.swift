import MediaIO
import Timeline

/// One node of a renderer's prepared layer tree, as a CALayer tree is made of layers with
/// contents and layers with sublayers: a drawn layer, or a group of nodes.
enum OverlayNode {
    case layer(PreparedOverlay)
    case group(PreparedOverlayGroup)

    /// The canvas pixels the node draws on at the time last placed; nil: none.
    var box: PixelRect? {
        switch self {
        case let .layer(layer): layer.box
        case let .group(group): group.box
        }
    }
}
