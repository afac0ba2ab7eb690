import DropcutMediaIO
import DropcutTimeline

/// The decoded picture one layer draws in an output frame: a source frame, or — with
/// frame blending — a source frame and the next one to mix in by `weight`.
struct LayerPicture {
    var frame: VideoFrame
    var next: VideoFrame?
    /// How much of `next` to mix in (0: `frame` alone).
    var weight: Double
    /// The shape of the frames' stored pixels (their track's): the compositor shows them
    /// at `displaySize`.
    var pixelAspectRatio = PixelAspectRatio.square
    /// Set when `frame` is a still picture's, the same every frame of its span: the
    /// compositor then keeps its turned and shrunk copies (`StillCopies`).
    var still: StillIdentity?

    init(_ frame: VideoFrame, next: VideoFrame? = nil, weight: Double = 0, still: StillIdentity? = nil) {
        self.frame = frame
        self.next = next
        self.weight = weight
        self.still = still
    }

    /// The size `frame` is shown at, in square pixels.
    var displaySize: PixelSize { pixelAspectRatio.displaySize(of: frame.size) }

    /// True when the picture mixes two frames visibly (a weight that rounds to 0 of 256
    /// is the first frame alone).
    var blends: Bool { next != nil && weight >= 0.5 / 256 }
}
